export * from '../168.index.js';
