import { describe, expect, it } from 'vitest';
import { settingsEnvRefusal, withSettingsEnv } from '../../src/util/settings-env.js';

describe('settingsEnvRefusal', () => {
  it('lets ordinary configuration through', () => {
    for (const name of ['SAFETY_LEVEL', 'CI', 'NODE_ENV', 'BASH_MAX_TIMEOUT_MS', 'LANG', 'TZ'])
      expect(settingsEnvRefusal(name)).toBeUndefined();
  });

  it('compares names upper-cased, as programs honour both spellings of a proxy', () => {
    expect(settingsEnvRefusal('https_proxy')).toBe(settingsEnvRefusal('HTTPS_PROXY'));
    expect(settingsEnvRefusal('https_proxy')).toBeDefined();
  });
});

describe('withSettingsEnv', () => {
  it('lays the settings over the base, a refused name never, whoever built the map', () => {
    const base = { PATH: '/usr/bin', LEVEL: 'base' };
    const env = withSettingsEnv(base, { LEVEL: 'strict', PATH: './planted', LD_PRELOAD: 'x.so' });
    expect(env).toEqual({ PATH: '/usr/bin', LEVEL: 'strict' });
    expect(base).toEqual({ PATH: '/usr/bin', LEVEL: 'base' });
  });
});
