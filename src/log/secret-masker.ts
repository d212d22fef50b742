/**
 * Masks known secret values (docs/DECISIONS.md #16) in everything the run writes: stdout, the tool log,
 * the transcript. A value is masked raw, URL-encoded, reversed, hex- and base64-encoded — base64 at each
 * of the three byte alignments, because a token usually sits inside a longer encoded string
 * (`git`'s `AUTHORIZATION: basic base64("x-access-token:<token>")` header, for one) — and from its
 * first MIN_PREFIX_LENGTH characters on, so that a secret a length limit cuts short is masked too.
 * The push scan (push-scan.ts) looks for the same forms, with the same finder, in what would be
 * pushed.
 */

/** What a secret becomes. */
export const MASK = '***';

/**
 * Shorter values are not masked: a 3-letter "secret" would turn ordinary words into `***`
 * everywhere. Every real key and token (Anthropic, GitHub, Actions) is far longer.
 */
export const MIN_SECRET_LENGTH = 8;

export interface SecretMasker {
  /** The values it masks, as given: what the push scan looks for too (push-scan.ts). */
  readonly secrets: readonly string[];
  /** The text with every known secret (in every encoding we know) replaced by `***`. */
  mask(text: string): string;
  /**
   * The JSON form of `value` with every string — keys included — masked. Masking strings
   * before serializing keeps the JSON valid whatever a secret contains.
   */
  maskJson<T extends object>(value: T): T;
}

/**
 * A secret cut short (a title or a body truncated to GitHub's limits, a line cut to a column) still
 * gives most of itself away: from this many characters of a form on, a prefix of it is masked too.
 */
export const MIN_PREFIX_LENGTH = 16;

export function createSecretMasker(secrets: readonly string[]): SecretMasker {
  if (!secrets.some((secret) => secret.trim().length >= MIN_SECRET_LENGTH))
    return { secrets, mask: (text) => text, maskJson: (value) => value };
  const find = createSecretFinder(secrets);
  const mask = (text: string) => {
    if (text.length === 0) return text;
    const matches = find(text);
    if (matches.length === 0) return text;
    let masked = '';
    let from = 0;
    for (const match of matches) {
      masked += text.slice(from, match.index) + MASK;
      from = match.index + match.length;
    }
    return masked + text.slice(from);
  };

  const replacer = (_key: string, value: unknown): unknown => {
    if (typeof value === 'string') return mask(value);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
    // Called with each object before its members: rename keys here, values come next.
    return Object.fromEntries(Object.entries(value).map(([key, member]) => [mask(key), member]));
  };
  return {
    secrets,
    mask,
    maskJson: <T extends object>(value: T) => JSON.parse(JSON.stringify(value, replacer)) as T,
  };
}

/** Where a form of a secret occurs in a text. */
export interface SecretMatch {
  index: number;
  length: number;
  encoding: SecretEncoding;
  /** False for a prefix of at least MIN_PREFIX_LENGTH characters that the text cuts short. */
  whole: boolean;
}

/** The occurrences of every form of every secret in a text, left to right, none overlapping. */
export function createSecretFinder(secrets: readonly string[]): (text: string) => SecretMatch[] {
  // Each form is found by its first MIN_PREFIX_LENGTH characters (all of a shorter one), then
  // followed as far as the text goes along with it.
  const byKey = new Map<string, Array<{ text: string; encoding: SecretEncoding }>>();
  const seen = new Set<string>();
  for (const secret of secrets) {
    const value = secret.trim();
    if (value.length < MIN_SECRET_LENGTH) continue;
    for (const form of secretEncodings(value)) {
      if (seen.has(form.text)) continue;
      seen.add(form.text);
      const key = form.text.slice(0, MIN_PREFIX_LENGTH);
      byKey.set(key, [...(byKey.get(key) ?? []), form]);
    }
  }
  if (byKey.size === 0) return () => [];
  // Longest first, so a secret that contains another is masked whole.
  const alternatives = [...byKey.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp);
  const regex = new RegExp(alternatives.join('|'), 'g');
  return (text) => {
    const matches: SecretMatch[] = [];
    regex.lastIndex = 0;
    for (let found = regex.exec(text); found; found = regex.exec(text)) {
      const index = found.index;
      let best: SecretMatch | undefined;
      for (const form of byKey.get(found[0]) ?? []) {
        let length = found[0].length;
        while (length < form.text.length && text[index + length] === form.text[length]) length++;
        const whole = length === form.text.length;
        if (!best || length > best.length || (whole && !best.whole))
          best = { index, length, encoding: form.encoding, whole };
      }
      if (!best) continue;
      matches.push(best);
      regex.lastIndex = index + best.length;
    }
    return matches;
  };
}

export type SecretEncoding = 'raw' | 'URL-encoded' | 'reversed' | 'base64' | 'hex';

/**
 * The forms of one secret value that still give it away, each at least MIN_SECRET_LENGTH long
 * (a shorter base64 core would match ordinary text). Reversed: the cheapest way around a filter
 * that knows only the value (`rev`, `[::-1]`).
 */
export function secretEncodings(value: string): Array<{ encoding: SecretEncoding; text: string }> {
  const bytes = Buffer.from(value, 'utf8');
  const forms: Array<{ encoding: SecretEncoding; text: string }> = [
    { encoding: 'raw', text: value },
    { encoding: 'URL-encoded', text: encodeURIComponent(value) },
    { encoding: 'reversed', text: [...value].reverse().join('') },
    // As `xxd -p` and `od` print bytes; lower case, the form every such tool uses.
    { encoding: 'hex', text: bytes.toString('hex') },
    ...[0, 1, 2].map((offset) => ({
      encoding: 'base64' as const,
      text: base64Core(bytes, offset),
    })),
  ];
  return forms.filter((form) => form.text.length >= MIN_SECRET_LENGTH);
}

/**
 * The part of base64(<offset bytes> + value + <anything>) that depends on the value alone:
 * skip the characters that mix in the preceding bytes, stop before those that mix in the
 * following ones (or padding).
 */
function base64Core(bytes: Buffer, offset: number): string {
  const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
  const first = Math.ceil((offset * 8) / 6);
  const end = Math.floor(((offset + bytes.length) * 8) / 6);
  return encoded.slice(first, end);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
