export * from '../393.index.js';
