// Long texts arrive a page at a time (Go's TextPage): a view names the real
// bytes it shows and carries the page holding their start; the pane reads the
// following pages as they scroll into sight. Pages are cut by the text alone,
// so every view of a result shares them: a re-run's kept head is pages the
// recorded pane already read, cut here at the span's ends.
import type { MaskSpan, TextPage } from '../bridge';
import { byteToIndex, maskedOffset, PLACEHOLDER } from './masks';

/** Shown is part of a page as a pane shows it: masked text and where its placeholders stand. */
export interface Shown {
  text: string;
  masks: MaskSpan[];
}

/**
 * cutPage is the part of page p that shows the real bytes [a, b). A masked
 * value the cut goes through shows its whole placeholder, as Go masks a cut
 * piece; masks are moved to the part.
 */
export function cutPage(p: TextPage, a: number, b: number): Shown {
  const masks = p.masks ?? [];
  const from = Math.max(a, p.start) - p.start;
  const to = Math.min(b, p.end) - p.start;
  if (to <= from) return { text: '', masks: [] };
  if (from === 0 && to === p.end - p.start) return { text: p.text, masks };
  const lo = maskedOffset(masks, from);
  let hi = maskedOffset(masks, to);
  for (const m of masks) if (m.start < to && to < m.end) hi = m.at + PLACEHOLDER.length;
  const [i, j] = byteToIndex(p.text, [lo, hi]);
  const kept = masks
    .filter((m) => m.at >= lo && m.at + PLACEHOLDER.length <= hi)
    .map((m) => ({ ...m, start: Math.max(m.start - from, 0), end: Math.min(m.end, to) - from, at: m.at - lo }));
  return { text: p.text.slice(i, j), masks: kept };
}

/** Chunk is one run of whole lines of shown text; at is where it starts in the text it was cut from, in UTF-8 bytes. */
export interface Chunk extends Shown {
  at: number;
  lines: number;
}

/**
 * chunks cuts shown text into runs of whole lines of about size characters
 * (a longer line stays whole), each with its masks: a pane lays out each run
 * on its own, so a change at the end of a text redoes the last run only, and
 * runs out of sight are skipped.
 */
export function chunks(s: Shown, size = 2048): Chunk[] {
  const out: Chunk[] = [];
  const masks = s.masks ?? [];
  let from = 0;
  let bytes = 0;
  let k = 0;
  while (from < s.text.length) {
    let to = s.text.length;
    if (to - from > size) {
      const nl = s.text.indexOf('\n', from + size);
      if (nl >= 0 && nl + 1 < s.text.length) to = nl + 1;
    }
    const text = s.text.slice(from, to);
    const n = utf8Bytes(text);
    const mine: MaskSpan[] = [];
    while (k < masks.length && masks[k].at < bytes + n) {
      if (masks[k].at >= bytes) mine.push({ ...masks[k], at: masks[k].at - bytes });
      k++;
    }
    let lines = 1;
    for (let i = text.indexOf('\n'); i >= 0 && i < text.length - 1; i = text.indexOf('\n', i + 1)) lines++;
    out.push({ text, masks: mine, at: bytes, lines });
    bytes += n;
    from = to;
  }
  return out;
}

/** utf8Bytes counts the UTF-8 bytes of s without encoding it. */
function utf8Bytes(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** NextPage reads the page that starts at offset (where the page before it ends). */
export type NextPage = (offset: number) => Promise<TextPage>;

/**
 * readSpan joins what the pages show of [a, b), from first (the page holding
 * a), reading on while fewer than limit real bytes are joined: what a copy
 * of a paged view holds.
 */
export async function readSpan(first: TextPage, a: number, b: number, next: NextPage, limit: number): Promise<string> {
  let out = '';
  let p = first;
  for (;;) {
    out += cutPage(p, a, b).text;
    if (p.end >= b || p.end >= p.size || p.end - a >= limit) return out;
    p = await next(p.end);
  }
}

/**
 * PageCache keeps the pages read of one result's texts, by text and start,
 * so a pane scrolling back, another view of the same text and a re-run's
 * kept pieces read each page once. A read in flight is shared.
 */
export class PageCache {
  private pages = new Map<string, Promise<TextPage>>();
  constructor(private readonly max = 2048) {}

  /** put keeps a page Go sent with a view. */
  put(text: string, p: TextPage): TextPage {
    const key = `${text}@${p.start}`;
    if (!this.pages.has(key)) this.remember(key, Promise.resolve(p));
    return p;
  }

  /** get returns the page of text starting at offset, reading it with read unless kept. */
  get(text: string, offset: number, read: () => Promise<TextPage>): Promise<TextPage> {
    const key = `${text}@${offset}`;
    let p = this.pages.get(key);
    if (!p) {
      p = read();
      this.remember(key, p);
      p.catch(() => this.pages.delete(key));
    }
    return p;
  }

  clear() {
    this.pages.clear();
  }

  private remember(key: string, p: Promise<TextPage>) {
    this.pages.set(key, p);
    if (this.pages.size > this.max) this.pages.delete(this.pages.keys().next().value as string);
  }
}

/** TextPages reads the open result's texts by page: a block of its content, or the complete file a decision writes (by its key). */
export interface TextPages {
  block(block: number, offset: number): Promise<TextPage>;
  file(key: string, offset: number): Promise<TextPage>;
}
