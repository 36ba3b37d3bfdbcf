import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { get } from 'svelte/store';
import { createSweepStore, DEFAULT_BUDGETS, marksFor } from './sweep';
import { fakeBridge } from '../test/fakeBridge';
import type { CutList, CutRow, SweepRow } from '../bridge';

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

  it('with policies, sweeps one series each over the same scope', async () => {
    const series = [{ policy: 'opencode', estimator: 'utf8-bytes', yardstick: 'o200k_base', budgetParam: 'maxBytes', budgetUnit: 'bytes', rows: [] }];
    const sweep = vi.fn(() => Promise.resolve([]));
    const sweepPolicies = vi.fn(() => Promise.resolve(series));
    const s = createSweepStore(fakeBridge({ sweep, sweepPolicies } as never));
    s.setPolicies(' opencode, goose,,opencode ');
    s.setScope('session');
    await s.run({ sessionId: 4, resultId: 9 });
    expect(sweep).not.toHaveBeenCalled();
    expect(sweepPolicies).toHaveBeenCalledWith(expect.objectContaining({
      sessionId: 4, resultId: 0, budgets: [2000, 5000, 12500, 25000, 50000],
      columns: [{ policy: 'opencode', params: {} }, { policy: 'goose', params: {} }],
    }));
    expect(get(s).series).toEqual({ state: 'ready', value: series });
  });

  it('lists what a clicked budget cuts over the scope the sweep ran on', async () => {
    const sweep = vi.fn(() => Promise.resolve([row(2000), row(5000)]));
    const sweepCuts = vi.fn((req: { budget?: number }) => Promise.resolve(cutList(req.budget ?? 0, [cut(1, 9000, 1990), cut(2, 4000, 1999)])));
    const s = createSweepStore(fakeBridge({ sweep, sweepCuts } as never));
    s.setScope('session');
    s.setRoute('gemini');
    await s.run({ sessionId: 4, resultId: 9 });
    await s.select({ policy: '', budget: 2000 });
    expect(sweepCuts).toHaveBeenCalledWith({ sessionId: 4, resultId: 0, route: 'gemini', budget: 2000, against: undefined, policy: '', params: {}, series: false });
    expect(get(s).selected).toEqual({ policy: '', budget: 2000 });
    expect(get(s).cuts).toMatchObject({ state: 'ready', value: { budget: 2000 } });
    // The virtualised list reads the rows a page at a time.
    await vi.waitFor(() => expect(get(s.cutRows).total).toBe(2));
    expect(s.cutRows.rows().map((r) => r.resultId)).toEqual([1, 2]);
  });

  it('compares the selected budget with another of its line, and drops that for another line', async () => {
    const sweepCuts = vi.fn((req: { budget?: number }) => Promise.resolve(cutList(req.budget ?? 0, [])));
    const s = createSweepStore(fakeBridge({ sweep: () => Promise.resolve([row(2000), row(8000)]), sweepCuts } as never));
    await s.run({ sessionId: 0, resultId: 0 });
    await s.select({ policy: '', budget: 2000 });
    await s.setAgainst({ policy: '', budget: 8000 });
    expect(sweepCuts).toHaveBeenLastCalledWith(expect.objectContaining({ budget: 2000, against: 8000, series: false }));
    expect(get(s).against).toEqual({ policy: '', budget: 8000 });
    // A series point: its own unit, its policy, decided as the series is.
    await s.select({ policy: 'opencode', budget: 20000, slider: 5000 });
    expect(get(s).against).toBeNull();
    expect(sweepCuts).toHaveBeenLastCalledWith(expect.objectContaining({ policy: 'opencode', budget: 20000, against: undefined, series: true }));
  });

  it('a new sweep drops the listed cuts; an old answer never lands on a newer selection', async () => {
    let release: (v: CutList) => void = () => {};
    const slow = new Promise<CutList>((r) => (release = r));
    const sweepCuts = vi.fn((req: { budget?: number }) => (req.budget === 2000 ? slow : Promise.resolve(cutList(req.budget ?? 0, [cut(7, 100, 50)]))));
    const s = createSweepStore(fakeBridge({ sweep: () => Promise.resolve([row(2000), row(5000)]), sweepCuts } as never));
    await s.run({ sessionId: 0, resultId: 0 });
    const first = s.select({ policy: '', budget: 2000 });
    await s.select({ policy: '', budget: 5000 });
    release(cutList(2000, [cut(1, 1, 1)]));
    await first;
    expect(get(s).cuts).toMatchObject({ state: 'ready', value: { budget: 5000 } });
    await s.run({ sessionId: 0, resultId: 0 });
    expect(get(s).selected).toBeNull();
    expect(get(s).cuts).toEqual({ state: 'idle' });
  });

  it('keeps the error of a failed cut list', async () => {
    const s = createSweepStore(fakeBridge({ sweep: () => Promise.resolve([row(2000)]), sweepCuts: () => Promise.reject(new Error('boom')) } as never));
    await s.run({ sessionId: 0, resultId: 0 });
    await s.select({ policy: '', budget: 2000 });
    expect(get(s).cuts).toMatchObject({ state: 'error', error: { message: 'boom' } });
  });
});

describe('sweep marks', () => {
  const policies = [
    { name: 'dsh-tokens', defaultBudget: 12500, unitsPerToken: 1 },
    { name: 'opencode', defaultBudget: 51200, unitsPerToken: 4 },
    { name: 'odd', defaultBudget: 3, unitsPerToken: 0 },
  ];
  it('marks the one-policy sweep at dsh’s shipped budget', () => {
    expect(marksFor(policies, [''], false, (p, b) => `${p} ${b}`)).toEqual([{ value: 12500, label: 'dsh-tokens 12500', policy: '' }]);
  });
  it('marks each series at its shipped budget in slider tokens, skipping one the slider cannot set', () => {
    expect(marksFor(policies, ['opencode', 'odd', 'missing'], true, (p) => p)).toEqual([{ value: 12800, label: 'opencode', policy: 'opencode' }]);
  });
});

function cut(id: number, before: number, after: number): CutRow {
  return {
    resultId: id, sessionRowId: 1, sessionId: 's', project: '/p', toolName: 'Bash', tokensBefore: before, tokensBeforeExact: true,
    at: { budget: 0, status: 'replaced', cut: true, tokensAfter: after, omittedBytes: 10, omittedImages: 0, lostBytes: 0, lostLines: 0, lostImages: 0, recoverable: true },
  } as CutRow;
}

function cutList(budget: number, rows: CutRow[]): CutList {
  return { policy: 'dsh-tokens', budget, unit: 'tokens', estimator: 'o200k_base', results: 3, rows, only: 0, stats: {} } as unknown as CutList;
}
