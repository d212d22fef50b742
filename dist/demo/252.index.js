export * from '../252.index.js';
