import { get, writable, type Readable } from 'svelte/store';
import type { Bridge, FileSlice, Projection, RetainRequest, ResultDetail, RouteInfo } from '../bridge';
import { parseBudget, utf8Length, type BudgetIssue } from '../lib/format';
import { failure, type Failure } from './common';
import type { List } from './sessions';

/** DEFAULT_BUDGET is the budget a re-run starts at. */
export const DEFAULT_BUDGET = 12500;
/** FILE_PAGE is how much of a spill file one "load more" reads. */
export const FILE_PAGE = 64 * 1024;
/** The encodings the text estimator offers. */
export const encodings = ['o200k_base', 'cl100k_base'];

export type FileState =
  | { state: 'none' }
  | { state: 'loading'; path: string }
  | { state: 'missing'; path: string }
  | { state: 'error'; path: string; error: Failure }
  | { state: 'ready'; path: string; text: string; size: number; next: number; eof: boolean; more: boolean; moreError: Failure | null };

export type JsonProblem = { kind: 'empty' } | { kind: 'invalid'; detail: string } | { kind: 'shape' } | null;

export interface ResultState {
  /** mode: an indexed result, or pasted JSON in the playground. */
  mode: 'result' | 'paste';
  resultId: number;
  detail: List<ResultDetail>;
  routes: RouteInfo[];
  budgetText: string;
  budget: number;
  off: boolean;
  budgetError: BudgetIssue | null;
  route: string;
  encoding: string;
  json: string;
  jsonProblem: JsonProblem;
  toolName: string;
  projection: List<Projection>;
  file: FileState;
}

export interface ResultOptions {
  debounceMs?: number;
  page?: number;
}

export interface ResultStore extends Readable<ResultState> {
  loadRoutes(): Promise<void>;
  /** open loads an indexed result, its spill file's first page, and projects it at the current budget. */
  open(id: number): Promise<void>;
  /** openPaste switches to the playground: pasted JSON instead of an indexed result. */
  openPaste(json?: string): void;
  setBudgetText(text: string): void;
  setBudget(n: number): void;
  setOff(off: boolean): void;
  setRoute(route: string): void;
  setEncoding(enc: string): void;
  setJson(json: string): void;
  setToolName(name: string): void;
  loadMore(): Promise<void>;
  /** rerun asks Go at once, without the debounce (a retry button). */
  rerun(): Promise<void>;
  /** useDefaults starts re-runs from the user's settings: budget (or off), the route of pasted results, the estimator ("" = the route's own). */
  useDefaults(d: { budget: number; off?: boolean; route?: string; estimator?: string }): void;
  destroy(): void;
}


