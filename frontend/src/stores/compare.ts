import { get, writable, type Readable } from 'svelte/store';
import type { Bridge, CompareRequest, CompareView, PolicyInfo } from '../bridge';
import { failure } from './common';
import type { List } from './sessions';

/** DEFAULT_SLIDER is where the shared slider starts, in tokens: dsh's shipped maxInlineTokens. */
export const DEFAULT_SLIDER = 12500;

/** A column the user asked for: a policy and the parameters they changed (the rest are the harness's defaults). */
export interface ColumnSpec {
  policy: string;
  params: Record<string, string>;
}

export interface CompareState {
  resultId: number;
  /** columns are what is compared; empty until Go names the defaults (the session's own harness's policy and dsh-tokens). */
  columns: ColumnSpec[];
  /** slider is the shared budget in tokens, mapped by Go to each column's budget parameter; null leaves every column at its own budget. */
  slider: number | null;
  route: string;
  /** yardstick names the estimator every column is priced on ("" is the route's). */
  yardstick: string;
  /** reveal shows credential values in the columns, as the open result does; masked otherwise. */
  reveal: boolean;
  view: List<CompareView>;
}

export interface CompareStore extends Readable<CompareState> {
  /** open compares on an indexed result, starting from Go's default columns. */
  open(resultId: number, route: string, slider: number | null, reveal?: boolean): Promise<void>;
  setSlider(tokens: number | null): void;
  setRoute(route: string): void;
  setYardstick(estimator: string): void;
  addPolicy(policy: string): void;
  removeColumn(i: number): void;
  /** setParam changes one parameter of one column, under the harness's own name; "" goes back to the default. */
  setParam(i: number, name: string, value: string): void;
  rerun(): Promise<void>;
  /** exportAsk is the comparison on screen as an export asks for it (values masked: an export never reveals). */
  exportAsk(): { what: 'compare'; compare: Partial<CompareRequest> } | null;
  destroy(): void;
}

/**
 * sliderTokens is the shared slider's position for a budget in a policy's own
 * unit (the result view's budget): the inverse of Go's mapping, so the two
 * controls start in the same place.
 */
export function sliderTokens(budget: number, info: PolicyInfo | undefined): number {
  const per = info?.unitsPerToken || 1;
  return Math.floor(budget / per);
}

/** budgetFor is what the slider sets a column's budget to, as Go maps it (null when the slider does not set it). */
export function budgetFor(tokens: number | null, unitsPerToken: number): number | null {
  if (tokens === null || !unitsPerToken) return null;
  return Math.min(tokens * unitsPerToken, Number.MAX_SAFE_INTEGER);
}

export function createCompareStore(b: Bridge, opts: { debounceMs?: number } = {}): CompareStore {
  const debounceMs = opts.debounceMs ?? 150;
  const store = writable<CompareState>({ resultId: 0, columns: [], slider: DEFAULT_SLIDER, route: '', yardstick: '', reveal: false, view: { state: 'idle' } });
  const { subscribe, update } = store;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let seq = 0;

  function request(s: CompareState): Partial<CompareRequest> {
    return {
      resultId: s.resultId,
      columns: s.columns.map((c) => ({ policy: c.policy, params: { ...c.params } })),
      slider: s.slider,
      route: s.route,
      estimator: s.yardstick,
      reveal: s.reveal,
    } as Partial<CompareRequest>;
  }

  async function run() {
    timer = null;
    const s = get(store);
    if (!s.resultId) return;
    const mine = ++seq;
    update((x) => ({ ...x, view: { state: 'loading', value: 'value' in x.view ? x.view.value : undefined } }));
    try {
      const v = await b.compare(request(s));
      if (mine !== seq) return; // a newer request owns the panel
      update((x) => ({
        ...x,
        view: { state: 'ready', value: v },
        // Go names the default columns when none were asked for.
        columns: x.columns.length ? x.columns : (v.columns ?? []).map((c) => ({ policy: c.policy, params: {} })),
      }));
    } catch (e) {
      if (mine !== seq) return;
      console.error('spillscope: compare failed:', e);
      update((x) => ({ ...x, view: { state: 'error', error: failure(e) } }));
    }
  }

  function schedule() {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void run(), debounceMs);
  }

  return {
    subscribe,
    exportAsk() {
      const s = get(store);
      return s.resultId ? { what: 'compare', compare: { ...request(s), reveal: false } } : null;
    },
    async open(resultId, route, slider, reveal = false) {
      if (timer) clearTimeout(timer);
      update((s) => ({ ...s, resultId, route, slider, reveal, columns: s.resultId === resultId ? s.columns : [], view: { state: 'idle' } }));
      await run();
    },
    setSlider(tokens) {
      update((s) => ({ ...s, slider: tokens === null ? null : Math.max(0, Math.round(tokens)) }));
      schedule();
    },
    setRoute(route) {
      update((s) => ({ ...s, route }));
      schedule();
    },
    setYardstick(yardstick) {
      update((s) => ({ ...s, yardstick }));
      schedule();
    },
    addPolicy(policy) {
      update((s) => ({ ...s, columns: [...s.columns, { policy, params: {} }] }));
      schedule();
    },
    removeColumn(i) {
      update((s) => ({ ...s, columns: s.columns.filter((_, j) => j !== i) }));
      schedule();
    },
    setParam(i, name, value) {
      update((s) => ({
        ...s,
        columns: s.columns.map((c, j) => {
          if (j !== i) return c;
          const params = { ...c.params };
          if (value === '') delete params[name];
          else params[name] = value;
          return { ...c, params };
        }),
      }));
      schedule();
    },
    rerun: run,
    destroy() {
      if (timer) clearTimeout(timer);
      timer = null;
      seq++;
    },
  };
}
