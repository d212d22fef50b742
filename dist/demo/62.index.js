export * from '../62.index.js';
