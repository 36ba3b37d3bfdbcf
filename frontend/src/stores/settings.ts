import { get, writable, type Readable } from 'svelte/store';
import type { Bridge, Defaults, Place, RootsView, Settings } from '../bridge';
import { isLang, locale, type Lang } from '../i18n';
import { failure, type Failure } from './common';

export interface SettingsState {
  /** settings as Go saved them; null until loaded. */
  settings: Settings | null;
  roots: RootsView | null;
  /** error is the last failed change (a folder that does not exist, a file that would not save). */
  error: Failure | null;
}

export interface SettingsStore extends Readable<SettingsState> {
  /** load reads the saved settings and applies the language; a failure keeps English and is logged. */
  load(): Promise<Settings | null>;
  /** setLanguage switches at once and saves; if saving fails the switch stays for this window. */
  setLanguage(lang: Lang): Promise<void>;
  current(): Lang;
  loadRoots(): Promise<void>;
  addRoot(path: string): Promise<boolean>;
  removeRoot(path: string): Promise<void>;
  /** chooseRoot opens the folder dialog and adds the folder picked. */
  chooseRoot(title: string): Promise<void>;
  setDefaults(d: Defaults): Promise<void>;
  /** savePlace remembers where the window is: a new screen, session or result at once, a budget once the user pauses (a budget dragged on the slider saves once). */
  savePlace(p: Place): void;
  /** flush saves a place still waiting, now. */
  flush(): void;
  destroy(): void;
}

export interface SettingsOptions {
  placeDebounceMs?: number;
}

/** createSettingsStore keeps the user's settings through Go, so they survive restarts. */
export function createSettingsStore(b: Bridge, opts: SettingsOptions = {}): SettingsStore {
  const wait = opts.placeDebounceMs ?? 400;
  const state = writable<SettingsState>({ settings: null, roots: null, error: null });
  let timer: ReturnType<typeof setTimeout> | null = null;
  let pending: Place | null = null;
  let saved = '';

  // A change that worked clears the last refusal; the language switch keeps
  // it on screen (now in the other language).
  const apply = (s: Settings, clear = true) => state.update((x) => ({ ...x, settings: s, error: clear ? null : x.error }));
  const fail = (e: unknown) => {
    console.error('spillscope: settings:', e);
    state.update((x) => ({ ...x, error: failure(e) }));
  };
  async function refreshRoots() {
    try {
      const roots = await b.roots();
      state.update((x) => ({ ...x, roots }));
    } catch (e) {
      fail(e);
    }
  }
  async function flush() {
    timer = null;
    const p = pending;
    pending = null;
    if (!p) return;
    const key = JSON.stringify(p);
    if (key === saved) return;
    try {
      apply(await b.setPlace(p));
      saved = key;
    } catch (e) {
      fail(e);
    }
  }

  return {
    subscribe: state.subscribe,
    async load() {
      try {
        const s = await b.getSettings();
        if (isLang(s.language)) {
          locale.set(s.language);
          document.documentElement.lang = s.language === 'zh' ? 'zh-CN' : 'en';
        }
        saved = JSON.stringify(s.last);
        apply(s);
        return s;
      } catch (e) {
        fail(e);
        return null;
      }
    },
    async setLanguage(lang) {
      locale.set(lang);
      document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
      try {
        apply(await b.setLanguage(lang), false);
      } catch (e) {
        fail(e);
      }
    },
    current: () => get(locale),
    loadRoots: refreshRoots,
    async addRoot(path) {
      try {
        apply(await b.addRoot(path));
        await refreshRoots();
        return true;
      } catch (e) {
        fail(e);
        return false;
      }
    },
    async removeRoot(path) {
      try {
        apply(await b.removeRoot(path));
        await refreshRoots();
      } catch (e) {
        fail(e);
      }
    },
    async chooseRoot(title) {
      try {
        const p = await b.chooseRoot(title);
        if (p) {
          apply(await b.getSettings());
          await refreshRoots();
        }
      } catch (e) {
        fail(e);
      }
    },
    async setDefaults(d) {
      try {
        apply(await b.setDefaults(d));
      } catch (e) {
        fail(e);
      }
    },
    savePlace(p) {
      const before = pending ?? (saved ? (JSON.parse(saved) as Place | null) : null);
      pending = p;
      if (timer) clearTimeout(timer);
      const moved = !before || before.screen !== p.screen || before.sessionId !== p.sessionId || before.resultId !== p.resultId;
      timer = setTimeout(() => void flush(), moved ? 0 : wait);
    },
    flush() {
      if (timer) clearTimeout(timer);
      void flush();
    },
    destroy() {
      if (timer) clearTimeout(timer);
      void flush();
    },
  };
}
