import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { get } from 'svelte/store';
import { createPagedList, type Page } from './paged';
import { deferred } from '../test/fakeBridge';

beforeEach(() => vi.spyOn(console, 'error').mockImplementation(() => {}));
afterEach(() => vi.restoreAllMocks());

/** A list of n numbered rows, served page by page, each call recorded. */
function served(n: () => number, tag = '') {
  const calls: Array<[number, number]> = [];
  const fetch = vi.fn(async (offset: number, limit: number): Promise<Page<string> & { extra: number }> => {
    calls.push([offset, limit]);
    const rows = Array.from({ length: Math.max(0, Math.min(limit, n() - offset)) }, (_, i) => `${tag}${offset + i}`);
    return { rows, total: n(), extra: 7 };
  });
  return { fetch, calls };
}

describe('paged list', () => {
  it('asks only for the pages on screen (and the next one half a page early), and reaches the last row of a long list', async () => {
    const { fetch, calls } = served(() => 100_000);
    const l = createPagedList(fetch, { pageSize: 100 });
    await l.reset();
    expect(get(l)).toMatchObject({ total: 100_000, last: { total: 100_000, extra: 7 }, loading: false, error: null });
    expect(l.row(0)).toBe('0');
    expect(l.row(100)).toBeUndefined();
    l.view(99_950, 99_999);
    await vi.waitFor(() => expect(l.row(99_999)).toBe('99999'));
    expect(calls).toEqual([[0, 100], [99_900, 100]]);
    l.view(150, 240); // a jump: the pages on screen only
    await vi.waitFor(() => expect(l.row(240)).toBe('240'));
    expect(calls.slice(2)).toEqual([[100, 100], [200, 100]]);
    l.view(165, 255); // scrolling down, half a page from the next: it is asked for now
    await vi.waitFor(() => expect(l.row(300)).toBe('300'));
    expect(calls.slice(4)).toEqual([[300, 100]]);
    l.view(120, 210); // scrolling up: nothing behind is missing
    expect(calls.length).toBe(5);
    expect(l.rows().length).toBe(500);
  });

  it('asks once for a page that is already on its way', async () => {
    const { fetch } = served(() => 1000);
    const l = createPagedList(fetch, { pageSize: 100 });
    await l.reset();
    l.view(300, 310);
    l.view(305, 320);
    l.view(306, 321);
    await vi.waitFor(() => expect(l.row(310)).toBe('310'));
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it('drops an answer to an older query', async () => {
    const slow = deferred<Page<string>>();
    let calls = 0;
    const fetch = vi.fn(() => (++calls === 1 ? slow.promise : Promise.resolve({ rows: ['new'], total: 1 })));
    const l = createPagedList(fetch);
    const first = l.reset();
    await l.reset();
    slow.resolve({ rows: ['old', 'older'], total: 2 });
    await first;
    expect(l.row(0)).toBe('new');
    expect(get(l).total).toBe(1);
  });

  it('reloads the pages on screen, keeps their rows until the new ones arrive, and forgets the rest', async () => {
    let tag = 'a';
    const fetch = vi.fn(async (offset: number, limit: number) => {
      const rows = Array.from({ length: limit }, (_, i) => `${tag}${offset + i}`);
      return { rows, total: 1000 };
    });
    const l = createPagedList(fetch, { pageSize: 100 });
    await l.reset();
    l.view(500, 520);
    await vi.waitFor(() => expect(l.row(500)).toBe('a500'));
    l.view(0, 20);
    l.view(500, 520);
    tag = 'b';
    const gate = deferred<void>();
    fetch.mockImplementationOnce(async (offset: number, limit: number) => {
      await gate.promise;
      return { rows: Array.from({ length: limit }, (_, i) => `b${offset + i}`), total: 1000 };
    });
    const done = l.reload();
    expect(l.row(510)).toBe('a510'); // still on screen while its page reloads
    expect(l.row(5)).toBeUndefined(); // off screen: forgotten
    gate.resolve();
    await done;
    expect(l.row(510)).toBe('b510');
  });

  it('holds reloads while the pointer is on the list and runs one on release', async () => {
    const { fetch } = served(() => 10);
    const l = createPagedList(fetch);
    await l.reset();
    l.hold();
    await l.reload();
    await l.reload();
    expect(fetch).toHaveBeenCalledTimes(1);
    l.release();
    await vi.waitFor(() => expect(fetch).toHaveBeenCalledTimes(2));
    l.release();
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it('follows a list that shrank while indexing', async () => {
    let n = 1000;
    const { fetch } = served(() => n);
    const l = createPagedList(fetch, { pageSize: 100 });
    await l.reset();
    l.view(800, 850);
    await vi.waitFor(() => expect(l.row(800)).toBe('800'));
    n = 50;
    l.view(0, 10);
    await l.reload();
    expect(get(l).total).toBe(50);
    expect(l.row(800)).toBeUndefined();
    expect(l.rows().length).toBe(50);
  });

  it('keeps the error of a failed page, and a later answer clears it', async () => {
    let fail = true;
    const fetch = vi.fn(() => (fail ? Promise.reject(new Error('db locked')) : Promise.resolve({ rows: ['x'], total: 1 })));
    const l = createPagedList(fetch);
    await l.reset();
    expect(get(l)).toMatchObject({ total: -1, error: { message: 'db locked' }, loading: false });
    fail = false;
    await l.reset();
    expect(get(l)).toMatchObject({ total: 1, error: null });
  });
});

describe('paged list reloads', () => {
  it('runs one reload at a time and one more for those asked meanwhile', async () => {
    const gate = deferred<void>();
    let calls = 0;
    const fetch = vi.fn(async () => {
      if (++calls === 2) await gate.promise;
      return { rows: ['x'], total: 1 };
    });
    const l = createPagedList(fetch);
    await l.reset();
    const a = l.reload();
    void l.reload();
    void l.reload();
    expect(fetch).toHaveBeenCalledTimes(2);
    gate.resolve();
    await a;
    await vi.waitFor(() => expect(fetch).toHaveBeenCalledTimes(3));
    await new Promise((r) => setTimeout(r, 10));
    expect(fetch).toHaveBeenCalledTimes(3);
  });
});
