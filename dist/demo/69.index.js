export * from '../69.index.js';
