export * from '../565.index.js';
