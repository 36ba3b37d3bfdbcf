import { get, writable, type Readable } from 'svelte/store';
import type { Bridge, Diagnostic, IndexStatus, ResultPage, ResultRow, SessionPage, SessionRow } from '../bridge';
import { failure, type Failure } from './common';
import { createPagedList, type PagedList } from './paged';

/** Known harness names; the filter also offers any other name the index returns. */
export const knownHarnesses = ['claude-code', 'codex', 'gemini-cli', 'dsh', 'opencode', 'copilot-cli', 'goose', 'spillscope'];

export type List<T> = { state: 'idle' } | { state: 'loading'; value?: T } | { state: 'ready'; value: T } | { state: 'error'; error: Failure; value?: T };

export interface SessionsState {
  status: IndexStatus | null;
  /** polling is true while an index pass runs and the store asks for its progress. */
  polling: boolean;
  indexError: Failure | null;
  harness: string;
  search: string;
  /** order is "" (newest first) or "tokens" (most tokens first; exact once the token phase has counted). */
  order: SessionOrder;
  harnesses: string[];
  /** sessionId is the open session; results lists its tool results. */
  sessionId: number;
  /** resultsOrder is "" (file order) or "tokens". */
  resultsOrder: SessionOrder;
  /** onlyNotices keeps the open session's results with a spill notice. */
  onlyNotices: boolean;
  diagnostics: List<Diagnostic[]>;
}

export type SessionOrder = '' | 'tokens';

export interface SessionsOptions {
  pollMs?: number;
  searchDebounceMs?: number;
  pageSize?: number;
}

export interface SessionsStore extends Readable<SessionsState> {
  /** list is the sessions list, a page at a time; its counts say how many sessions and transcripts match. */
  readonly list: PagedList<SessionRow, SessionPage>;
  /** results are the open session's tool results, a page at a time. */
  readonly results: PagedList<ResultRow, ResultPage>;
  /** init loads the index status and the list, and resumes polling if a pass is already running. */
  init(): Promise<void>;
  startIndex(): Promise<void>;
  refresh(): Promise<void>;
  setHarness(h: string): Promise<void>;
  setOrder(o: SessionOrder): Promise<void>;
  /** setSearch waits for typing to pause before asking Go. */
  setSearch(q: string): void;
  openSession(id: number): Promise<void>;
  setResultsOrder(o: SessionOrder): Promise<void>;
  setOnlyNotices(v: boolean): Promise<void>;
  closeSession(): void;
  loadDiagnostics(limit?: number): Promise<void>;
  /** destroy stops polling and pending timers (the screen unmounted). */
  destroy(): void;
}

