export * from '../500.index.js';
