import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { get } from 'svelte/store';
import { createSweepStore, DEFAULT_BUDGETS } from './sweep';
import { fakeBridge } from '../test/fakeBridge';
import type { SweepRow } from '../bridge';

beforeEach(() => vi.spyOn(console, 'error').mockImplementation(() => {}));
afterEach(() => vi.restoreAllMocks());

const row = (budget: number, over: Partial<SweepRow> = {}): SweepRow => ({
  budget, results: 3, replaced: 1, noticeOnly: 0, preserved: 0, inlineTokens: budget, omittedBytes: 10, omittedImages: 0, inlineTokensLowerBound: false, ...over,
});

describe('sweep store', () => {
  it('starts with the default budgets parsed', () => {
    const s = createSweepStore(fakeBridge());
    expect(get(s).budgetsText).toBe(DEFAULT_BUDGETS);
    expect(get(s).parsed).toEqual({ ok: true, budgets: [2000, 5000, 12500, 25000, 50000] });
  });

  it('sweeps every indexed result by default, rows sorted by budget', async () => {
    const sweep = vi.fn(() => Promise.resolve([row(5000), row(2000)]));
    const s = createSweepStore(fakeBridge({ sweep }));
    s.setRoute('gemini');
    await s.run({ sessionId: 4, resultId: 9 });
    expect(sweep).toHaveBeenCalledWith({ budgets: [2000, 5000, 12500, 25000, 50000], route: 'gemini', sessionId: 0, resultId: 0 });
    expect(get(s).rows).toEqual({ state: 'ready', value: [row(2000), row(5000)] });
    expect(get(s).ran).toEqual({ scope: 'all', route: 'gemini', budgets: [2000, 5000, 12500, 25000, 50000] });
  });

  it('passes the open session or result for those scopes', async () => {
    const sweep = vi.fn(() => Promise.resolve([]));
    const s = createSweepStore(fakeBridge({ sweep }));
    s.setScope('session');
    await s.run({ sessionId: 4, resultId: 9 });
    expect(sweep).toHaveBeenLastCalledWith(expect.objectContaining({ sessionId: 4, resultId: 0 }));
    s.setScope('result');
    await s.run({ sessionId: 4, resultId: 9 });
    expect(sweep).toHaveBeenLastCalledWith(expect.objectContaining({ sessionId: 0, resultId: 9 }));
  });

  it('never widens a scope without its target into "everything"', async () => {
    const sweep = vi.fn(() => Promise.resolve([]));
    const s = createSweepStore(fakeBridge({ sweep }));
    s.setScope('session');
    await s.run({ sessionId: 0, resultId: 0 });
    s.setScope('result');
    await s.run({ sessionId: 3, resultId: 0 });
    expect(sweep).not.toHaveBeenCalled();
  });

  it('does not call Go while the budgets list is bad, and says why', async () => {
    const sweep = vi.fn(() => Promise.resolve([]));
    const s = createSweepStore(fakeBridge({ sweep }));
    s.setBudgetsText('12k, -5, abc');
    expect(get(s).parsed).toEqual({
      ok: false,
      reason: 'invalid',
      issues: [
        { token: '12k', problem: 'suffix' },
        { token: '-5', problem: 'negative' },
        { token: 'abc', problem: 'notNumber' },
      ],
    });
    await s.run({ sessionId: 0, resultId: 0 });
    expect(sweep).not.toHaveBeenCalled();
    s.setBudgetsText('1000, 3000');
    await s.run({ sessionId: 0, resultId: 0 });
    expect(sweep).toHaveBeenCalledWith(expect.objectContaining({ budgets: [1000, 3000] }));
  });

  it('keeps the error of a failed sweep', async () => {
    const s = createSweepStore(fakeBridge({ sweep: () => Promise.reject(new Error('app: not wired yet')) }));
    await s.run({ sessionId: 0, resultId: 0 });
    expect(get(s).rows).toMatchObject({ state: 'error', error: { message: 'app: not wired yet', notWired: true } });
  });
});
