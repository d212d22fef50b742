export * from '../830.index.js';
