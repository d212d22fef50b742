export * from '../429.index.js';
