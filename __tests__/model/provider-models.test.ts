import { describe, expect, it } from 'vitest';
import { costUSD, pricingFor } from '../../src/model/pricing.js';
import { envLookup } from '../../src/model/provider-env.js';
import { chooseModels, describeProvider } from '../../src/model/provider-models.js';
import { resolveProviderSettings } from '../../src/model/provider-settings.js';

function provider(env: Record<string, string>) {
  const lookup = envLookup(env);
  return { settings: resolveProviderSettings({ lookup }), lookup };
}

const BEDROCK = {
  CLAUDE_CODE_USE_BEDROCK: '1',
  AWS_ACCESS_KEY_ID: 'a',
  AWS_SECRET_ACCESS_KEY: 'b',
};
const VERTEX = {
  CLAUDE_CODE_USE_VERTEX: '1',
  CLOUD_ML_REGION: 'us-east5',
  ANTHROPIC_VERTEX_PROJECT_ID: 'p-123456',
};
const FOUNDRY = {
  CLAUDE_CODE_USE_FOUNDRY: '1',
  ANTHROPIC_FOUNDRY_RESOURCE: 'r',
  ANTHROPIC_FOUNDRY_API_KEY: 'k',
};

describe('chooseModels', () => {
  it("resolves aliases to Anthropic's current ids on Anthropic's API", () => {
    const { settings, lookup } = provider({ ANTHROPIC_API_KEY: 'k' });
    expect(chooseModels(settings, lookup, undefined)).toEqual({
      model: 'claude-sonnet-5-5',
      smallFastModel: 'claude-haiku-5-5',
    });
    expect(chooseModels(settings, lookup, 'opus').model).toBe('claude-opus-5-5');
  });

  it.each([
    ['us-east-1', 'us'],
    ['us-gov-west-1', 'us-gov'],
    ['eu-central-1', 'eu'],
    ['ap-northeast-1', 'apac'],
    ['ca-central-1', 'global'],
  ])('on Bedrock in %s, makes aliases inference profiles of the %s geography', (region, geo) => {
    const { settings, lookup } = provider({ ...BEDROCK, AWS_REGION: region });
    expect(chooseModels(settings, lookup, 'sonnet')).toEqual({
      model: `${geo}.anthropic.claude-sonnet-4-5-20250929-v1:0`,
      smallFastModel: `${geo}.anthropic.claude-haiku-4-5-20251001-v1:0`,
    });
    expect(chooseModels(settings, lookup, 'opus').model).toBe(
      `${geo}.anthropic.claude-opus-4-6-v1`,
    );
  });

  it("on Vertex AI and Foundry, makes aliases the provider's version and deployment names", () => {
    const vertex = provider(VERTEX);
    expect(chooseModels(vertex.settings, vertex.lookup, undefined)).toEqual({
      model: 'claude-sonnet-4-5@20250929',
      smallFastModel: 'claude-haiku-4-5@20251001',
    });
    const foundry = provider(FOUNDRY);
    expect(chooseModels(foundry.settings, foundry.lookup, 'opus').model).toBe('claude-opus-4-6');
  });

  it('takes ANTHROPIC_MODEL, ANTHROPIC_SMALL_FAST_MODEL and the pinned alias targets', () => {
    const { settings, lookup } = provider({
      ...VERTEX,
      ANTHROPIC_MODEL: 'opus',
      ANTHROPIC_DEFAULT_OPUS_MODEL: 'claude-opus-4-8',
      ANTHROPIC_SMALL_FAST_MODEL: 'claude-haiku-4-5@20251001',
    });
    expect(chooseModels(settings, lookup, undefined)).toEqual({
      model: 'claude-opus-4-8',
      smallFastModel: 'claude-haiku-4-5@20251001',
    });
    expect(chooseModels(settings, lookup, 'claude-sonnet-4-6').model).toBe('claude-sonnet-4-6');
  });

  it('refuses an alias the provider has no id for, saying how to give one', () => {
    const { settings, lookup } = provider({ ...BEDROCK, AWS_REGION: 'us-east-1' });
    expect(() => chooseModels(settings, lookup, 'fable')).toThrow(
      'the model alias "fable" has no id known on Amazon Bedrock: give the full model id (--model, ANTHROPIC_MODEL or the action\'s model input)',
    );
  });
});

describe('pricingFor, with provider model ids', () => {
  it.each([
    ['us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'Sonnet 4/4.5'],
    ['global.anthropic.claude-opus-4-6-v1', 'Opus 4.6–5'],
    ['anthropic.claude-haiku-4-5-20251001-v1:0', 'Haiku 4.5'],
    ['claude-sonnet-4-5@20250929', 'Sonnet 4/4.5'],
    ['claude-haiku-4-5@20251001', 'Haiku 4.5'],
    ['claude-opus-4-6', 'Opus 4.6–5'],
  ])('prices %s as %s', (model, family) => {
    expect(pricingFor(model)).toMatchObject({ family, known: true });
  });

  it('prices a Bedrock id exactly as the base model', () => {
    const usage = {
      input_tokens: 1000,
      output_tokens: 500,
      cache_creation_input_tokens: 200,
      cache_read_input_tokens: 3000,
    };
    expect(costUSD('us.anthropic.claude-sonnet-4-5-20250929-v1:0', usage)).toBe(
      costUSD('claude-sonnet-4-5-20250929', usage),
    );
  });

  it('prices an application inference profile ARN as unknown (an upper estimate)', () => {
    const arn = 'arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3';
    expect(pricingFor(arn).known).toBe(false);
  });
});

describe('describeProvider', () => {
  it('says the provider, its place and where the credentials came from', () => {
    const bedrock = provider({ ...BEDROCK, AWS_REGION: 'eu-west-1' }).settings;
    expect(describeProvider(bedrock)).toEqual({
      provider: 'bedrock',
      label: 'Amazon Bedrock (eu-west-1)',
      apiKeySource: 'none',
      credentials: 'AWS_ACCESS_KEY_ID',
    });
    const oauth = provider({ CLAUDE_CODE_OAUTH_TOKEN: 't' }).settings;
    expect(describeProvider(oauth)).toMatchObject({
      label: "Anthropic's API",
      apiKeySource: 'CLAUDE_CODE_OAUTH_TOKEN',
    });
    const vertex = provider(VERTEX).settings;
    expect(describeProvider(vertex).label).toBe('Google Vertex AI (p-123456, us-east5)');
  });
});
