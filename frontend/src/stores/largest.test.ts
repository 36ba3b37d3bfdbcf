import { describe, expect, it, vi } from 'vitest';
import { get } from 'svelte/store';
import { createLargestStore } from './largest';
import { deferred, fakeBridge, resultRow } from '../test/fakeBridge';
import type { ResultRow } from '../bridge';

describe('largest results store', () => {
  it('asks for the initial limit, then keeps a larger one for reloads', async () => {
    const largest = vi.fn((n: number) => Promise.resolve(Array.from({ length: Math.min(n, 3) }, (_, i) => resultRow({ id: i + 1 }))));
    const s = createLargestStore(fakeBridge({ largest }), 10);
    await s.load();
    expect(largest).toHaveBeenLastCalledWith(10);
    await s.load(50);
    await s.load();
    expect(largest).toHaveBeenLastCalledWith(50);
    expect(get(s).limit).toBe(50);
    expect(get(s).rows).toEqual({ state: 'ready', value: [resultRow({ id: 1 }), resultRow({ id: 2 }), resultRow({ id: 3 })] });
  });

  it('keeps the rows on screen while a reload runs (the ranking refreshes during indexing)', async () => {
    const later = deferred<ResultRow[]>();
    let calls = 0;
    const largest = vi.fn(() => (++calls === 1 ? Promise.resolve([resultRow({ id: 1, tokens: 10, tokensExact: false })]) : later.promise));
    const s = createLargestStore(fakeBridge({ largest }));
    await s.load();
    const reload = s.load();
    expect(get(s).rows).toEqual({ state: 'loading', value: [resultRow({ id: 1, tokens: 10, tokensExact: false })] });
    later.resolve([resultRow({ id: 2, tokens: 99, tokensExact: true }), resultRow({ id: 1, tokens: 12, tokensExact: true })]);
    await reload;
    const rows = get(s).rows;
    expect(rows.state).toBe('ready');
    expect('value' in rows && rows.value?.map((r) => r.id)).toEqual([2, 1]);
  });

  it('never lets an older answer replace a newer one', async () => {
    const old = deferred<ResultRow[]>();
    let calls = 0;
    const largest = vi.fn(() => (++calls === 1 ? old.promise : Promise.resolve([resultRow({ id: 5 })])));
    const s = createLargestStore(fakeBridge({ largest }));
    const first = s.load();
    await s.load();
    old.resolve([resultRow({ id: 4 })]);
    await first;
    expect(get(s).rows).toEqual({ state: 'ready', value: [resultRow({ id: 5 })] });
  });

  it('keeps the error for the screen', async () => {
    const spy = vi.spyOn(console, 'error').mockImplementation(() => {});
    const s = createLargestStore(fakeBridge({ largest: () => Promise.reject(new Error('no index')) }));
    await s.load();
    expect(get(s).rows).toEqual({ state: 'error', error: { message: 'no index', notWired: false } });
    spy.mockRestore();
  });
});
