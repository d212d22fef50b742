export * from '../273.index.js';
