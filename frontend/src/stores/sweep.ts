import { get, writable, type Readable } from 'svelte/store';
import type { Bridge, SweepRow, SweepSeries } from '../bridge';
import { parseBudgets, type BudgetsParse } from '../lib/format';
import { failure } from './common';
import type { List } from './sessions';

export const DEFAULT_BUDGETS = '2000,5000,12500,25000,50000';

export type SweepScope = 'all' | 'session' | 'result';

export interface SweepState {
  scope: SweepScope;
  budgetsText: string;
  /** parsed is the budgets list as read so far; a failed parse blocks running. */
  parsed: BudgetsParse;
  route: string;
  rows: List<SweepRow[]>;
  /** policiesText lists policies to compare (comma-separated); with any, a sweep gives one series each and budgets are slider tokens. */
  policiesText: string;
  series: List<SweepSeries[]>;
  /** ran remembers what the shown rows were computed for. */
  ran: { scope: SweepScope; route: string; budgets: number[] } | null;
}

export interface SweepTarget {
  sessionId: number;
  resultId: number;
}

export interface SweepStore extends Readable<SweepState> {
  setScope(s: SweepScope): void;
  setBudgetsText(t: string): void;
  setRoute(r: string): void;
  setPolicies(text: string): void;
  /** run sweeps the chosen scope; target supplies the open session and result. */
  run(target: SweepTarget): Promise<void>;
}

export function createSweepStore(b: Bridge): SweepStore {
  const store = writable<SweepState>({
    scope: 'all',
    budgetsText: DEFAULT_BUDGETS,
    parsed: parseBudgets(DEFAULT_BUDGETS),
    route: '',
    rows: { state: 'idle' },
    policiesText: '',
    series: { state: 'idle' },
    ran: null,
  });
  const { subscribe, update } = store;
  let seq = 0;
  return {
    subscribe,
    setScope: (scope) => update((s) => ({ ...s, scope })),
    setBudgetsText: (budgetsText) => update((s) => ({ ...s, budgetsText, parsed: parseBudgets(budgetsText) })),
    setRoute: (route) => update((s) => ({ ...s, route })),
    setPolicies: (policiesText) => update((s) => ({ ...s, policiesText })),
    async run(target) {
      const s = get(store);
      if (!s.parsed.ok) return;
      const req = {
        budgets: s.parsed.budgets,
        route: s.route,
        sessionId: s.scope === 'session' ? target.sessionId : 0,
        resultId: s.scope === 'result' ? target.resultId : 0,
      };
      // A scope without its target would silently sweep everything.
      if ((s.scope === 'session' && !req.sessionId) || (s.scope === 'result' && !req.resultId)) return;
      const mine = ++seq;
      const ran = { scope: s.scope, route: s.route, budgets: req.budgets };
      const policies = policyList(s.policiesText);
      if (policies.length) {
        update((x) => ({ ...x, rows: { state: 'idle' }, series: { state: 'loading', value: 'value' in x.series ? x.series.value : undefined } }));
        try {
          const series = (await b.sweepPolicies({ ...req, columns: policies.map((policy) => ({ policy, params: {} })) })) ?? [];
          if (mine !== seq) return;
          update((x) => ({ ...x, series: { state: 'ready', value: series }, ran }));
        } catch (e) {
          if (mine !== seq) return;
          console.error('spillscope: policy sweep failed:', e);
          update((x) => ({ ...x, series: { state: 'error', error: failure(e) } }));
        }
        return;
      }
      update((x) => ({ ...x, series: { state: 'idle' }, rows: { state: 'loading', value: 'value' in x.rows ? x.rows.value : undefined } }));
      try {
        const rows = (await b.sweep(req)) ?? [];
        if (mine !== seq) return;
        update((x) => ({ ...x, rows: { state: 'ready', value: [...rows].sort((a, c) => a.budget - c.budget) }, ran }));
      } catch (e) {
        if (mine !== seq) return;
        console.error('spillscope: sweep failed:', e);
        update((x) => ({ ...x, rows: { state: 'error', error: failure(e) } }));
      }
    },
  };
}

/** policyList reads "opencode, goose" into policy names, blanks and repeats dropped. */
export function policyList(text: string): string[] {
  const out: string[] = [];
  for (const p of text.split(',')) {
    const name = p.trim();
    if (name && !out.includes(name)) out.push(name);
  }
  return out;
}
