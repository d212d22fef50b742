export * from '../344.index.js';
