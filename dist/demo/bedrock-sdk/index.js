export * from '../../bedrock-sdk/index.js';
