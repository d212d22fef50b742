export * from '../80.index.js';
