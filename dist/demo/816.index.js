export * from '../816.index.js';
