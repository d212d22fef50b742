/**
 * The Vertex AI SDK, loaded only when a run chooses Vertex AI (provider-sdks.ts); the build
 * bundles this module on its own, as dist/vertex-sdk/ beside each entry.
 */
export { AnthropicVertex } from '@anthropic-ai/vertex-sdk';
