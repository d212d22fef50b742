export * from '../106.index.js';
