import { getContext, setContext } from 'svelte';
import { readable, writable, type Readable } from 'svelte/store';
import { errorText, type Bridge } from '../bridge';

/**
 * EstimatorsStore is the list of text estimators the retention core registers (Retention.Estimators), read from Go
 * once however many screens ask: the settings screen, the re-run's estimator select and the compare panel all show
 * this one list.
 */
export interface EstimatorsStore extends Readable<string[]> {
  /** load reads the list the first time it is called; later calls share that read (a failed read is tried again). */
  load(): Promise<string[]>;
}

export function createEstimatorsStore(b: Bridge): EstimatorsStore {
  const { subscribe, set } = writable<string[]>([]);
  let read: Promise<string[]> | null = null;
  return {
    subscribe,
    load() {
      read ??= b.estimators().then(
        (names) => {
          set(names ?? []);
          return names ?? [];
        },
        (e) => {
          console.error('spillscope: estimators failed:', errorText(e));
          read = null;
          return [];
        },
      );
      return read;
    },
  };
}

const key = Symbol('estimators');

/** provideEstimators makes the app's one list what useEstimators returns below the calling component. */
export function provideEstimators(s: EstimatorsStore): void {
  setContext(key, s);
}

/** useEstimators is the list provideEstimators gave (an empty list outside the app: a component rendered alone). */
export function useEstimators(): Readable<string[]> {
  return getContext<EstimatorsStore | undefined>(key) ?? readable([]);
}
