export * from '../193.index.js';
