import { get, writable, type Readable } from 'svelte/store';
import type { Bridge, Diagnostic, IndexStatus, ResultRow, SessionRow } from '../bridge';
import { failure, type Failure } from './common';

/** Known harness names; the filter also offers any other name the index returns. */
export const knownHarnesses = ['claude-code', 'codex', 'gemini-cli', 'dsh', 'spillscope'];

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
  sessions: List<SessionRow[]>;
  /** sessionId is the open session; results are its tool results. */
  sessionId: number;
  results: List<ResultRow[]>;
  diagnostics: List<Diagnostic[]>;
}

export type SessionOrder = '' | 'tokens';

export interface SessionsOptions {
  pollMs?: number;
  searchDebounceMs?: number;
}

export interface SessionsStore extends Readable<SessionsState> {
  /** init loads the index status and the list, and resumes polling if a pass is already running. */
  init(): Promise<void>;
  startIndex(): Promise<void>;
  refresh(): Promise<void>;
  setHarness(h: string): Promise<void>;
  setOrder(o: SessionOrder): Promise<void>;
  /** setSearch waits for typing to pause before asking Go. */
  setSearch(q: string): void;
  openSession(id: number): Promise<void>;
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
    sessions: { state: 'idle' },
    sessionId: 0,
    results: { state: 'idle' },
    diagnostics: { state: 'idle' },
  });
  const { subscribe, update } = store;
  let pollTimer: ReturnType<typeof setTimeout> | null = null;
  let searchTimer: ReturnType<typeof setTimeout> | null = null;
  let listSeq = 0;
  let resultsSeq = 0;
  let destroyed = false;
  let listBusy = false;
  let resultsBusy = false;

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
      if (st.running) {
        schedulePoll();
        // New sessions show up while the pass runs, not only at its end,
        // and the open session's figures turn exact as the token phase
        // counts them.
        // A reload still in flight is not started again.
        if (!listBusy) void loadList();
        const open = get(store).sessionId;
        if (open && !resultsBusy) void loadResults(open);
      } else {
        stopPolling();
        await loadList();
        const open = get(store).sessionId;
        if (open) await loadResults(open);
      }
    } catch (e) {
      console.error('spillscope: index status failed:', e);
      stopPolling();
      update((s) => ({ ...s, indexError: failure(e) }));
    }
  }

  async function loadList() {
    listBusy = true;
    try {
      await fetchList();
    } finally {
      listBusy = false;
    }
  }

  async function loadResults(id: number) {
    resultsBusy = true;
    try {
      await fetchResults(id);
    } finally {
      resultsBusy = false;
    }
  }

  async function fetchList() {
    const seq = ++listSeq;
    const { harness, search, order } = get(store);
    update((s) => ({ ...s, sessions: { state: 'loading', value: 'value' in s.sessions ? s.sessions.value : undefined } }));
    try {
      const rows = (await b.listSessions({ harness, search, order })) ?? [];
      if (seq !== listSeq) return;
      update((s) => {
        const names = new Set(s.harnesses);
        for (const r of rows) if (r.harness) names.add(r.harness);
        return { ...s, sessions: { state: 'ready', value: rows }, harnesses: [...names] };
      });
    } catch (e) {
      if (seq !== listSeq) return;
      console.error('spillscope: list sessions failed:', e);
      update((s) => ({ ...s, sessions: { state: 'error', error: failure(e) } }));
    }
  }

  async function fetchResults(id: number) {
    const seq = ++resultsSeq;
    update((s) => ({ ...s, results: { state: 'loading', value: 'value' in s.results && s.sessionId === id ? s.results.value : undefined } }));
    try {
      const rows = (await b.sessionResults(id)) ?? [];
      if (seq !== resultsSeq) return;
      update((s) => ({ ...s, results: { state: 'ready', value: rows } }));
    } catch (e) {
      if (seq !== resultsSeq) return;
      console.error('spillscope: session results failed:', e);
      update((s) => ({ ...s, results: { state: 'error', error: failure(e) } }));
    }
  }

  return {
    subscribe,
    async init() {
      destroyed = false;
      try {
        const st = await b.indexStatus();
        update((s) => ({ ...s, status: st }));
        if (st.running) schedulePoll();
      } catch (e) {
        update((s) => ({ ...s, indexError: failure(e) }));
      }
      await loadList();
    },
    async startIndex() {
      update((s) => ({ ...s, indexError: null }));
      try {
        const st = await b.startIndex();
        update((s) => ({ ...s, status: st }));
        if (st.running) schedulePoll();
        else await loadList();
      } catch (e) {
        console.error('spillscope: start index failed:', e);
        update((s) => ({ ...s, indexError: failure(e) }));
      }
    },
    refresh: loadList,
    async setHarness(h) {
      update((s) => ({ ...s, harness: h }));
      await loadList();
    },
    async setOrder(o) {
      update((s) => ({ ...s, order: o }));
      await loadList();
    },
    setSearch(q) {
      update((s) => ({ ...s, search: q }));
      if (searchTimer) clearTimeout(searchTimer);
      searchTimer = setTimeout(() => {
        searchTimer = null;
        void loadList();
      }, searchMs);
    },
    async openSession(id) {
      // Another session's rows must never show under this one's header while
      // its own load is in flight; a reload of the same session keeps them.
      update((s) => (s.sessionId === id ? s : { ...s, sessionId: id, results: { state: 'idle' } }));
      await loadResults(id);
    },
    closeSession() {
      resultsSeq++;
      update((s) => ({ ...s, sessionId: 0, results: { state: 'idle' } }));
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
