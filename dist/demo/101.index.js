export * from '../101.index.js';
