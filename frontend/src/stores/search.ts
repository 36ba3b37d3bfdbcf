import { get, writable, type Readable } from 'svelte/store';
import type { Bridge, ResultRow, Snippet } from '../bridge';
import { failure } from './common';
import type { List } from './sessions';

export interface SearchState {
  /** query is what was searched last (the box itself is the component's). */
  query: string;
  /** order is "" (relevance), "tokens" (most tokens first, exact once counted) or "source". */
  order: SearchOrder;
  rows: List<ResultRow[]>;
  /** snippets: a few masked words around the match, by result id, filled in after the rows arrive. */
  snippets: Record<number, Snippet>;
}

export type SearchOrder = '' | 'tokens' | 'source';

export interface SearchStore extends Readable<SearchState> {
  /** search asks the full-text index; an empty query clears the list without a call. */
  search(query: string): Promise<void>;
  /** setOrder re-runs the last search in the new order. */
  setOrder(order: SearchOrder): Promise<void>;
}

/** SNIPPET_LIMIT bounds the snippets one search reads back (Go's own bound). */
export const SNIPPET_LIMIT = 200;

/** createSearchStore keeps the last full-text search; a slower earlier answer never replaces a newer one. */
export function createSearchStore(b: Bridge): SearchStore {
  const state = writable<SearchState>({ query: '', order: '', rows: { state: 'idle' }, snippets: {} });
  const { subscribe, set, update } = state;
  let seq = 0;
  async function run(query: string, order: SearchOrder) {
    const mine = ++seq;
    const q = query.trim();
    if (!q) {
      set({ query: '', order, rows: { state: 'idle' }, snippets: {} });
      return;
    }
    update(() => ({ query: q, order, rows: { state: 'loading' }, snippets: {} }));
    try {
      const rows = (await b.searchResults(q, order)) ?? [];
      if (mine !== seq) return;
      set({ query: q, order, rows: { state: 'ready', value: rows }, snippets: {} });
      if (rows.length) void loadSnippets(mine, q, rows);
    } catch (e) {
      if (mine !== seq) return;
      console.error('spillscope: search failed:', e);
      set({ query: q, order, rows: { state: 'error', error: failure(e) }, snippets: {} });
    }
  }
  async function loadSnippets(mine: number, q: string, rows: ResultRow[]) {
    try {
      const got = (await b.snippets(q, rows.slice(0, SNIPPET_LIMIT).map((r) => r.id))) ?? [];
      if (mine !== seq) return;
      const snippets: Record<number, Snippet> = {};
      for (const s of got) snippets[s.id] = s;
      update((s) => ({ ...s, snippets }));
    } catch (e) {
      // A missing snippet costs only the preview line; the query is not logged.
      console.error('spillscope: snippets failed:', e instanceof Error ? e.name : 'error');
    }
  }
  return {
    subscribe,
    search: (query) => run(query, get(state).order),
    setOrder: (order) => run(get(state).query, order),
  };
}
