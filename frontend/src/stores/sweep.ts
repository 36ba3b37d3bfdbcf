import { get, writable, type Readable } from 'svelte/store';
import type { Bridge, CutList, CutRow, SweepRow, SweepSeries } from '../bridge';
import { parseBudgets, type BudgetsParse } from '../lib/format';
import { failure } from './common';
import { createPagedList, type PagedList } from './paged';
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
  /** selected is the chart's clicked point, whose cuts are listed; against the point the difference is taken with. */
  selected: SweepPoint | null;
  against: SweepPoint | null;
  /** cuts lists what the selected point's budget cuts (and, with against, how each result fares there). */
  cuts: List<CutList>;
}

/**
 * SweepPoint is one point of the sweep's chart: a budget of the one-policy
 * sweep (policy '') or of a policy's series, in that policy's unit; slider
 * is a series point's shared slider position in tokens.
 */
export interface SweepPoint {
  policy: string;
  budget: number;
  slider?: number;
}

/** SweepMark is a budget the chart marks on its x axis: a policy's recorded or shipped budget. */
export interface SweepMark {
  /** value is on the x axis: a budget of the one-policy sweep, slider tokens for series. */
  value: number;
  label: string;
  policy: string;
}

/**
 * marksFor are the budgets the chart marks: for each policy drawn (the
 * one-policy sweep's is '', dsh-tokens), its shipped budget, which dsh
 * sessions ran at unless configured otherwise; on series charts in slider
 * tokens (the policy's budget over its units per token).
 */
export function marksFor(
  policies: { name: string; defaultBudget: number; unitsPerToken: number }[],
  drawn: string[],
  series: boolean,
  label: (policy: string, budget: number) => string,
): SweepMark[] {
  const out: SweepMark[] = [];
  for (const name of drawn) {
    const info = policies.find((p) => p.name === (name || DEFAULT_SWEEP_POLICY));
    if (!info || info.defaultBudget <= 0) continue;
    if (series && info.unitsPerToken <= 0) continue;
    const value = series ? Math.round(info.defaultBudget / info.unitsPerToken) : info.defaultBudget;
    out.push({ value, label: label(info.name, info.defaultBudget), policy: name });
  }
  return out;
}

/** DEFAULT_SWEEP_POLICY is the policy of the one-policy sweep (Go's retention.DefaultPolicy). */
export const DEFAULT_SWEEP_POLICY = 'dsh-tokens';

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
  /** select lists what a point's budget cuts, over the scope the sweep ran on; a point of another series drops the comparison. */
  select(p: SweepPoint): Promise<void>;
  /** setAgainst compares the selected point with another budget of its series (null: none). */
  setAgainst(p: SweepPoint | null): Promise<void>;
  clearSelection(): void;
  /** cutRows is the listed cuts as a list the virtualised table reads. */
  cutRows: PagedList<CutRow>;
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
    selected: null,
    against: null,
    cuts: { state: 'idle' },
  });
  const { subscribe, update } = store;
  let seq = 0;
  let cutSeq = 0;
  // What the shown sweep ran over, so a point's cuts come from the same scope.
  let ranWith = { sessionId: 0, resultId: 0, route: '' };
  let listed: CutRow[] = [];
  const cutRows = createPagedList<CutRow>(async (offset, limit) => ({ rows: listed.slice(offset, offset + limit), total: listed.length }), {
    what: 'sweep cuts',
  });

  async function loadCuts() {
    const s = get(store);
    const p = s.selected;
    if (!p) return;
    const mine = ++cutSeq;
    const against = s.against && s.against.policy === p.policy && s.against.budget !== p.budget ? s.against.budget : null;
    update((x) => ({ ...x, cuts: { state: 'loading', value: 'value' in x.cuts ? x.cuts.value : undefined } }));
    try {
      const list = await b.sweepCuts({ ...ranWith, budget: p.budget, against: against ?? undefined, policy: p.policy, params: {}, series: p.policy !== '' });
      if (mine !== cutSeq) return;
      listed = list.rows ?? [];
      update((x) => ({ ...x, cuts: { state: 'ready', value: list } }));
      await cutRows.reset();
    } catch (e) {
      if (mine !== cutSeq) return;
      console.error('spillscope: sweep cuts failed:', e);
      update((x) => ({ ...x, cuts: { state: 'error', error: failure(e) } }));
    }
  }
  function clearCuts() {
    cutSeq++;
    listed = [];
    cutRows.clear();
    update((x) => ({ ...x, selected: null, against: null, cuts: { state: 'idle' } }));
  }

  return {
    subscribe,
    cutRows,
    async select(p) {
      update((x) => ({ ...x, selected: p, against: x.against && x.against.policy === p.policy ? x.against : null }));
      await loadCuts();
    },
    async setAgainst(p) {
      update((x) => ({ ...x, against: p }));
      await loadCuts();
    },
    clearSelection: clearCuts,
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
      // New figures: the listed cuts belong to the old ones.
      clearCuts();
      ranWith = { sessionId: req.sessionId, resultId: req.resultId, route: req.route };
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
