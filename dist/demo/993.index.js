export * from '../993.index.js';
