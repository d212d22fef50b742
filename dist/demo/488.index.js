export * from '../488.index.js';
