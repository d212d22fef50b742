export * from '../416.index.js';
