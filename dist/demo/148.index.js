export * from '../148.index.js';
