import { describe, expect, it } from 'vitest';
import {
  costUSD,
  DEFAULT_MODEL,
  pricingFor,
  resolveModelAlias,
  UsageTracker,
} from '../../src/model/pricing.js';
import type { Usage } from '../../src/model/types.js';

function usage(partial: Partial<Usage>): Usage {
  return {
    input_tokens: 0,
    output_tokens: 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    ...partial,
  };
}

const MILLION = 1_000_000;

describe('pricingFor', () => {
  it.each([
    // model id, input $/MTok, output $/MTok, cache read $/MTok
    ['claude-fable-5-1', 10, 50, 0.25],
    ['claude-mythos-5', 10, 50, 1],
    ['claude-opus-5-5', 4, 20, 0.2],
    ['claude-opus-5', 5, 25, 0.5],
    ['claude-opus-4-8', 5, 25, 0.5],
    ['claude-opus-4-6', 5, 25, 0.5],
    ['claude-opus-4-5-20251101', 5, 25, 0.5],
    ['claude-opus-4-1', 15, 75, 1.5],
    ['claude-opus-4-1-20250805', 15, 75, 1.5],
    ['claude-opus-4-20250514', 15, 75, 1.5],
    ['claude-opus-4-0', 15, 75, 1.5],
    ['claude-3-opus-20240229', 15, 75, 1.5],
    ['claude-sonnet-5-5', 2, 10, 0.1],
    ['claude-sonnet-5', 2, 10, 0.2],
    ['claude-sonnet-4-6', 3, 15, 0.3],
    ['claude-sonnet-4-5-20250929', 3, 15, 0.3],
    ['claude-sonnet-4-20250514', 3, 15, 0.3],
    ['claude-3-7-sonnet-20250219', 3, 15, 0.3],
    ['claude-3-5-sonnet-20241022', 3, 15, 0.3],
    ['claude-haiku-5-5', 0.1, 0.5, 0.01],
    ['claude-haiku-4-5-20251001', 1, 5, 0.1],
    ['claude-3-5-haiku-20241022', 0.8, 4, 0.08],
    ['claude-3-haiku-20240307', 0.25, 1.25, 0.025],
    ['anthropic.claude-sonnet-4-5-20250929-v1:0', 3, 15, 0.3],
    ['claude-opus-4-1@20250805', 15, 75, 1.5],
    ['sonnet', 2, 10, 0.1],
    ['opus', 4, 20, 0.2],
    ['haiku', 0.1, 0.5, 0.01],
  ])('prices %s at $%s in / $%s out / $%s cache read', (model, input, output, cacheRead) => {
    const pricing = pricingFor(model);

    expect(pricing.known).toBe(true);
    expect(pricing.inputPerMTok).toBeCloseTo(input, 10);
    expect(pricing.outputPerMTok).toBeCloseTo(output, 10);
    expect(pricing.cacheWritePerMTok).toBeCloseTo(input * 1.25, 10);
    expect(pricing.cacheReadPerMTok).toBeCloseTo(cacheRead, 10);
  });

  describe('when the model is not in the table', () => {
    it.each(['claude-sonnet-6', 'claude-opus-5-6', 'claude-mythos-preview', 'gpt-5', ''])(
      'flags %j as unknown and prices it at the Opus 4.1 level',
      (model) => {
        expect(pricingFor(model)).toMatchObject({
          known: false,
          inputPerMTok: 15,
          outputPerMTok: 75,
        });
      },
    );
  });

  it.each([
    ['claude-sonnet-5-5', 1_000_000],
    ['claude-opus-4-6', 1_000_000],
    ['claude-haiku-4-5', 200_000],
    ['claude-sonnet-4-5', 200_000],
    ['claude-sonnet-4-5[1m]', 1_000_000],
  ])('gives %s a context window of %d tokens', (model, window) => {
    expect(pricingFor(model).contextWindow).toBe(window);
  });
});

describe('costUSD', () => {
  it('adds input, output, cache writes at 1.25× and cache reads at 0.1× of the input price', () => {
    const cost = costUSD(
      'claude-sonnet-4-6',
      usage({
        input_tokens: MILLION,
        output_tokens: MILLION,
        cache_creation_input_tokens: MILLION,
        cache_read_input_tokens: MILLION,
      }),
    );

    expect(cost).toBeCloseTo(3 + 15 + 3.75 + 0.3, 10);
  });

  it('prices a realistic CI turn on Opus 4.5', () => {
    const cost = costUSD(
      'claude-opus-4-5',
      usage({
        input_tokens: 2_000,
        output_tokens: 800,
        cache_creation_input_tokens: 10_000,
        cache_read_input_tokens: 40_000,
      }),
    );

    expect(cost).toBeCloseTo((2_000 * 5 + 800 * 25 + 10_000 * 6.25 + 40_000 * 0.5) / MILLION, 12);
  });

  it('uses the cache-read rate of the model where it differs from 0.1×', () => {
    const cost = costUSD('claude-opus-5-5', usage({ cache_read_input_tokens: MILLION }));

    expect(cost).toBeCloseTo(0.2, 10);
  });

  it('costs nothing for an empty usage', () => {
    expect(costUSD(DEFAULT_MODEL, usage({}))).toBe(0);
  });

  describe('when the prompt is above the long-prompt threshold', () => {
    it('bills every token of a Haiku 5.5 response over 100k prompt tokens at the higher band', () => {
      const cost = costUSD(
        'claude-haiku-5-5',
        usage({
          input_tokens: 50_000,
          cache_read_input_tokens: 60_000,
          output_tokens: 1_000,
        }),
      );

      expect(cost).toBeCloseTo((50_000 * 0.5 + 60_000 * 0.05 + 1_000 * 2.5) / MILLION, 12);
    });

    it('keeps the lower band for a prompt of exactly the threshold', () => {
      const cost = costUSD(
        'claude-haiku-5-5',
        usage({ input_tokens: 100_000, output_tokens: 1_000 }),
      );

      expect(cost).toBeCloseTo((100_000 * 0.1 + 1_000 * 0.5) / MILLION, 12);
    });

    it('bills Sonnet 4.5 prompts over 200k tokens at $6 / $22.50', () => {
      const cost = costUSD(
        'claude-sonnet-4-5[1m]',
        usage({ input_tokens: 250_000, output_tokens: 2_000 }),
      );

      expect(cost).toBeCloseTo((250_000 * 6 + 2_000 * 22.5) / MILLION, 12);
    });
  });

  it('prices an unknown model at the conservative default', () => {
    expect(costUSD('claude-sonnet-9', usage({ input_tokens: MILLION }))).toBeCloseTo(15, 10);
  });
});

