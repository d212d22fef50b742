export * from '../198.index.js';
