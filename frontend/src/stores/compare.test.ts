import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { get } from 'svelte/store';
import { budgetFor, createCompareStore, sliderTokens } from './compare';
import { deferred, fakeBridge } from '../test/fakeBridge';
import type { CompareRequest, CompareView, PolicyInfo } from '../bridge';

beforeEach(() => {
  vi.useFakeTimers();
  vi.spyOn(console, 'error').mockImplementation(() => {});
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

function view(policies: string[]): CompareView {
  return {
    route: 'anthropic',
    yardstick: 'o200k_base',
    harness: 'gemini-cli',
    columns: policies.map((policy) => ({ policy, params: {}, status: 'replaced' })),
  } as unknown as CompareView;
}

describe('compare store', () => {
  it('opens with Go’s default columns and the slider, then keeps them', async () => {
    const compare = vi.fn((req: { columns?: unknown[] }) => Promise.resolve(view(req.columns?.length ? ['gemini-cli', 'dsh-tokens', 'goose'] : ['gemini-cli', 'dsh-tokens'])));
    const s = createCompareStore(fakeBridge({ compare }));
    await s.open(7, 'anthropic', 4000);
    expect(compare).toHaveBeenCalledWith({ resultId: 7, columns: [], slider: 4000, route: 'anthropic', estimator: '', reveal: false });
    expect(get(s).columns).toEqual([
      { policy: 'gemini-cli', params: {} },
      { policy: 'dsh-tokens', params: {} },
    ]);
    s.addPolicy('goose');
    await vi.advanceTimersByTimeAsync(150);
    expect(compare).toHaveBeenLastCalledWith(expect.objectContaining({ columns: [
      { policy: 'gemini-cli', params: {} },
      { policy: 'dsh-tokens', params: {} },
      { policy: 'goose', params: {} },
    ] }));
  });

  it('sends edited parameters under the harness’s names; "" restores the default', async () => {
    const compare = vi.fn(() => Promise.resolve(view(['opencode'])));
    const s = createCompareStore(fakeBridge({ compare }));
    await s.open(3, '', 12500);
    s.setParam(0, 'direction', 'tail');
    s.setParam(0, 'maxLines', '40');
    await vi.advanceTimersByTimeAsync(150);
    expect(compare).toHaveBeenLastCalledWith(expect.objectContaining({ columns: [{ policy: 'opencode', params: { direction: 'tail', maxLines: '40' } }] }));
    s.setParam(0, 'maxLines', '');
    s.setSlider(null);
    s.setYardstick('cl100k_base');
    await vi.advanceTimersByTimeAsync(150);
    expect(compare).toHaveBeenLastCalledWith(expect.objectContaining({ slider: null, estimator: 'cl100k_base', columns: [{ policy: 'opencode', params: { direction: 'tail' } }] }));
  });

  it('exports the comparison on screen, its columns and slider, never revealed', async () => {
    const compare = vi.fn(() => Promise.resolve(view(['opencode', 'dsh-tokens'])));
    const s = createCompareStore(fakeBridge({ compare }));
    expect(s.exportAsk()).toBeNull();
    await s.open(9, 'openai', 8000, true);
    s.setParam(0, 'maxLines', '40');
    expect(s.exportAsk()).toEqual({
      what: 'compare',
      compare: { resultId: 9, slider: 8000, route: 'openai', estimator: '', reveal: false,
        columns: [{ policy: 'opencode', params: { maxLines: '40' } }, { policy: 'dsh-tokens', params: {} }] },
    });
  });

  it('a late answer never replaces a newer one', async () => {
    const first = deferred<CompareView>();
    const compare = vi.fn().mockReturnValueOnce(first.promise).mockResolvedValue(view(['goose']));
    const s = createCompareStore(fakeBridge({ compare }));
    void s.open(3, '', 100);
    s.setSlider(200);
    await vi.advanceTimersByTimeAsync(150);
    first.resolve(view(['opencode']));
    await vi.advanceTimersByTimeAsync(0);
    const v = get(s).view;
    expect(v.state === 'ready' && v.value.columns[0].policy).toBe('goose');
  });

  it('asks for the columns with credentials revealed only when the result is revealed', async () => {
    const compare = vi.fn((_req: Partial<CompareRequest>) => Promise.resolve({ slider: 4000, route: 'anthropic', yardstick: 'o200k_base', harness: '', columns: [] } as unknown as CompareView));
    const s = createCompareStore(fakeBridge({ compare }));
    await s.open(7, 'anthropic', 4000, true);
    expect(compare).toHaveBeenLastCalledWith(expect.objectContaining({ resultId: 7, reveal: true }));
    await s.open(7, 'anthropic', 4000);
    expect(compare).toHaveBeenLastCalledWith(expect.objectContaining({ resultId: 7, reveal: false }));
  });

  it('keeps a failure for the retry box', async () => {
    const s = createCompareStore(fakeBridge({ compare: () => Promise.reject(new Error('boom')) }));
    await s.open(3, '', 100);
    expect(get(s).view).toEqual({ state: 'error', error: expect.objectContaining({ message: 'boom', notWired: false }) });
  });

  it('maps the result view’s budget to slider tokens and back as Go does', () => {
    const bytes = { unitsPerToken: 4 } as PolicyInfo;
    expect(sliderTokens(50000, bytes)).toBe(12500);
    expect(sliderTokens(12500, { unitsPerToken: 1 } as PolicyInfo)).toBe(12500);
    expect(budgetFor(12500, 4)).toBe(50000);
    expect(budgetFor(12500, 0)).toBeNull();
    expect(budgetFor(null, 4)).toBeNull();
  });
});
