export * from '../719.index.js';
