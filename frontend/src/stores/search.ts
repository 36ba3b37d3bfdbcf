import { get, writable, type Readable } from 'svelte/store';
import type { Bridge, ResultRow } from '../bridge';
import { failure } from './common';
import type { List } from './sessions';

export interface SearchState {
  /** query is what was searched last (the box itself is the component's). */
  query: string;
  /** order is "" (relevance), "tokens" (most tokens first, exact once counted) or "source". */
  order: SearchOrder;
  rows: List<ResultRow[]>;
}

export type SearchOrder = '' | 'tokens' | 'source';

export interface SearchStore extends Readable<SearchState> {
  /** search asks the full-text index; an empty query clears the list without a call. */
  search(query: string): Promise<void>;
  /** setOrder re-runs the last search in the new order. */
  setOrder(order: SearchOrder): Promise<void>;
}

/** createSearchStore keeps the last full-text search; a slower earlier answer never replaces a newer one. */
export function createSearchStore(b: Bridge): SearchStore {
  const state = writable<SearchState>({ query: '', order: '', rows: { state: 'idle' } });
  const { subscribe, set, update } = state;
  let seq = 0;
  async function run(query: string, order: SearchOrder) {
    const mine = ++seq;
    const q = query.trim();
    if (!q) {
      set({ query: '', order, rows: { state: 'idle' } });
      return;
    }
    update(() => ({ query: q, order, rows: { state: 'loading' } }));
    try {
      const rows = (await b.searchResults(q, order)) ?? [];
      if (mine !== seq) return;
      set({ query: q, order, rows: { state: 'ready', value: rows } });
    } catch (e) {
      if (mine !== seq) return;
      console.error('spillscope: search failed:', e);
      set({ query: q, order, rows: { state: 'error', error: failure(e) } });
    }
  }
  return {
    subscribe,
    search: (query) => run(query, get(state).order),
    setOrder: (order) => run(get(state).query, order),
  };
}
