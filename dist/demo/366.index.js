export * from '../366.index.js';
