/**
 * The Bedrock and Vertex AI SDKs, loaded when a run chooses them. The build (scripts/build.mjs)
 * bundles each on its own, as `bedrock-sdk/` and `vertex-sdk/` beside every entry, and swaps
 * this module for one that imports that sibling bundle at run time, past webpack. Bundled with
 * the entry (even as lazy chunks), the SDKs' use of the full client's resources would keep all of
 * @anthropic-ai/sdk's resources in the entry every run loads: webpack counts used exports over
 * the whole build (docs/BENCHMARKS.md, "The action's start-up"). Each such bundle has its own
 * copy of the SDK's error classes; the client's statics name them (`AnthropicBedrock.APIError`),
 * and the error conversion checks those too (anthropic-errors.ts, `ErrorContext.sdk`).
 */
import type * as BedrockSdk from './bedrock-sdk.js';
import type * as VertexSdk from './vertex-sdk.js';

export const loadBedrockSdk = (): Promise<typeof BedrockSdk> => import('./bedrock-sdk.js');

export const loadVertexSdk = (): Promise<typeof VertexSdk> => import('./vertex-sdk.js');
