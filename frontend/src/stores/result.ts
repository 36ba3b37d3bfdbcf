import { get, writable, type Readable } from 'svelte/store';
import type { Bridge, FileSlice, MaskSpan, PolicyInfo, Projection, RetainRequest, ResultDetail, RouteInfo } from '../bridge';
import { parseBudget, utf8Length, type BudgetIssue } from '../lib/format';
import { PageCache, type TextPages } from '../lib/pages';
import { failure, type Failure } from './common';
import type { List } from './sessions';

/** DEFAULT_BUDGET is the budget a re-run starts at. */
export const DEFAULT_BUDGET = 12500;
/** FILE_PAGE is how much of a spill file one "load more" reads. */
export const FILE_PAGE = 64 * 1024;
/** DEFAULT_POLICY is the seed's policy, dsh's token era. */
export const DEFAULT_POLICY = 'dsh-tokens';

/**
 * FileState is the spill pane. Go decides which file a result's notice names and whether the file rule lets it be
 * opened: 'missing' where the harness would have written it, 'outside' (not opened: outside the folders the
 * session's harness writes; other: in another session's spill folder, not followed), 'unreadable' (not a
 * regular file, or not readable).
 */
export type FileState =
  | { state: 'none' }
  | { state: 'loading'; path: string }
  | { state: 'missing'; path: string }
  | { state: 'outside'; path: string; other?: boolean }
  | { state: 'unreadable'; path: string; detail: string }
  | { state: 'error'; path: string; error: Failure }
  | {
      state: 'ready';
      path: string;
      text: string;
      /** masks: where each loaded page's [redacted] placeholders stand, offsets into text. */
      masks: MaskSpan[];
      size: number;
      next: number;
      eof: boolean;
      more: boolean;
      moreError: Failure | null;
    };

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
  /** estimator names the text estimator; every figure is on it. */
  estimator: string;
  /** policy names the retention policy; the budget is in its unit. */
  policy: string;
  policies: PolicyInfo[];
  json: string;
  jsonProblem: JsonProblem;
  toolName: string;
  projection: List<Projection>;
  file: FileState;
  /**
   * reveal: the user asked to see this result's credential values. It lives
   * only here, for the open result: opening another result, the playground
   * or closing resets it, and it is never saved or logged.
   */
  reveal: boolean;
}

