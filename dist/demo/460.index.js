export * from '../460.index.js';
