export * from '../443.index.js';
