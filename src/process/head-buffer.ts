/** Keeps the first `limit` characters of a stream and counts what it drops. */
export class HeadBuffer {
  private head = '';
  private droppedChars = 0;
  private droppedNewlines = 0;
  private droppedEndsWithNewline = false;

  constructor(private readonly limit: number) {}

  append(chunk: string) {
    const room = this.limit - this.head.length;
    const kept = room > 0 ? chunk.slice(0, room) : '';
    this.head += kept;
    const dropped = chunk.slice(kept.length);
    if (dropped === '') return;
    this.droppedChars += dropped.length;
    for (
      let index = dropped.indexOf('\n');
      index !== -1;
      index = dropped.indexOf('\n', index + 1)
    ) {
      this.droppedNewlines++;
    }
    this.droppedEndsWithNewline = dropped.endsWith('\n');
  }

  get text(): string {
    return this.head;
  }

  /** Characters that did not fit. */
  get truncatedChars(): number {
    return this.droppedChars;
  }

  /** Lines (or the rest of a line) that did not fit. */
  get truncatedLines(): number {
    if (this.droppedChars === 0) return 0;
    return this.droppedNewlines + (this.droppedEndsWithNewline ? 0 : 1);
  }
}
