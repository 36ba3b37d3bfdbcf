import { writable, type Readable } from 'svelte/store';
import type { Bridge, ResultRow } from '../bridge';
import { failure } from './common';
import type { List } from './sessions';

export interface SearchState {
  /** query is what was searched last (the box itself is the component's). */
  query: string;
  rows: List<ResultRow[]>;
}

export interface SearchStore extends Readable<SearchState> {
  /** search asks the full-text index; an empty query clears the list without a call. */
  search(query: string): Promise<void>;
}

/** createSearchStore keeps the last full-text search; a slower earlier answer never replaces a newer one. */
export function createSearchStore(b: Bridge): SearchStore {
  const { subscribe, set, update } = writable<SearchState>({ query: '', rows: { state: 'idle' } });
  let seq = 0;
  return {
    subscribe,
    async search(query) {
      const mine = ++seq;
      const q = query.trim();
      if (!q) {
        set({ query: '', rows: { state: 'idle' } });
        return;
      }
      update(() => ({ query: q, rows: { state: 'loading' } }));
      try {
        const rows = (await b.searchResults(q)) ?? [];
        if (mine !== seq) return;
        set({ query: q, rows: { state: 'ready', value: rows } });
      } catch (e) {
        if (mine !== seq) return;
        console.error('spillscope: search failed:', e);
        set({ query: q, rows: { state: 'error', error: failure(e) } });
      }
    },
  };
}
