export * from '../33.index.js';
