/**
 * The Bedrock SDK, loaded only when a run chooses Bedrock (provider-sdks.ts); the build bundles
 * this module on its own, as dist/bedrock-sdk/ beside each entry.
 */
export { AnthropicBedrock } from '@anthropic-ai/bedrock-sdk';
