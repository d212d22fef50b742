export * from '../359.index.js';
