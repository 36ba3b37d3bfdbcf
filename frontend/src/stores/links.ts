import { get, writable, type Readable } from 'svelte/store';
import type { Bridge, LinkRow } from '../bridge';
import { failure, type Failure } from './common';
import type { List } from './sessions';

export type CheckState =
  | { state: 'idle' }
  | { state: 'loading' }
  | { state: 'ready'; row: LinkRow }
  | { state: 'error'; error: Failure };

export interface LinksState {
  onlyHidden: boolean;
  rows: List<LinkRow[]>;
  check: CheckState;
}

export interface LinksStore extends Readable<LinksState> {
  load(): Promise<void>;
  setOnlyHidden(v: boolean): Promise<void>;
  /** check classifies a URI the user typed; the store keeps only Go's verdict, not the URI. */
  check(uri: string): Promise<void>;
}

/** LINK_LIMIT bounds one page of the links list. */
export const LINK_LIMIT = 2000;

/** isHidden: a link whose URI did not reach the model. */
export function isHidden(r: LinkRow): boolean {
  return r.shown === 'stub' || r.shown === 'marker';
}

export function createLinksStore(b: Bridge): LinksStore {
  const store = writable<LinksState>({ onlyHidden: false, rows: { state: 'idle' }, check: { state: 'idle' } });
  const { subscribe, update } = store;
  let seq = 0;
  let checkSeq = 0;
  async function load() {
    const mine = ++seq;
    const { onlyHidden } = get(store);
    update((s) => ({ ...s, rows: { state: 'loading', value: 'value' in s.rows ? s.rows.value : undefined } }));
    try {
      const rows = (await b.listLinks({ onlyHidden, limit: LINK_LIMIT })) ?? [];
      if (mine !== seq) return;
      update((s) => ({ ...s, rows: { state: 'ready', value: rows } }));
    } catch (e) {
      if (mine !== seq) return;
      console.error('spillscope: list links failed:', e);
      update((s) => ({ ...s, rows: { state: 'error', error: failure(e) } }));
    }
  }
  return {
    subscribe,
    load,
    async setOnlyHidden(v) {
      update((s) => ({ ...s, onlyHidden: v }));
      await load();
    },
    async check(uri) {
      const mine = ++checkSeq;
      if (uri.trim() === '') {
        update((s) => ({ ...s, check: { state: 'idle' } }));
        return;
      }
      update((s) => ({ ...s, check: { state: 'loading' } }));
      try {
        const row = await b.checkLink(uri.trim());
        if (mine !== checkSeq) return;
        update((s) => ({ ...s, check: { state: 'ready', row } }));
      } catch (e) {
        if (mine !== checkSeq) return;
        update((s) => ({ ...s, check: { state: 'error', error: failure(e) } }));
      }
    },
  };
}
