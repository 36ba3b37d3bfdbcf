import { describe, expect, it } from 'vitest';
import { get } from 'svelte/store';
import { createNavStore } from './nav';
import { session } from '../test/fakeBridge';

describe('nav store', () => {
  it('goes list -> session -> result and back up one level at a time', () => {
    const n = createNavStore();
    n.go('sessions');
    n.openSession(session({ id: 3 }));
    n.openResult(9);
    expect(get(n)).toMatchObject({ screen: 'sessions', resultId: 9, session: { id: 3 } });
    n.back();
    expect(get(n)).toMatchObject({ resultId: 0, session: { id: 3 } });
    n.back();
    expect(get(n)).toMatchObject({ resultId: 0, session: null });
  });
  it('choosing Sessions again returns to the list; other screens keep the place', () => {
    const n = createNavStore();
    n.openSession(session());
    n.openResult(9);
    n.go('sweep');
    expect(get(n)).toMatchObject({ screen: 'sweep', resultId: 9 });
    n.go('sessions');
    expect(get(n)).toMatchObject({ screen: 'sessions', resultId: 9 });
    n.go('sessions');
    expect(get(n)).toEqual({ screen: 'sessions', session: null, resultId: 0 });
  });
  it('opening a result from elsewhere with null clears the session', () => {
    const n = createNavStore();
    n.openSession(session());
    n.go('links');
    n.openResult(5, null);
    expect(get(n)).toEqual({ screen: 'sessions', session: null, resultId: 5 });
  });
});
