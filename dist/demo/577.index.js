export * from '../577.index.js';
