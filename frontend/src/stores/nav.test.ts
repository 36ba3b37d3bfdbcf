import { describe, expect, it } from 'vitest';
import { get } from 'svelte/store';
import { createNavStore, showsResult } from './nav';
import { session } from '../test/fakeBridge';

describe('nav store', () => {
  it('opens on the largest results', () => {
    expect(get(createNavStore())).toEqual({ screen: 'largest', session: null, resultId: 0, from: 'largest' });
  });
  it('goes list -> session -> result and back up one level at a time', () => {
    const n = createNavStore();
    n.go('sessions');
    n.openSession(session({ id: 3 }));
    n.openResult(9);
    expect(get(n)).toMatchObject({ screen: 'sessions', resultId: 9, session: { id: 3 }, from: 'sessions' });
    n.back();
    expect(get(n)).toMatchObject({ resultId: 0, session: { id: 3 } });
    n.back();
    expect(get(n)).toMatchObject({ resultId: 0, session: null });
  });
  it('opens a result where its list is, and back returns to that list', () => {
    const n = createNavStore();
    n.openResult(5, null);
    expect(get(n)).toEqual({ screen: 'largest', session: null, resultId: 5, from: 'largest' });
    expect(showsResult(get(n))).toBe(true);
    n.go('sessions');
    expect(showsResult(get(n))).toBe(false); // the sessions list shows, the result waits on Largest
    n.go('largest');
    expect(showsResult(get(n))).toBe(true);
    n.back();
    expect(get(n)).toMatchObject({ screen: 'largest', resultId: 0 });
    n.go('sweep');
    n.openResult(6);
    expect(get(n)).toMatchObject({ screen: 'sessions', from: 'sessions', resultId: 6 });
  });
  it('choosing the current screen again returns to its list; other screens keep the place', () => {
    const n = createNavStore();
    n.openSession(session());
    n.openResult(9);
    n.go('sweep');
    expect(get(n)).toMatchObject({ screen: 'sweep', resultId: 9 });
    n.go('sessions');
    expect(get(n)).toMatchObject({ screen: 'sessions', resultId: 9 });
    n.go('sessions');
    expect(get(n)).toEqual({ screen: 'sessions', session: null, resultId: 0, from: 'sessions' });
  });
  it('restores a saved place', () => {
    const n = createNavStore();
    n.restore({ screen: 'sessions', session: session({ id: 4 }), resultId: 8 });
    expect(get(n)).toMatchObject({ screen: 'sessions', session: { id: 4 }, resultId: 8, from: 'sessions' });
    n.restore({ screen: 'links', session: session(), resultId: 0 });
    expect(get(n)).toEqual({ screen: 'links', session: null, resultId: 0, from: 'links' });
  });
});