export interface ResultOptions {
  /** debounceMs waits for a pause in pasted JSON before asking Go (an indexed result asks at once). */
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
  setEstimator(estimator: string): void;
  /** setPolicy switches the policy and moves the budget to its shipped default, in its unit. */
  setPolicy(policy: string): void;
  setJson(json: string): void;
  setToolName(name: string): void;
  loadMore(): Promise<void>;
  /** rerun asks Go at once, without the debounce (a retry button). */
  rerun(): Promise<void>;
  /** pages reads the open result's paged texts; pages are kept while the result and its reveal stay. */
  pages: TextPages;
  /** setReveal shows (or masks again) the open result's credential values in every pane. */
  setReveal(on: boolean): Promise<void>;
  /**
   * close is called when the result's view goes away. Revealed values go
   * with it: the store forgets the result it showed them in, so reopening
   * reads it again, masked.
   */
  close(): void;
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
    estimator: '',
    policy: DEFAULT_POLICY,
    policies: [],
    json: '',
    jsonProblem: { kind: 'empty' },
    toolName: '',
    projection: { state: 'idle' },
    file: { state: 'none' },
    reveal: false,
  });
  const { subscribe, update } = store;
  let timer: ReturnType<typeof setTimeout> | null = null;
  // The user's default route (pasted results) and estimator (every result).
  let preferredRoute = '';
  let preferredEstimator = '';
  let seq = 0;
  let openSeq = 0;
  let fileSeq = 0;
  // One re-run at a time: a change while one is in flight is sent when it
  // answers, as the newest state then, so a drag never queues stale budgets.
  let inFlight = false;
  let again = false;
  const cache = new PageCache();
  let lastRequest: Partial<RetainRequest> | null = null;

  function request(s: ResultState): Partial<RetainRequest> | null {
    if (!s.off && s.budgetError) return null;
    const budget = s.off ? undefined : s.budget;
    const reveal = s.reveal ? { reveal: true } : {};
    if (s.mode === 'paste') {
      if (s.jsonProblem) return null;
      return { json: s.json, budget, route: s.route, estimator: s.estimator, policy: s.policy, toolName: s.toolName, ...reveal };
    }
    if (!s.resultId || s.detail.state !== 'ready') return null;
    return { resultId: s.resultId, budget, route: s.route, estimator: s.estimator, policy: s.policy, ...reveal, paged: true };
  }

  const loading = () => update((s) => ({ ...s, projection: { state: 'loading', value: 'value' in s.projection ? s.projection.value : undefined } }));

  async function run(first?: Partial<RetainRequest>) {
    timer = null;
    if (inFlight) {
      again = true;
      loading();
      return;
    }
    const req = first ?? request(get(store));
    const mine = ++seq;
    if (!req) {
      update((s) => ({ ...s, projection: { state: 'idle' } }));
      return;
    }
    loading();
    inFlight = true;
    let p: Projection | undefined;
    let err: unknown;
    try {
      p = await b.retain(req);
    } catch (e) {
      err = e;
    }
    inFlight = false;
    const superseded = mine !== seq; // the result was closed, or another opened
    const newer = again;
    again = false;
    if (newer) void run();
    if (superseded) return;
    if (err !== undefined) {
      if (newer) return; // the newer request answers for the pane
      console.error('spillscope: retain failed:', err);
      update((s) => ({ ...s, projection: { state: 'error', error: failure(err) } }));
      return;
    }
    lastRequest = req;
    // While a newer request is out, the answer shows, marked as waiting.
    const value = p as Projection;
    update((s) => ({ ...s, projection: newer ? { state: 'loading', value } : { state: 'ready', value } }));
  }

  function schedule() {
    if (timer) clearTimeout(timer);
    timer = null;
    if (get(store).mode === 'paste') timer = setTimeout(() => void run(), debounceMs);
    else void run();
  }

  /** forget drops the kept pages (another result, or its credentials shown or masked again). */
  function forget() {
    cache.clear();
    lastRequest = null;
  }

  const pages: TextPages = {
    block(block, offset) {
      const s = get(store);
      const id = s.resultId;
      const reveal = s.reveal;
      return cache.get(`${id}:${reveal}:b${block}`, offset, () => b.text(reveal ? { resultId: id, block, offset, reveal } : { resultId: id, block, offset }));
    },
    file(key, offset) {
      const s = get(store);
      const id = s.resultId;
      const reveal = s.reveal;
      const retain = lastRequest ?? request(s);
      return cache.get(`${id}:${reveal}:f${key}`, offset, () =>
        b.text({ resultId: id, block: -1, offset, ...(reveal ? { reveal } : {}), retain: retain as RetainRequest, fileKey: key }),
      );
    },
  };

  function routeEstimator(name: string): string {
    return get(store).routes.find((r) => r.name === name)?.estimator ?? '';
  }

  function readPage(id: number, offset: number): Promise<FileSlice> {
    return get(store).reveal ? b.spillFile(id, offset, page, true) : b.spillFile(id, offset, page);
  }

  async function readFirst(id: number, path: string) {
    const mine = ++fileSeq;
    update((s) => ({ ...s, file: { state: 'loading', path } }));
    try {
      const sl = await readPage(id, 0);
      if (mine !== fileSeq) return;
      update((s) => ({ ...s, file: sliceState(sl) }));
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
      try {
        const policies = (await b.policies()) ?? [];
        update((s) => ({ ...s, policies }));
      } catch (e) {
        console.error('spillscope: policies failed:', e);
      }
    },
    async open(id) {
      const mine = ++openSeq;
      fileSeq++;
      seq++;
      again = false;
      forget();
      if (timer) clearTimeout(timer);
      update((s) => ({ ...s, mode: 'result', resultId: id, detail: { state: 'loading' }, projection: { state: 'idle' }, file: { state: 'none' }, reveal: false }));
      // The re-run does not wait for the result's detail: with no route Go
      // prices it on the session's own and that route's estimator (unless
      // the user chose one), which the detail then names.
      const s0 = get(store);
      const first = !s0.off && s0.budgetError ? null : { resultId: id, budget: s0.off ? undefined : s0.budget, route: '', estimator: preferredEstimator, policy: s0.policy, paged: true };
      const projected = first ? run(first) : Promise.resolve();
      try {
        const d = await b.result(id);
        if (mine !== openSeq) return;
        update((s) => ({ ...s, detail: { state: 'ready', value: d }, route: d.route || s.route, estimator: preferredEstimator || d.estimator || routeEstimator(d.route) || s.estimator }));
        if (d.row?.noticeKind || d.row?.noticePath) void readFirst(id, d.row.noticePath);
        // A session without a route is re-run on the route the window had.
        if (!first || !d.route) await run();
        else await projected;
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
          reveal: false,
          json: text,
          jsonProblem: checkJson(text),
          route,
          estimator: s.estimator || preferredEstimator || s.routes.find((r) => r.name === route)?.estimator || '',
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
      update((s) => ({ ...s, route, estimator: routeEstimator(route) || s.estimator }));
      schedule();
    },
    setEstimator(estimator) {
      update((s) => ({ ...s, estimator }));
      schedule();
    },
    setPolicy(policy) {
      update((s) => {
        const info = s.policies.find((p) => p.name === policy);
        if (!info || info.name === s.policy) return { ...s, policy };
        const v = info.defaultBudget;
        return { ...s, policy, budget: v, budgetText: String(v), budgetError: null };
      });
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
      const { next } = s.file;
      const mine = fileSeq;
      update((x) => (x.file.state === 'ready' ? { ...x, file: { ...x.file, more: true, moreError: null } } : x));
      try {
        const sl = await readPage(s.resultId, next);
        if (mine !== fileSeq) return;
        update((x) => {
          if (x.file.state !== 'ready') return x;
          if (fileStateOf(sl) !== 'exists') return { ...x, file: sliceState(sl) };
          return {
            ...x,
            file: {
              ...x.file,
              text: x.file.text + sl.text,
              masks: [...x.file.masks, ...shiftMasks(sl.masks, utf8Length(x.file.text))],
              size: sl.size,
              next: nextOffset(sl),
              eof: sl.eof,
              more: false,
            },
          };
        });
      } catch (e) {
        if (mine !== fileSeq) return;
        update((x) => (x.file.state === 'ready' ? { ...x, file: { ...x.file, more: false, moreError: failure(e) } } : x));
      }
    },
    rerun: run,
    pages,
    async setReveal(on) {
      const s = get(store);
      if (s.reveal === on) return;
      forget();
      update((x) => ({ ...x, reveal: on }));
      if (s.mode === 'result' && s.resultId) {
        const mine = ++openSeq;
        try {
          const d = await b.result(s.resultId, on || undefined);
          if (mine !== openSeq) return;
          update((x) => ({ ...x, detail: { state: 'ready', value: d } }));
        } catch (e) {
          if (mine !== openSeq) return;
          console.error('spillscope: result failed:', e);
          update((x) => ({ ...x, detail: { state: 'error', error: failure(e) } }));
        }
        const d = get(store).detail;
        if (d.state === 'ready' && (d.value.row?.noticeKind || d.value.row?.noticePath)) void readFirst(s.resultId, d.value.row.noticePath);
      }
      await run();
    },
    close() {
      if (!get(store).reveal) return;
      if (timer) clearTimeout(timer);
      timer = null;
      seq++;
      openSeq++;
      fileSeq++;
      again = false;
      forget();
      update((s) => ({ ...s, mode: 'result', resultId: 0, detail: { state: 'idle' }, projection: { state: 'idle' }, file: { state: 'none' }, reveal: false }));
    },
    useDefaults(d) {
      preferredRoute = d.route ?? '';
      preferredEstimator = d.estimator ?? '';
      const v = Math.max(0, Math.round(d.budget));
      update((s) => ({ ...s, budgetText: String(v), budget: v, budgetError: null, off: !!d.off }));
      if (get(store).projection.state !== 'idle') schedule();
    },
    destroy() {
      if (timer) clearTimeout(timer);
      timer = null;
      again = false;
      forget();
      seq++;
      openSeq++;
      fileSeq++;
      update((s) => ({ ...s, reveal: false }));
    },
  };
}

