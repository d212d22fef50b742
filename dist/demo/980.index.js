export * from '../980.index.js';
