import { describe, expect, it, vi } from 'vitest';
import type { TextPage } from '../bridge';
import { chunks, cutPage, PageCache, readSpan } from './pages';
import { maskSegments, PLACEHOLDER } from './masks';

const enc = new TextEncoder();
const bytes = (s: string) => enc.encode(s).length;

/** page makes a masked page of real text from start, masking the given values as Go does. */
function page(real: string, start: number, size: number, secrets: string[] = []): TextPage {
  let text = '';
  const masks = [];
  let at = 0;
  for (let i = 0; i < real.length; ) {
    const hit = secrets.find((v) => real.startsWith(v, i));
    if (hit) {
      masks.push({ start: bytes(real.slice(0, i)), end: bytes(real.slice(0, i)) + bytes(hit), at, kind: 'parameter', parameter: 'token' });
      text += PLACEHOLDER;
      at += PLACEHOLDER.length;
      i += hit.length;
    } else {
      const c = String.fromCodePoint(real.codePointAt(i)!);
      text += c;
      at += bytes(c);
      i += c.length;
    }
  }
  return { start, end: start + bytes(real), size, text, masks } as TextPage;
}

describe('cutPage', () => {
  const real = 'head 世界 token=SECRETVAL tail 🙂 end';
  const p = page(real, 100, 1000, ['SECRETVAL']);
  const off = (s: string) => 100 + bytes(real.slice(0, real.indexOf(s)));

  it('gives the whole page for a span covering it', () => {
    expect(cutPage(p, 0, 5000)).toEqual({ text: p.text, masks: p.masks });
  });

  it('cuts on real byte offsets through multi-byte text', () => {
    expect(cutPage(p, off('世'), off(' token')).text).toBe('世界');
    expect(cutPage(p, off('🙂'), off(' end')).text).toBe('🙂');
  });

  it('shows the whole placeholder where a cut goes through a masked value, on either side', () => {
    const mid = off('SECRETVAL') + 3;
    const head = cutPage(p, 100, mid);
    expect(head.text).toBe('head 世界 token=' + PLACEHOLDER);
    expect(head.masks).toHaveLength(1);
    // The mask points at the placeholder, as the panes mark it.
    expect(maskSegments(head.text, head.masks).filter((x) => x.masked)).toHaveLength(1);
    const tail = cutPage(p, mid, p.end);
    expect(tail.text).toBe(PLACEHOLDER + ' tail 🙂 end');
    expect(tail.masks.map((m) => m.at)).toEqual([0]);
  });

  it('moves the placeholders of a later cut', () => {
    const c = cutPage(p, off('token'), p.end);
    expect(c.text.startsWith('token=' + PLACEHOLDER)).toBe(true);
    expect(c.masks[0].at).toBe(bytes('token='));
  });

  it('gives nothing for a span outside the page', () => {
    expect(cutPage(p, 0, 100)).toEqual({ text: '', masks: [] });
    expect(cutPage(p, p.end, p.end + 5)).toEqual({ text: '', masks: [] });
  });
});

describe('readSpan and PageCache', () => {
  const text = 'abcdefghij'.repeat(5); // five pages of ten bytes
  const pageAt = (o: number) => page(text.slice(o, o + 10), o, text.length);

  it('joins what the pages show of a span, reading on to its end or the limit', async () => {
    const next = vi.fn((o: number) => Promise.resolve(pageAt(o)));
    expect(await readSpan(pageAt(10), 13, 37, next, 1000)).toBe(text.slice(13, 37));
    expect(next.mock.calls.map((c) => c[0])).toEqual([20, 30]);
    expect(await readSpan(pageAt(0), 0, 50, next, 15)).toBe(text.slice(0, 20));
  });

  it('reads a page once, shares a read in flight and reads again after a failure', async () => {
    const cache = new PageCache();
    let n = 0;
    const read = vi.fn(() => (++n === 1 ? Promise.reject(new Error('gone')) : Promise.resolve(pageAt(20))));
    await expect(cache.get('b0', 20, read)).rejects.toThrow('gone');
    const [a, b] = await Promise.all([cache.get('b0', 20, read), cache.get('b0', 20, read)]);
    expect(a).toBe(b);
    expect(read).toHaveBeenCalledTimes(2);
    cache.put('b1', pageAt(0));
    expect(await cache.get('b1', 0, read)).toEqual(pageAt(0));
    expect(read).toHaveBeenCalledTimes(2);
  });
});

describe('chunks', () => {
  it('cuts whole lines of about the size asked, keeping the text and each placeholder', () => {
    const real = Array.from({ length: 40 }, (_, i) => `line ${i} 世界 token=SEC${i}RET\n`).join('');
    const p = page(real, 0, 10000, Array.from({ length: 40 }, (_, i) => `SEC${i}RET`));
    const cs = chunks({ text: p.text, masks: p.masks }, 100);
    expect(cs.map((c) => c.text).join('')).toBe(p.text);
    expect(cs.length).toBeGreaterThan(5);
    for (const c of cs.slice(0, -1)) expect(c.text.endsWith('\n')).toBe(true);
    expect(cs.reduce((n, c) => n + c.masks.length, 0)).toBe(40);
    for (const c of cs) expect(maskSegments(c.text, c.masks).filter((x) => x.masked)).toHaveLength(c.masks.length);
    expect(cs.reduce((n, c) => n + c.lines, 0)).toBe(40);
    // Each run starts where the one before it ends, in bytes.
    cs.forEach((c, i) => i > 0 && expect(c.at).toBe(cs[i - 1].at + bytes(cs[i - 1].text)));
  });

  it('keeps a line longer than the size whole, and an empty text gives no run', () => {
    const long = 'x'.repeat(500) + '\nshort';
    expect(chunks({ text: long, masks: [] }, 100).map((c) => c.text)).toEqual(['x'.repeat(500) + '\n', 'short']);
    expect(chunks({ text: '', masks: [] })).toEqual([]);
  });
});
