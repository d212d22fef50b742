export * from '../149.index.js';