export function createResultStore(b: Bridge, opts: ResultOptions = {}): ResultStore {
  const debounceMs = opts.debounceMs ?? 150;
  const page = opts.page ?? FILE_PAGE;
  const store = writable<ResultState>({
    mode: 'result',
    resultId: 0,
    detail: { state: 'idle' },
    routes: [],
    budgetText: String(DEFAULT_BUDGET),
    budget: DEFAULT_BUDGET,
    off: false,
    budgetError: null,
    route: '',
    encoding: '',
    json: '',
    jsonProblem: { kind: 'empty' },
    toolName: '',
    projection: { state: 'idle' },
    file: { state: 'none' },
  });
  const { subscribe, update } = store;
  let timer: ReturnType<typeof setTimeout> | null = null;
  // The user's default route (pasted results) and estimator (every result).
  let preferredRoute = '';
  let preferredEncoding = '';
  let seq = 0;
  let openSeq = 0;
  let fileSeq = 0;

  function request(s: ResultState): Partial<RetainRequest> | null {
    if (!s.off && s.budgetError) return null;
    const budget = s.off ? undefined : s.budget;
    if (s.mode === 'paste') {
      if (s.jsonProblem) return null;
      return { json: s.json, budget, route: s.route, encoding: s.encoding, toolName: s.toolName };
    }
    if (!s.resultId || s.detail.state !== 'ready') return null;
    return { resultId: s.resultId, budget, route: s.route, encoding: s.encoding };
  }

  async function run() {
    timer = null;
    const req = request(get(store));
    const mine = ++seq;
    if (!req) {
      update((s) => ({ ...s, projection: { state: 'idle' } }));
      return;
    }
    update((s) => ({ ...s, projection: { state: 'loading', value: 'value' in s.projection ? s.projection.value : undefined } }));
    try {
      const p = await b.retain(req);
      if (mine !== seq) return; // a newer request owns the pane
      update((s) => ({ ...s, projection: { state: 'ready', value: p } }));
    } catch (e) {
      if (mine !== seq) return;
      console.error('spillscope: retain failed:', e);
      update((s) => ({ ...s, projection: { state: 'error', error: failure(e) } }));
    }
  }

  function schedule() {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void run(), debounceMs);
  }

  function routeEncoding(name: string): string {
    return get(store).routes.find((r) => r.name === name)?.encoding ?? '';
  }

  async function readFirst(path: string) {
    const mine = ++fileSeq;
    update((s) => ({ ...s, file: { state: 'loading', path } }));
    try {
      const sl = await b.readFile(path, 0, page);
      if (mine !== fileSeq) return;
      update((s) => ({ ...s, file: sliceState(path, sl) }));
    } catch (e) {
      if (mine !== fileSeq) return;
      console.error('spillscope: read spill file failed:', e);
      update((s) => ({ ...s, file: { state: 'error', path, error: failure(e) } }));
    }
  }

  return {
    subscribe,
    async loadRoutes() {
      try {
        const routes = (await b.routes()) ?? [];
        update((s) => ({ ...s, routes }));
      } catch (e) {
        console.error('spillscope: routes failed:', e);
      }
    },
    async open(id) {
      const mine = ++openSeq;
      fileSeq++;
      seq++;
      if (timer) clearTimeout(timer);
      update((s) => ({ ...s, mode: 'result', resultId: id, detail: { state: 'loading' }, projection: { state: 'idle' }, file: { state: 'none' } }));
      try {
        const d = await b.result(id);
        if (mine !== openSeq) return;
        update((s) => ({ ...s, detail: { state: 'ready', value: d }, route: d.route || s.route, encoding: preferredEncoding || d.encoding || routeEncoding(d.route) || s.encoding }));
        if (d.row?.noticePath) void readFirst(d.row.noticePath);
        await run();
      } catch (e) {
        if (mine !== openSeq) return;
        console.error('spillscope: result failed:', e);
        update((s) => ({ ...s, detail: { state: 'error', error: failure(e) } }));
      }
    },
    openPaste(json) {
      openSeq++;
      fileSeq++;
      update((s) => {
        const text = json ?? s.json;
        const route = s.route || preferredRoute || defaultRoute(s.routes);
        return {
          ...s,
          mode: 'paste',
          resultId: 0,
          detail: { state: 'idle' },
          file: { state: 'none' },
          json: text,
          jsonProblem: checkJson(text),
          route,
          encoding: s.encoding || preferredEncoding || s.routes.find((r) => r.name === route)?.encoding || encodings[0],
        };
      });
      schedule();
    },
    setBudgetText(text) {
      const r = parseBudget(text);
      update((s) => ({ ...s, budgetText: text, budget: r.ok ? r.value : s.budget, budgetError: r.ok ? null : r.issue }));
      if (r.ok) schedule();
    },
    setBudget(n) {
      const v = Math.max(0, Math.round(n));
      update((s) => ({ ...s, budgetText: String(v), budget: v, budgetError: null }));
      schedule();
    },
    setOff(off) {
      update((s) => ({ ...s, off }));
      schedule();
    },
    setRoute(route) {
      update((s) => ({ ...s, route, encoding: routeEncoding(route) || s.encoding }));
      schedule();
    },
    setEncoding(encoding) {
      update((s) => ({ ...s, encoding }));
      schedule();
    },
    setJson(json) {
      update((s) => ({ ...s, json, jsonProblem: checkJson(json) }));
      schedule();
    },
    setToolName(toolName) {
      update((s) => ({ ...s, toolName }));
      schedule();
    },
    async loadMore() {
      const s = get(store);
      if (s.file.state !== 'ready' || s.file.eof || s.file.more) return;
      const { path, next } = s.file;
      const mine = fileSeq;
      update((x) => (x.file.state === 'ready' ? { ...x, file: { ...x.file, more: true, moreError: null } } : x));
      try {
        const sl = await b.readFile(path, next, page);
        if (mine !== fileSeq) return;
        update((x) => {
          if (x.file.state !== 'ready') return x;
          if (!sl.exists) return { ...x, file: { state: 'missing', path } };
          return {
            ...x,
            file: { ...x.file, text: x.file.text + sl.text, size: sl.size, next: sl.offset + utf8Length(sl.text), eof: sl.eof, more: false },
          };
        });
      } catch (e) {
        if (mine !== fileSeq) return;
        update((x) => (x.file.state === 'ready' ? { ...x, file: { ...x.file, more: false, moreError: failure(e) } } : x));
      }
    },
    rerun: run,
    useDefaults(d) {
      preferredRoute = d.route ?? '';
      preferredEncoding = d.estimator ?? '';
      const v = Math.max(0, Math.round(d.budget));
      update((s) => ({ ...s, budgetText: String(v), budget: v, budgetError: null, off: !!d.off }));
      if (get(store).projection.state !== 'idle') schedule();
    },
    destroy() {
      if (timer) clearTimeout(timer);
      timer = null;
      seq++;
      openSeq++;
      fileSeq++;
    },
  };
}

function sliceState(path: string, sl: FileSlice): FileState {
  if (!sl.exists) return { state: 'missing', path };
  return { state: 'ready', path, text: sl.text, size: sl.size, next: sl.offset + utf8Length(sl.text), eof: sl.eof, more: false, moreError: null };
}

function defaultRoute(routes: RouteInfo[]): string {
  return routes.find((r) => r.name === 'anthropic')?.name ?? routes[0]?.name ?? '';
}

/**
 * checkJson catches what is not JSON, or not shaped like a tool result (a
 * content array, or an object with one), before asking Go, so typing gives
 * instant feedback under the editor rather than an error from the app.
 */
export function checkJson(text: string): JsonProblem {
  if (text.trim() === '') return { kind: 'empty' };
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return { kind: 'invalid', detail: e instanceof Error ? e.message : String(e) };
  }
  const content = Array.isArray(v) ? v : v && typeof v === 'object' ? (v as { content?: unknown }).content : undefined;
  return Array.isArray(content) ? null : { kind: 'shape' };
}
