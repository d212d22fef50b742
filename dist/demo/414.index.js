export * from '../414.index.js';
