import { afterEach, describe, expect, it } from 'vitest';
import firstPageJs from '../../public/firstpage.js?raw';
import { dropFirstPage, firstPageNow, firstPageOnItsWay } from './firstpage';
import { PAGE_SIZE } from '../stores/paged';
import type { ResultPage } from '../bridge';

const slot = globalThis as { __spillscopeFirstPage?: unknown };
const answer = { rows: [], total: 7 } as unknown as ResultPage;

function prefetch(value: ResultPage | null) {
  slot.__spillscopeFirstPage = { offset: 0, limit: 200, value, error: null, promise: Promise.resolve(answer) };
}

describe('the prefetched first page', () => {
  afterEach(() => dropFirstPage());

  it('is taken once, at once when Go has answered', () => {
    prefetch(answer);
    expect(firstPageNow(0, 50)).toBeUndefined(); // another page: not this one
    expect(firstPageNow(0, 200)).toBe(answer);
    expect(firstPageNow(0, 200)).toBeUndefined();
    expect(firstPageOnItsWay(0, 200)).toBeUndefined();
  });

  it('is a promise while Go works on it, and not taken at once', async () => {
    prefetch(null);
    expect(firstPageNow(0, 200)).toBeUndefined();
    const p = firstPageOnItsWay(0, 200);
    expect(p).toBeDefined();
    expect(await p).toBe(answer);
    expect(firstPageOnItsWay(0, 200)).toBeUndefined();
  });

  it('is gone once dropped (after the first paint it may be stale)', () => {
    prefetch(answer);
    dropFirstPage();
    expect(firstPageNow(0, 200)).toBeUndefined();
  });

});

/** runFirstPageJs runs public/firstpage.js over a page whose island holds text (none when null), with Largest answering largest. */
function runFirstPageJs(text: string | null, largest?: (q: { offset: number; limit: number }) => Promise<ResultPage>) {
  const g = globalThis as Record<string, unknown>;
  const saved = { document: g.document, window: g.window };
  let island: { textContent: string; remove: () => void } | null = text === null ? null : { textContent: text, remove: () => (island = null) };
  g.document = { getElementById: (id: string) => (id === 'spillscope-first-page' ? island : null) };
  g.window = largest ? { go: { app: { Sessions: { Largest: largest } } } } : {};
  try {
    new Function(firstPageJs)();
    expect(island, 'the island is removed once read').toBeNull();
    return (g.window as { __spillscopeFirstPage?: unknown }).__spillscopeFirstPage;
  } finally {
    g.document = saved.document;
    g.window = saved.window;
  }
}

describe('public/firstpage.js', () => {
  afterEach(() => dropFirstPage());

  it("takes Go's answer from the page's island at once", () => {
    const got = runFirstPageJs(JSON.stringify({ offset: 0, limit: PAGE_SIZE, value: answer }), () => {
      throw new Error('asked Go again');
    });
    slot.__spillscopeFirstPage = got;
    expect(JSON.stringify(firstPageNow(0, PAGE_SIZE))).toBe(JSON.stringify(answer));
  });

  it('asks Go for the page the island names when it holds no answer', async () => {
    const asked: unknown[] = [];
    const got = runFirstPageJs(JSON.stringify({ offset: 0, limit: PAGE_SIZE }), async (q) => {
      asked.push(q);
      return answer;
    });
    expect(asked).toEqual([{ offset: 0, limit: PAGE_SIZE }]);
    slot.__spillscopeFirstPage = got;
    expect(firstPageNow(0, PAGE_SIZE)).toBeUndefined();
    expect(await firstPageOnItsWay(0, PAGE_SIZE)).toBe(answer);
  });

  it('does nothing without an island, or with one it cannot read', () => {
    for (const text of [null, '', 'not json', '{"offset":"0","limit":200}', 'null']) {
      expect(runFirstPageJs(text, async () => answer)).toBeUndefined();
    }
  });
});
