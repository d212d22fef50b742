export * from '../26.index.js';
