export * from '../757.index.js';
