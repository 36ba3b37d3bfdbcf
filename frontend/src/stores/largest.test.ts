import { describe, expect, it, vi } from 'vitest';
import { get } from 'svelte/store';
import { createLargestStore } from './largest';
import { fakeBridge, page, resultRow } from '../test/fakeBridge';

describe('largest results store', () => {
  it('pages through every result Go ranks, and counts them all', async () => {
    const all = Array.from({ length: 1234 }, (_, i) => resultRow({ id: i + 1, tokens: 5000 - i }));
    const largest = vi.fn((offset: number, limit: number) => Promise.resolve(page(all, offset, limit)));
    const s = createLargestStore(fakeBridge({ largest: largest as never }), { pageSize: 100 });
    await s.reset();
    expect(largest).toHaveBeenLastCalledWith(0, 100);
    expect(get(s).total).toBe(1234);
    s.view(1210, 1233);
    await vi.waitFor(() => expect(s.row(1233)?.id).toBe(1234));
    expect(largest).toHaveBeenCalledWith(1200, 100);
    expect(largest).not.toHaveBeenCalledWith(1300, 100); // past the end: never asked for
  });

  it('keeps the error for the screen', async () => {
    const spy = vi.spyOn(console, 'error').mockImplementation(() => {});
    const s = createLargestStore(fakeBridge({ largest: () => Promise.reject({ code: 'data-dir', params: {}, detail: 'no index' }) }));
    await s.reset();
    expect(get(s).error).toEqual({ code: 'data-dir', params: {}, message: 'no index', notWired: false });
    spy.mockRestore();
  });

  it('takes a first page the window already holds at once, then asks Go for the rest', async () => {
    const all = Array.from({ length: 450 }, (_, i) => resultRow({ id: i + 1, tokens: 5000 - i }));
    const largest = vi.fn((offset: number, limit: number) => Promise.resolve(page(all, offset, limit)));
    let held: ReturnType<typeof page> | undefined = page(all, 0, 200);
    const largestNow = vi.fn((offset: number, limit: number) => {
      const p = offset === 0 && limit === 200 ? held : undefined;
      held = undefined;
      return p;
    });
    const s = createLargestStore(fakeBridge({ largest: largest as never, largestNow: largestNow as never }));
    // No await: the rows are there when reset returns.
    void s.reset();
    expect(get(s).total).toBe(450);
    expect(s.row(0)?.id).toBe(1);
    expect(s.row(199)?.id).toBe(200);
    expect(largest).not.toHaveBeenCalled();
    s.view(390, 449);
    await vi.waitFor(() => expect(s.row(449)?.id).toBe(450));
    expect(largest).toHaveBeenCalledWith(400, 200);
    // Held once: a reload of the first rows asks Go.
    s.view(0, 20);
    await s.reload();
    expect(largest).toHaveBeenCalledWith(0, 200);
  });
});

