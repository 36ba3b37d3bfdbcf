import { describe, expect, it, vi } from 'vitest';
import { get } from 'svelte/store';
import { createSearchStore } from './search';
import { fakeBridge, resultRow } from '../test/fakeBridge';

describe('search store', () => {
  it('sends the trimmed query and keeps the rows', async () => {
    const searchResults = vi.fn(() => Promise.resolve([resultRow()]));
    const s = createSearchStore(fakeBridge({ searchResults }));
    await s.search('  panic recovered ');
    expect(searchResults).toHaveBeenCalledWith('panic recovered', '');
    expect(get(s)).toEqual({ query: 'panic recovered', order: '', rows: { state: 'ready', value: [resultRow()] }, snippets: {} });
  });

  it('clears on an empty query without asking Go', async () => {
    const searchResults = vi.fn(() => Promise.resolve([]));
    const s = createSearchStore(fakeBridge({ searchResults }));
    await s.search('   ');
    expect(searchResults).not.toHaveBeenCalled();
    expect(get(s).rows.state).toBe('idle');
  });

  it('never lets an older answer replace a newer one', async () => {
    let releaseOld: (r: never[]) => void = () => {};
    const old = new Promise<never[]>((r) => (releaseOld = r));
    const searchResults = vi.fn((q: string) => (q === 'old' ? old : Promise.resolve([resultRow({ id: 9 })])));
    const s = createSearchStore(fakeBridge({ searchResults: searchResults as never }));
    const first = s.search('old');
    await s.search('new');
    releaseOld([]);
    await first;
    expect(get(s)).toEqual({ query: 'new', order: '', rows: { state: 'ready', value: [resultRow({ id: 9 })] }, snippets: {} });
  });

  it('fills in masked snippets for the rows after they arrive, and drops a stale answer', async () => {
    const snippets = vi.fn((q: string, ids: number[]) =>
      Promise.resolve(ids.map((id) => ({ id, text: `…${q} token=[redacted]…`, masks: [{ start: 0, end: 0, at: 0, kind: 'parameter', parameter: 'token' }] }))),
    );
    const searchResults = vi.fn(() => Promise.resolve([resultRow({ id: 7 }), resultRow({ id: 8 })]));
    const s = createSearchStore(fakeBridge({ searchResults, snippets: snippets as never }));
    await s.search('panic');
    await vi.waitFor(() => expect(get(s).snippets[8]?.text).toBe('…panic token=[redacted]…'));
    expect(snippets).toHaveBeenCalledWith('panic', [7, 8]);
    let release: (v: never[]) => void = () => {};
    snippets.mockImplementationOnce(() => new Promise<never[]>((r) => (release = r)) as never);
    const stale = s.search('old');
    await stale;
    await s.search('new');
    release([]);
    await vi.waitFor(() => expect(get(s).snippets[7]?.text).toBe('…new token=[redacted]…'));
  });

  it('keeps the error for the screen', async () => {
    const spy = vi.spyOn(console, 'error').mockImplementation(() => {});
    const s = createSearchStore(fakeBridge({ searchResults: () => Promise.reject(new Error('bad')) }));
    await s.search('x');
    expect(get(s).rows).toEqual({ state: 'error', error: { message: 'bad', notWired: false } });
    spy.mockRestore();
  });

  it('re-runs the last search in a new order and keeps the order for the next search', async () => {
    const searchResults = vi.fn((_q: string, order: string) => Promise.resolve([resultRow({ id: order === 'tokens' ? 2 : 1 })]));
    const s = createSearchStore(fakeBridge({ searchResults }));
    await s.search('panic');
    await s.setOrder('tokens');
    expect(searchResults).toHaveBeenLastCalledWith('panic', 'tokens');
    expect(get(s)).toEqual({ query: 'panic', order: 'tokens', rows: { state: 'ready', value: [resultRow({ id: 2 })] }, snippets: {} });
    await s.search('oops');
    expect(searchResults).toHaveBeenLastCalledWith('oops', 'tokens');
  });

  it('changing the order with no query asks nothing', async () => {
    const searchResults = vi.fn(() => Promise.resolve([]));
    const s = createSearchStore(fakeBridge({ searchResults }));
    await s.setOrder('source');
    expect(searchResults).not.toHaveBeenCalled();
    expect(get(s)).toEqual({ query: '', order: 'source', rows: { state: 'idle' }, snippets: {} });
  });
});