describe('resolveModelAlias', () => {
  it.each([
    ['sonnet', 'claude-sonnet-5-5'],
    ['opus', 'claude-opus-5-5'],
    ['haiku', 'claude-haiku-5-5'],
    ['fable', 'claude-fable-5-1'],
    [' Sonnet ', 'claude-sonnet-5-5'],
    ['claude-opus-4-1', 'claude-opus-4-1'],
    ['my-proxy-model', 'my-proxy-model'],
  ])('resolves %j to %j', (alias, id) => {
    expect(resolveModelAlias(alias)).toBe(id);
  });

  it('has a default model that the price table knows', () => {
    expect(pricingFor(DEFAULT_MODEL).known).toBe(true);
  });
});

describe('UsageTracker', () => {
  it('accumulates usage per model in the modelUsage shape of the result message', () => {
    const tracker = new UsageTracker();

    tracker.add('claude-sonnet-4-6', usage({ input_tokens: 1_000, output_tokens: 200 }));
    tracker.add(
      'claude-sonnet-4-6',
      usage({
        input_tokens: 50,
        output_tokens: 300,
        cache_read_input_tokens: 1_000,
        cache_creation_input_tokens: 400,
      }),
      { webSearchRequests: 2 },
    );
    tracker.add('claude-haiku-4-5', usage({ input_tokens: 500, output_tokens: 100 }));

    const { costUSD: sonnetCost, ...sonnet } = tracker.modelUsage['claude-sonnet-4-6'] ?? {};
    const { costUSD: haikuCost, ...haiku } = tracker.modelUsage['claude-haiku-4-5'] ?? {};
    expect(Object.keys(tracker.modelUsage)).toEqual(['claude-sonnet-4-6', 'claude-haiku-4-5']);
    expect(sonnet).toEqual({
      inputTokens: 1_050,
      outputTokens: 500,
      cacheReadInputTokens: 1_000,
      cacheCreationInputTokens: 400,
      webSearchRequests: 2,
      contextWindow: 1_000_000,
    });
    expect(sonnetCost).toBeCloseTo((1_050 * 3 + 500 * 15 + 1_000 * 0.3 + 400 * 3.75) / MILLION, 12);
    expect(haiku).toEqual({
      inputTokens: 500,
      outputTokens: 100,
      cacheReadInputTokens: 0,
      cacheCreationInputTokens: 0,
      webSearchRequests: 0,
      contextWindow: 200_000,
    });
    expect(haikuCost).toBeCloseTo((500 * 1 + 100 * 5) / MILLION, 12);
  });

  it('totals usage and cost across models', () => {
    const tracker = new UsageTracker();
    tracker.add('claude-opus-4-1', usage({ input_tokens: 100, output_tokens: 10 }));
    tracker.add(
      'claude-haiku-4-5',
      usage({ input_tokens: 200, output_tokens: 20, cache_read_input_tokens: 5 }),
    );

    const summary = tracker.summary();

    expect(summary.usage).toEqual({
      input_tokens: 300,
      output_tokens: 30,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 5,
    });
    expect(summary.total_cost_usd).toBeCloseTo(
      (100 * 15 + 10 * 75 + 200 * 1 + 20 * 5 + 5 * 0.1) / MILLION,
      12,
    );
    expect(summary.modelUsage).toEqual(tracker.modelUsage);
  });

  it('prices each response on its own, so one long Haiku 5.5 prompt does not raise the others', () => {
    const tracker = new UsageTracker();
    tracker.add('claude-haiku-5-5', usage({ input_tokens: 90_000 }));
    tracker.add('claude-haiku-5-5', usage({ input_tokens: 120_000 }));

    expect(tracker.totalCostUSD).toBeCloseTo((90_000 * 0.1 + 120_000 * 0.5) / MILLION, 12);
  });

  it('lists the models it had to price with the fallback', () => {
    const tracker = new UsageTracker();
    tracker.add('claude-sonnet-4-6', usage({ input_tokens: 1 }));
    tracker.add('claude-next-1', usage({ input_tokens: 1 }));

    expect(tracker.unknownModels).toEqual(['claude-next-1']);
  });

  it('reports zero totals before any usage is added', () => {
    const tracker = new UsageTracker();

    expect(tracker.summary()).toEqual({
      usage: {
        input_tokens: 0,
        output_tokens: 0,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
      modelUsage: {},
      total_cost_usd: 0,
    });
  });

  it('returns copies, so callers cannot change the running totals', () => {
    const tracker = new UsageTracker();
    tracker.add('claude-sonnet-4-6', usage({ input_tokens: 10 }));

    const snapshot = tracker.modelUsage;
    const entry = snapshot['claude-sonnet-4-6'];
    if (entry !== undefined) entry.inputTokens = 999;

    expect(tracker.modelUsage['claude-sonnet-4-6']?.inputTokens).toBe(10);
  });
});
