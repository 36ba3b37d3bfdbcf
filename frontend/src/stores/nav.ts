import { writable, type Readable } from 'svelte/store';
import type { SessionRow } from '../bridge';

/** Screen is a top-level place in the sidebar. */
export type Screen = 'overview' | 'sessions' | 'sweep' | 'links' | 'playground';

/** NavState is where the user is: the screen, and inside Sessions how deep (list, one session, one result). */
export interface NavState {
  screen: Screen;
  session: SessionRow | null;
  resultId: number;
}

export interface NavStore extends Readable<NavState> {
  go(screen: Screen): void;
  /** list shows the sessions list. */
  list(): void;
  openSession(s: SessionRow): void;
  /** openResult opens a result; session undefined keeps the open session, null clears it (opened from elsewhere). */
  openResult(id: number, session?: SessionRow | null): void;
  /** back goes one level up inside Sessions: result -> session -> list. */
  back(): void;
}

export function createNavStore(): NavStore {
  const { subscribe, update } = writable<NavState>({ screen: 'overview', session: null, resultId: 0 });
  return {
    subscribe,
    // Choosing Sessions again while inside it returns to the list, as a sidebar user expects.
    go: (screen) =>
      update((s) => (s.screen === screen && screen === 'sessions' ? { screen, session: null, resultId: 0 } : { ...s, screen })),
    list: () => update(() => ({ screen: 'sessions', session: null, resultId: 0 })),
    openSession: (session) => update(() => ({ screen: 'sessions', session, resultId: 0 })),
    openResult: (resultId, session) =>
      update((s) => ({ screen: 'sessions', session: session === undefined ? s.session : session, resultId })),
    back: () =>
      update((s) => {
        if (s.resultId) return { ...s, resultId: 0 };
        return { ...s, session: null };
      }),
  };
}
