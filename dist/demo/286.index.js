export * from '../286.index.js';
