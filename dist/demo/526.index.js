export * from '../526.index.js';
