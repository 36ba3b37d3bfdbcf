import { writable, type Readable } from 'svelte/store';
import { errorText, type Bridge, type ReplayView } from '../bridge';
import { failure, type Failure } from './common';

export type ReplayState =
  | { state: 'idle' }
  | { state: 'running'; resultId: number }
  | { state: 'ready'; resultId: number; value: ReplayView }
  | { state: 'error'; resultId: number; error: Failure };

/** ReplayStore runs "Replay as recorded" for one result at a time; a later run or reset drops an earlier answer. */
export interface ReplayStore extends Readable<ReplayState> {
  run(resultId: number): Promise<void>;
  reset(): void;
}

export function createReplayStore(b: Bridge): ReplayStore {
  const { subscribe, set } = writable<ReplayState>({ state: 'idle' });
  let seq = 0;
  return {
    subscribe,
    async run(resultId) {
      const mine = ++seq;
      set({ state: 'running', resultId });
      try {
        const value = await b.replay(resultId, null);
        if (mine === seq) set({ state: 'ready', resultId, value });
      } catch (e) {
        console.error('spillscope: Replay failed:', errorText(e));
        if (mine === seq) set({ state: 'error', resultId, error: failure(e) });
      }
    },
    reset() {
      seq++;
      set({ state: 'idle' });
    },
  };
}
