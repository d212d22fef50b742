export * from '../606.index.js';