/** fileStateOf is the file rule's verdict in a slice (older bindings only said whether the file exists). */
export function fileStateOf(sl: FileSlice): string {
  return sl.state || (sl.exists ? 'exists' : 'missing');
}

function sliceState(sl: FileSlice): FileState {
  const path = sl.path;
  switch (fileStateOf(sl)) {
    case 'exists':
      return { state: 'ready', path, text: sl.text, masks: sl.masks ?? [], size: sl.size, next: nextOffset(sl), eof: sl.eof, more: false, moreError: null };
    case 'outside':
    case 'other-session':
      return fileStateOf(sl) === 'other-session' ? { state: 'outside', path, other: true } : { state: 'outside', path };
    case 'unreadable':
      return { state: 'unreadable', path, detail: sl.detail ?? '' };
    default:
      return { state: 'missing', path };
  }
}

/** nextOffset is where the next page starts in the real file: Go says, since a masked page's text is not the page's length. */
function nextOffset(sl: FileSlice): number {
  return typeof sl.next === 'number' ? sl.next : sl.offset + utf8Length(sl.text);
}

/** shiftMasks moves a page's masks to where the page lands in the joined text. */
function shiftMasks(masks: MaskSpan[] | null | undefined, by: number): MaskSpan[] {
  return (masks ?? []).map((m) => ({ ...m, at: m.at + by }));
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
