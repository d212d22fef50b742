export * from '../470.index.js';
