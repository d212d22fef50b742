export * from '../723.index.js';
