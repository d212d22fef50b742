export * from '../306.index.js';
