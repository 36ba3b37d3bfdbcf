import { writable, type Readable } from 'svelte/store';
import type { Bridge, ResultRow } from '../bridge';
import { failure } from './common';
import type { List } from './sessions';

export interface LargestState {
  limit: number;
  rows: List<ResultRow[]>;
}

export interface LargestStore extends Readable<LargestState> {
  /** load asks for the top results by tokens; a limit of 0 keeps the current one. */
  load(limit?: number): Promise<void>;
}

/**
 * createLargestStore keeps the results that cost the most tokens across the
 * index. Their figures are approximations until the token phase has counted
 * them, so the screen reloads the list while an index pass runs; a reload
 * keeps the rows on screen and a slower earlier answer never replaces a newer one.
 */
export function createLargestStore(b: Bridge, initialLimit = 10): LargestStore {
  const { subscribe, update } = writable<LargestState>({ limit: initialLimit, rows: { state: 'idle' } });
  let seq = 0;
  let limit = initialLimit;
  return {
    subscribe,
    async load(next = 0) {
      if (next > 0) limit = next;
      const mine = ++seq;
      update((s) => ({ limit, rows: { state: 'loading', value: 'value' in s.rows ? s.rows.value : undefined } }));
      try {
        const rows = (await b.largest(limit)) ?? [];
        if (mine !== seq) return;
        update(() => ({ limit, rows: { state: 'ready', value: rows } }));
      } catch (e) {
        if (mine !== seq) return;
        console.error('spillscope: largest results failed:', e);
        update(() => ({ limit, rows: { state: 'error', error: failure(e) } }));
      }
    },
  };
}
