/**
 * Masks known secret values (DECISIONS #16) in everything the run writes: stdout, the tool log,
 * the transcript. A value is masked raw, URL-encoded, reversed and base64-encoded — base64 at each
 * of the three byte alignments, because a token usually sits inside a longer encoded string
 * (`git`'s `AUTHORIZATION: basic base64("x-access-token:<token>")` header, for one). The push scan
 * (push-scan.ts) looks for the same encodings in what would be pushed.
 */

/** What a secret becomes. */
export const MASK = '***';

/**
 * Shorter values are not masked: a 3-letter "secret" would turn ordinary words into `***`
 * everywhere. Every real key and token (Anthropic, GitHub, Actions) is far longer.
 */
export const MIN_SECRET_LENGTH = 8;

export interface SecretMasker {
  /** The text with every known secret (in every encoding we know) replaced by `***`. */
  mask(text: string): string;
  /**
   * The JSON form of `value` with every string — keys included — masked. Masking strings
   * before serializing keeps the JSON valid whatever a secret contains.
   */
  maskJson<T extends object>(value: T): T;
}

export function createSecretMasker(secrets: readonly string[]): SecretMasker {
  const patterns = new Set<string>();
  for (const secret of secrets) {
    const value = secret.trim();
    if (value.length < MIN_SECRET_LENGTH) continue;
    for (const { text } of secretEncodings(value)) patterns.add(text);
  }
  if (patterns.size === 0) return { mask: (text) => text, maskJson: (value) => value };

  // Longest first, so a secret that contains another is masked whole.
  const alternatives = [...patterns].sort((a, b) => b.length - a.length).map(escapeRegExp);
  const regex = new RegExp(alternatives.join('|'), 'g');
  const mask = (text: string) => (text.length === 0 ? text : text.replace(regex, MASK));

  const replacer = (_key: string, value: unknown): unknown => {
    if (typeof value === 'string') return mask(value);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
    // Called with each object before its members: rename keys here, values come next.
    return Object.fromEntries(Object.entries(value).map(([key, member]) => [mask(key), member]));
  };
  return {
    mask,
    maskJson: <T extends object>(value: T) => JSON.parse(JSON.stringify(value, replacer)) as T,
  };
}

export type SecretEncoding = 'raw' | 'URL-encoded' | 'reversed' | 'base64';

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
