import { writable, type Readable } from 'svelte/store';
import { errorText, type AppInfo, type Bridge } from '../bridge';

export type Loadable<T> =
  | { state: 'loading' }
  | { state: 'ready'; value: T }
  | { state: 'error'; error: string };

/** AppStore holds the app's facts (version, roots) as loaded from Go. */
export interface AppStore extends Readable<Loadable<AppInfo>> {
  load(): Promise<void>;
}

export function createAppStore(b: Bridge): AppStore {
  const { subscribe, set } = writable<Loadable<AppInfo>>({ state: 'loading' });
  return {
    subscribe,
    async load() {
      set({ state: 'loading' });
      try {
        set({ state: 'ready', value: await b.info() });
      } catch (e) {
        console.error('spillscope: Info failed:', errorText(e));
        set({ state: 'error', error: errorText(e) });
      }
    },
  };
}
