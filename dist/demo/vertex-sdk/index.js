export * from '../../vertex-sdk/index.js';