export function createSessionsStore(b: Bridge, opts: SessionsOptions = {}): SessionsStore {
  const pollMs = opts.pollMs ?? 500;
  const searchMs = opts.searchDebounceMs ?? 200;
  const store = writable<SessionsState>({
    status: null,
    polling: false,
    indexError: null,
    harness: '',
    search: '',
    order: '',
    harnesses: [...knownHarnesses],
    sessionId: 0,
    resultsOrder: '',
    onlyNotices: false,
    diagnostics: { state: 'idle' },
  });
  const { subscribe, update } = store;
  let pollTimer: ReturnType<typeof setTimeout> | null = null;
  let searchTimer: ReturnType<typeof setTimeout> | null = null;
  let destroyed = false;

  const list = createPagedList<SessionRow, SessionPage>(
    async (offset, limit) => {
      const { harness, search, order } = get(store);
      const page = await b.listSessions({ harness, search, order, offset, limit });
      // The filter offers every harness the index holds.
      const names = new Set(get(store).harnesses);
      const before = names.size;
      for (const r of page.rows ?? []) if (r.harness) names.add(r.harness);
      if (names.size !== before) update((s) => ({ ...s, harnesses: [...names] }));
      return page;
    },
    { pageSize: opts.pageSize, what: 'list sessions' },
  );

  const results = createPagedList<ResultRow, ResultPage>(
    (offset, limit) => {
      const { sessionId, resultsOrder, onlyNotices } = get(store);
      return b.sessionResults({ sessionId, order: resultsOrder, onlyNotices, offset, limit });
    },
    { pageSize: opts.pageSize, what: 'session results' },
  );

  function stopPolling() {
    if (pollTimer) clearTimeout(pollTimer);
    pollTimer = null;
    update((s) => ({ ...s, polling: false }));
  }

  function schedulePoll() {
    if (destroyed) return;
    if (pollTimer) clearTimeout(pollTimer);
    update((s) => ({ ...s, polling: true }));
    pollTimer = setTimeout(poll, pollMs);
  }

  async function poll() {
    pollTimer = null;
    try {
      const st = await b.indexStatus();
      if (destroyed) return;
      update((s) => ({ ...s, status: st }));
      // New sessions show up while the pass runs, not only at its end, and
      // the open session's figures turn exact as the token phase counts
      // them. A reload still in flight is not started twice.
      const open = get(store).sessionId;
      if (st.running) {
        schedulePoll();
        void list.reload();
        if (open) void results.reload();
      } else {
        stopPolling();
        await Promise.all([list.reload(), open ? results.reload() : Promise.resolve()]);
      }
    } catch (e) {
      console.error('spillscope: index status failed:', e);
      stopPolling();
      update((s) => ({ ...s, indexError: failure(e) }));
    }
  }

  return {
    subscribe,
    list,
    results,
    async init() {
      destroyed = false;
      // The first rows do not wait on the status: its totals count the
      // whole index.
      const rows = list.reset();
      try {
        const st = await b.indexStatus();
        update((s) => ({ ...s, status: st }));
        if (st.running) schedulePoll();
      } catch (e) {
        update((s) => ({ ...s, indexError: failure(e) }));
      }
      await rows;
    },
    async startIndex() {
      update((s) => ({ ...s, indexError: null }));
      try {
        const st = await b.startIndex();
        update((s) => ({ ...s, status: st }));
        if (st.running) schedulePoll();
        else await list.reload();
      } catch (e) {
        console.error('spillscope: start index failed:', e);
        update((s) => ({ ...s, indexError: failure(e) }));
      }
    },
    refresh: () => list.reset(),
    async setHarness(h) {
      update((s) => ({ ...s, harness: h }));
      await list.reset();
    },
    async setOrder(o) {
      update((s) => ({ ...s, order: o }));
      await list.reset();
    },
    setSearch(q) {
      update((s) => ({ ...s, search: q }));
      if (searchTimer) clearTimeout(searchTimer);
      searchTimer = setTimeout(() => {
        searchTimer = null;
        void list.reset();
      }, searchMs);
    },
    async openSession(id) {
      // Another session's rows never show under this one's header: they
      // are dropped before its first page is asked for. The same session
      // again keeps its rows and refreshes them.
      if (get(store).sessionId === id) return results.reload();
      update((s) => ({ ...s, sessionId: id }));
      await results.reset();
    },
    async setResultsOrder(o) {
      update((s) => ({ ...s, resultsOrder: o }));
      if (get(store).sessionId) await results.reset();
    },
    async setOnlyNotices(v) {
      update((s) => ({ ...s, onlyNotices: v }));
      if (get(store).sessionId) await results.reset();
    },
    closeSession() {
      update((s) => ({ ...s, sessionId: 0 }));
      results.clear();
    },
    async loadDiagnostics(limit = 200) {
      update((s) => ({ ...s, diagnostics: { state: 'loading' } }));
      try {
        const rows = (await b.diagnostics(limit)) ?? [];
        update((s) => ({ ...s, diagnostics: { state: 'ready', value: rows } }));
      } catch (e) {
        update((s) => ({ ...s, diagnostics: { state: 'error', error: failure(e) } }));
      }
    },
    destroy() {
      destroyed = true;
      if (pollTimer) clearTimeout(pollTimer);
      if (searchTimer) clearTimeout(searchTimer);
      pollTimer = searchTimer = null;
      update((s) => ({ ...s, polling: false }));
    },
  };
}
