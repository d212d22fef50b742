export * from '../79.index.js';
