export * from '../669.index.js';
