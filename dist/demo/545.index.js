export * from '../545.index.js';
