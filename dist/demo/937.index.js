export * from '../937.index.js';
