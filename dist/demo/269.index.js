export * from '../269.index.js';
