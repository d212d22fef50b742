/**
 * Pages fetched in the last 15 minutes, by URL (Claude Code keeps them as long), so a model that
 * asks a second question about the same page does not download it again. Only successful
 * fetches are kept; the oldest entries go first once the count or the total size is reached.
 */

export const PAGE_CACHE_TTL_MS = 15 * 60 * 1000;
const MAX_ENTRIES = 64;
const MAX_TOTAL_CHARS = 32 * 1024 * 1024;

export interface CachedPage {
  /** Where the content came from, after same-origin redirects. */
  url: string;
  code: number;
  codeText: string;
  bytes: number;
  /** The page as the model may see it (Markdown for HTML). */
  text: string;
  truncated: boolean;
}

interface Entry {
  page: CachedPage;
  storedAt: number;
}

export class PageCache {
  private readonly entries = new Map<string, Entry>();
  private totalChars = 0;

  constructor(private readonly now: () => number = Date.now) {}

  get(url: string): CachedPage | undefined {
    const entry = this.entries.get(url);
    if (entry === undefined) return undefined;
    if (this.now() - entry.storedAt >= PAGE_CACHE_TTL_MS) {
      this.delete(url);
      return undefined;
    }
    return entry.page;
  }

  set(url: string, page: CachedPage): void {
    this.delete(url);
    if (page.text.length > MAX_TOTAL_CHARS) return;
    this.entries.set(url, { page, storedAt: this.now() });
    this.totalChars += page.text.length;
    // Map iteration is insertion order: the first key is the oldest entry.
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= MAX_ENTRIES && this.totalChars <= MAX_TOTAL_CHARS) break;
      this.delete(oldest);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  private delete(url: string): void {
    const entry = this.entries.get(url);
    if (entry === undefined) return;
    this.totalChars -= entry.page.text.length;
    this.entries.delete(url);
  }
}
