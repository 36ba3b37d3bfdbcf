import { writable, type Readable } from 'svelte/store';
import type { SessionRow } from '../bridge';

/** Screen is a top-level place in the sidebar. */
export type Screen = 'largest' | 'sessions' | 'search' | 'sweep' | 'links' | 'playground' | 'settings';

/** screens are the sidebar's places, in its order. */
export const screens: Screen[] = ['largest', 'sessions', 'search', 'sweep', 'links', 'playground', 'settings'];

/** listScreens are the screens whose rows open a result in place (the sweep's cut list among them). */
const listScreens: Screen[] = ['largest', 'sessions', 'search', 'links', 'sweep'];

export function isScreen(v: unknown): v is Screen {
  return typeof v === 'string' && (screens as string[]).includes(v);
}

/**
 * NavState is where the user is: the screen; inside Sessions the open
 * session; and the open result with the list screen it was opened from
 * (the result shows there, and the sweep can take it as its scope).
 */
export interface NavState {
  screen: Screen;
  session: SessionRow | null;
  resultId: number;
  from: Screen;
  /** focus is the place in the open result to scroll to and highlight (a link the audit opened), or null. */
  focus: Focus | null;
}

/** Focus is a block of the result and, in a text block, the byte range of the real text (Go's offsets; -1 for the whole block). */
export interface Focus {
  block: number;
  start: number;
  end: number;
}

export interface NavStore extends Readable<NavState> {
  go(screen: Screen): void;
  /** list shows the sessions list. */
  list(): void;
  openSession(s: SessionRow): void;
  /** openResult opens a result on the current list screen (Sessions from elsewhere); session undefined keeps the open session, null clears it. */
  openResult(id: number, session?: SessionRow | null, focus?: Focus | null): void;
  /** back goes one level up: result -> its list (or session) -> the sessions list. */
  back(): void;
  /** restore puts the window back where it was left. */
  restore(p: { screen: Screen; session: SessionRow | null; resultId: number }): void;
}

/** showsResult: the open result is on screen (its list screen is the current one). */
export function showsResult(n: NavState): boolean {
  return n.resultId > 0 && n.screen === n.from;
}

/** The first screen of a new user: what cost the most context. */
export const FIRST_SCREEN: Screen = 'largest';

export function createNavStore(): NavStore {
  const { subscribe, update, set } = writable<NavState>({ screen: FIRST_SCREEN, session: null, resultId: 0, from: FIRST_SCREEN, focus: null });
  return {
    subscribe,
    // Choosing the current screen again returns to its list, as a sidebar
    // user expects; another screen keeps the place to come back to.
    go: (screen) =>
      update((s) => {
        if (s.screen !== screen) return { ...s, screen };
        const resultId = s.from === screen ? 0 : s.resultId;
        return { ...s, screen, resultId, session: screen === 'sessions' ? null : s.session, focus: resultId ? s.focus : null };
      }),
    list: () => update((s) => ({ ...s, screen: 'sessions', session: null, resultId: 0, from: 'sessions', focus: null })),
    openSession: (session) => update(() => ({ screen: 'sessions', session, resultId: 0, from: 'sessions', focus: null })),
    openResult: (resultId, session, focus) =>
      update((s) => {
        const screen = listScreens.includes(s.screen) ? s.screen : 'sessions';
        return { screen, from: screen, session: session === undefined ? s.session : session, resultId, focus: focus ?? null };
      }),
    back: () =>
      update((s) => {
        if (showsResult(s)) return { ...s, resultId: 0, focus: null };
        if (s.screen === 'sessions') return { ...s, session: null };
        return s;
      }),
    restore: (p) => set({ screen: p.screen, session: p.screen === 'sessions' ? p.session : null, resultId: p.resultId, from: p.screen, focus: null }),
  };
}
