import { describe, expect, it, vi } from 'vitest';
import { get } from 'svelte/store';
import { createEstimatorsStore } from './estimators';
import { fakeBridge } from '../test/fakeBridge';

describe('estimators store', () => {
  it('reads the list from Go once, however many screens ask', async () => {
    const estimators = vi.fn(() => Promise.resolve(['bytes4', 'dsh-meter', 'o200k_base']));
    const s = createEstimatorsStore(fakeBridge({ estimators }));
    expect(get(s)).toEqual([]);
    const [a, b] = await Promise.all([s.load(), s.load()]);
    await s.load();
    expect(estimators).toHaveBeenCalledTimes(1);
    expect(a).toEqual(['bytes4', 'dsh-meter', 'o200k_base']);
    expect(b).toEqual(a);
    expect(get(s)).toEqual(a);
  });

  it('keeps an empty list when the read fails, and reads again on the next ask', async () => {
    const err = vi.spyOn(console, 'error').mockImplementation(() => {});
    const estimators = vi.fn().mockRejectedValueOnce(new Error('no Go')).mockResolvedValueOnce(['dsh-meter']);
    const s = createEstimatorsStore(fakeBridge({ estimators }));
    expect(await s.load()).toEqual([]);
    expect(get(s)).toEqual([]);
    expect(await s.load()).toEqual(['dsh-meter']);
    expect(get(s)).toEqual(['dsh-meter']);
    expect(estimators).toHaveBeenCalledTimes(2);
    err.mockRestore();
  });
});
