import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { get } from 'svelte/store';
import { createSearchStore } from './search';
import { deferred, fakeBridge, page, resultRow } from '../test/fakeBridge';
import type { ResultPage, SearchPageQuery } from '../bridge';

beforeEach(() => vi.spyOn(console, 'error').mockImplementation(() => {}));
afterEach(() => vi.restoreAllMocks());

describe('search store', () => {
  it('sends the trimmed query, a page at a time, and counts every match', async () => {
    const all = Array.from({ length: 450 }, (_, i) => resultRow({ id: i + 1 }));
    const searchResults = vi.fn((q: SearchPageQuery) => Promise.resolve(page(all, q.offset, q.limit) as ResultPage));
    const s = createSearchStore(fakeBridge({ searchResults }), { pageSize: 200 });
    await s.search('  panic recovered ');
    expect(searchResults).toHaveBeenCalledWith({ query: 'panic recovered', order: '', offset: 0, limit: 200 });
    expect(get(s)).toEqual({ query: 'panic recovered', order: '', snippets: {} });
    expect(get(s.hits).total).toBe(450);
    s.hits.view(400, 449);
    await vi.waitFor(() => expect(s.hits.row(449)?.id).toBe(450));
  });

  it('clears on an empty query without asking Go', async () => {
    const searchResults = vi.fn(() => Promise.resolve(page([], 0, 1) as unknown as ResultPage));
    const s = createSearchStore(fakeBridge({ searchResults }));
    await s.search('   ');
    expect(searchResults).not.toHaveBeenCalled();
    expect(get(s.hits).total).toBe(-1);
  });

  it('never lets an older answer replace a newer one', async () => {
    const old = deferred<ResultPage>();
    const searchResults = vi.fn((q: SearchPageQuery) => (q.query === 'old' ? old.promise : Promise.resolve(page([resultRow({ id: 9 })], 0, 10) as ResultPage)));
    const s = createSearchStore(fakeBridge({ searchResults }));
    const first = s.search('old');
    await s.search('new');
    old.resolve(page([resultRow({ id: 1 }), resultRow({ id: 2 })], 0, 10) as ResultPage);
    await first;
    expect(get(s).query).toBe('new');
    expect(s.hits.rows().map((r) => r.id)).toEqual([9]);
  });

  it('keeps the error for the screen, coded', async () => {
    const s = createSearchStore(fakeBridge({ searchResults: () => Promise.reject({ code: 'search-too-long', params: { bytes: 600, max: 500 }, detail: '' }) }));
    await s.search('x');
    expect(get(s.hits).error).toMatchObject({ code: 'search-too-long', params: { bytes: 600, max: 500 } });
  });

  it('re-runs the last search in a new order and keeps the order for the next search', async () => {
    const searchResults = vi.fn((q: SearchPageQuery) => Promise.resolve(page([resultRow({ id: q.order === 'tokens' ? 2 : 1 })], 0, 10) as ResultPage));
    const s = createSearchStore(fakeBridge({ searchResults }));
    await s.search('panic');
    await s.setOrder('tokens');
    expect(searchResults).toHaveBeenLastCalledWith(expect.objectContaining({ query: 'panic', order: 'tokens' }));
    expect(s.hits.row(0)?.id).toBe(2);
    await s.search('oops');
    expect(searchResults).toHaveBeenLastCalledWith(expect.objectContaining({ query: 'oops', order: 'tokens' }));
  });

  it('changing the order with no query asks nothing', async () => {
    const searchResults = vi.fn(() => Promise.resolve(page([], 0, 1) as unknown as ResultPage));
    const s = createSearchStore(fakeBridge({ searchResults }));
    await s.setOrder('source');
    expect(searchResults).not.toHaveBeenCalled();
    expect(get(s)).toEqual({ query: '', order: 'source', snippets: {} });
  });
  it('fills in masked snippets for each page of hits as it arrives, and drops a stale answer', async () => {
    const snippets = vi.fn((q: string, ids: number[]) =>
      Promise.resolve(ids.map((id) => ({ id, text: `…${q} token=[redacted]…`, masks: [{ start: 0, end: 0, at: 0, kind: 'parameter', parameter: 'token' }] }))),
    );
    const searchResults = vi.fn((q: SearchPageQuery) => Promise.resolve(page([resultRow({ id: 7 }), resultRow({ id: 8 })], q.offset, q.limit) as ResultPage));
    const s = createSearchStore(fakeBridge({ searchResults, snippets: snippets as never }));
    await s.search('panic');
    await vi.waitFor(() => expect(get(s).snippets[8]?.text).toBe('…panic token=[redacted]…'));
    expect(snippets).toHaveBeenCalledWith('panic', [7, 8]);
    let release: (v: never[]) => void = () => {};
    snippets.mockImplementationOnce(() => new Promise<never[]>((r) => (release = r)) as never);
    await s.search('old');
    await s.search('new');
    release([]);
    await vi.waitFor(() => expect(get(s).snippets[7]?.text).toBe('…new token=[redacted]…'));
    expect(Object.values(get(s).snippets).every((sn) => sn.text.includes('new'))).toBe(true);
  });
});
