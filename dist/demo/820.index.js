export * from '../820.index.js';
