/**
 * Reading a model provider's configuration: where each value came from (so that a message names
 * the variable or input to change), and the checks every provider shares — switches, URLs and
 * `ANTHROPIC_CUSTOM_HEADERS`. Pure: values in, values or a ProviderConfigError out.
 */

/** One value and what messages call its source: `AWS_REGION`, `the use-bedrock input`. */
export interface Setting {
  value: string;
  from: string;
}

/** A variable's value (trimmed, never empty) and its source; undefined when unset or empty. */
export type SettingLookup = (name: string) => Setting | undefined;

/** Bad provider configuration, found before any request: one line per problem. */
export class ProviderConfigError extends Error {
  override readonly name = 'ProviderConfigError';
}

export type Env = Readonly<Record<string, string | undefined>>;

/** The environment's variables, named as themselves. */
export function envLookup(env: Env): SettingLookup {
  return (name) => {
    const value = env[name]?.trim() ?? '';
    return value === '' ? undefined : { value, from: name };
  };
}

/** The first lookup that has the name wins. */
export function layeredLookup(...lookups: readonly SettingLookup[]): SettingLookup {
  return (name) => {
    for (const lookup of lookups) {
      const found = lookup(name);
      if (found !== undefined) return found;
    }
    return undefined;
  };
}

/** A map of values (a settings file's `env`, the action's inputs), each named by `from`. */
export function mapLookup(
  values: Readonly<Record<string, string | undefined>>,
  from: (name: string) => string,
): SettingLookup {
  return (name) => {
    if (!Object.hasOwn(values, name)) return undefined;
    const value = values[name]?.trim() ?? '';
    return value === '' ? undefined : { value, from: from(name) };
  };
}

const TRUE_WORDS = ['1', 'true', 'yes', 'on'];
const FALSE_WORDS = ['0', 'false', 'no', 'off'];

/** A switch such as CLAUDE_CODE_USE_BEDROCK, read as Claude Code reads it (any case). */
export function readSwitch(lookup: SettingLookup, name: string): boolean {
  const setting = lookup(name);
  if (setting === undefined) return false;
  const word = setting.value.toLowerCase();
  if (TRUE_WORDS.includes(word)) return true;
  if (FALSE_WORDS.includes(word)) return false;
  throw new ProviderConfigError(
    `${setting.from}: expected ${TRUE_WORDS.join(', ')} (or ${FALSE_WORDS.join(', ')}), got ${JSON.stringify(setting.value)}`,
  );
}

/** An http(s) URL, checked before the run: a typo would otherwise surface far from its cause. */
export function readUrl(lookup: SettingLookup, name: string, example: string): string | undefined {
  const setting = lookup(name);
  if (setting === undefined) return undefined;
  const url = URL.parse(setting.value);
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) {
    throw new ProviderConfigError(
      `${setting.from}: expected an http(s) URL such as ${example}, got ${JSON.stringify(setting.value)}`,
    );
  }
  return setting.value;
}

/** A value that must match `pattern`, shown in the message with an example of the form. */
export function readMatching(
  lookup: SettingLookup,
  name: string,
  pattern: RegExp,
  form: string,
): Setting | undefined {
  const setting = lookup(name);
  if (setting === undefined || pattern.test(setting.value)) return setting;
  throw new ProviderConfigError(
    `${setting.from}: expected ${form}, got ${JSON.stringify(setting.value)}`,
  );
}

/** RFC 9110 token characters: what a header name may be made of. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * `ANTHROPIC_CUSTOM_HEADERS` as Claude Code reads it: one `Name: Value` per line, sent with every
 * model request. Blank lines are skipped; any other line without a valid name before a colon is
 * an error. The message names the line, never its text: a header may carry a gateway's key.
 */
export function readCustomHeaders(lookup: SettingLookup): Record<string, string> {
  const setting = lookup('ANTHROPIC_CUSTOM_HEADERS');
  if (setting === undefined) return {};
  const headers: Record<string, string> = {};
  for (const [index, raw] of setting.value.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '') continue;
    const colon = line.indexOf(':');
    const name = colon < 0 ? '' : line.slice(0, colon).trim();
    const value = colon < 0 ? '' : line.slice(colon + 1).trim();
    if (!HEADER_NAME.test(name) || value.includes('\0')) {
      const found =
        colon < 0
          ? `a line of ${line.length} characters without ":"`
          : `${JSON.stringify(name)} before the ":"`;
      throw new ProviderConfigError(
        `${setting.from}, line ${index + 1}: expected "Name: Value" (a header name of letters, digits and -, a colon, the value), got ${found}`,
      );
    }
    headers[name] = value;
  }
  return headers;
}
