import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { get } from 'svelte/store';
import { createSettingsStore } from './settings';
import { fakeBridge, settings } from '../test/fakeBridge';
import type { Place, RootsView } from '../bridge';
import { locale } from '../i18n';

beforeEach(() => {
  vi.useFakeTimers();
  vi.spyOn(console, 'error').mockImplementation(() => {});
  vi.stubGlobal('document', { documentElement: { lang: '' } });
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  locale.set('en');
});

const place = (over: Partial<Place> = {}): Place => ({ screen: 'sessions', sessionId: 0, resultId: 0, budget: 12500, off: false, ...over }) as Place;

describe('settings store', () => {
  it('applies the saved language on load', async () => {
    const s = createSettingsStore(fakeBridge({ getSettings: () => Promise.resolve(settings({ language: 'zh' })) }));
    const got = await s.load();
    expect(got?.language).toBe('zh');
    expect(get(locale)).toBe('zh');
    expect(get(s).settings?.language).toBe('zh');
  });

  it('saves a new place at once, a budget once the user pauses, and nothing when nothing changed', async () => {
    const setPlace = vi.fn((p: Place) => Promise.resolve(settings({ last: p })));
    const s = createSettingsStore(fakeBridge({ setPlace }), { placeDebounceMs: 300 });
    s.savePlace(place({ budget: 12500 }));
    await vi.advanceTimersByTimeAsync(0);
    expect(setPlace).toHaveBeenCalledTimes(1);
    setPlace.mockClear();
    for (const budget of [1000, 2000, 3000]) s.savePlace(place({ budget }));
    await vi.advanceTimersByTimeAsync(299);
    expect(setPlace).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(setPlace).toHaveBeenCalledTimes(1);
    expect(setPlace).toHaveBeenCalledWith(place({ budget: 3000 }));
    s.savePlace(place({ budget: 3000 }));
    await vi.advanceTimersByTimeAsync(400);
    expect(setPlace).toHaveBeenCalledTimes(1);
  });

  it('adds a folder and refreshes the roots; a refusal is kept, coded, for the screen', async () => {
    const view = { roots: [], saved: [{ harness: 'any', path: '/logs', exists: true, source: 'settings' }], defaults: [], fromEnv: false } as unknown as RootsView;
    const addRoot = vi.fn((p: string) =>
      p === '/nope' ? Promise.reject({ code: 'root-not-folder', params: { path: '/nope' }, detail: '' }) : Promise.resolve(settings({ roots: [p] })),
    );
    const s = createSettingsStore(fakeBridge({ addRoot, roots: () => Promise.resolve(view) }));
    expect(await s.addRoot('/logs')).toBe(true);
    expect(get(s).roots).toEqual(view);
    expect(get(s).settings?.roots).toEqual(['/logs']);
    expect(await s.addRoot('/nope')).toBe(false);
    expect(get(s).error).toMatchObject({ code: 'root-not-folder', params: { path: '/nope' } });
  });

  it('a cancelled folder dialog changes nothing', async () => {
    const getSettings = vi.fn(() => Promise.resolve(settings()));
    const roots = vi.fn();
    const s = createSettingsStore(fakeBridge({ chooseRoot: () => Promise.resolve(''), getSettings, roots }));
    await s.chooseRoot('Add');
    expect(getSettings).not.toHaveBeenCalled();
    expect(roots).not.toHaveBeenCalled();
  });
});
