// The list screens rendered on the server (svelte/server): every virtual
// table's header names each of its columns. A cell added to a row without
// its header (or a column lost in a merge) leaves a column unlabelled for
// readers and screen readers alike; the links list's redacted-URI column and
// the search's match column were lost that way once.
import { describe, expect, it } from 'vitest';
import { render } from 'svelte/server';
import { get } from 'svelte/store';
import { en } from '../i18n/en';
import type { LinkPage, ResultPage, SessionPage } from '../bridge';
import { fakeBridge, page, resultRow, session } from '../test/fakeBridge';
import { createLinksStore } from '../stores/links';
import { createSearchStore } from '../stores/search';
import { createLargestStore } from '../stores/largest';
import { createSessionsStore } from '../stores/sessions';
import { createTimelineStore } from '../stores/timeline';
import LinksScreen from './links/LinksScreen.svelte';
import ResultSearch from './sessions/ResultSearch.svelte';
import LargestResults from './sessions/LargestResults.svelte';
import SessionsList from './sessions/SessionsList.svelte';
import SessionView from './sessions/SessionView.svelte';

/** tableOf reads the one virtual table in body: its column widths and its header cells' text. */
function tableOf(body: string): { cols: number; heads: string[] } {
  const tables = body.match(/<table class="grid vt[\s\S]*?<\/thead>/g) ?? [];
  expect(tables).toHaveLength(1);
  const t = tables[0] ?? '';
  const heads = [...t.matchAll(/<th\b[^>]*>([\s\S]*?)<\/th>/g)].map((m) => m[1].replace(/<[^>]*>/g, '').trim());
  return { cols: (t.match(/<col\b/g) ?? []).length, heads };
}

const link = {
  resultId: 1, sessionId: 1, block: 0, shown: 'stub', line: '', reason: 'credential-parameter', parameter: 'X-Amz-Signature',
  inText: false, tool: 'WebFetch', project: '/p', file: '/f.jsonl', sourceLine: 3, uri: 'https://b.example/k?X-Amz-Signature=…', start: -1, end: -1,
};
const results = (offset: number, limit: number) => page([resultRow({ id: 1 }), resultRow({ id: 2 })], offset, limit) as ResultPage;

const screens: { name: string; html: () => Promise<string>; names?: string[] }[] = [
  {
    name: 'links',
    names: [en.links.uri, en.links.family, en.links.host],
    html: async () => {
      const store = createLinksStore(fakeBridge({ listLinks: (q) => Promise.resolve({ ...page([link], q.offset ?? 0, q.limit ?? 0), hidden: 1, inText: 0 } as LinkPage) }));
      await store.load();
      return render(LinksScreen, { props: { store, onopen: () => {} } }).body;
    },
  },
  {
    name: 'search',
    names: [en.search.snippet, en.search.notice],
    html: async () => {
      const store = createSearchStore(fakeBridge({ searchResults: (q) => Promise.resolve(results(q.offset, q.limit)) }));
      await store.search('panic');
      expect(get(store.hits).total).toBe(2);
      return render(ResultSearch, { props: { store, onopen: () => {} } }).body;
    },
  },
  {
    name: 'largest',
    html: async () => {
      const b = fakeBridge({ largest: (offset, limit) => Promise.resolve(results(offset, limit)) });
      const store = createLargestStore(b);
      await store.reset();
      return render(LargestResults, { props: { store, sessions: createSessionsStore(b), onopen: () => {} } }).body;
    },
  },
  {
    name: 'sessions',
    html: async () => {
      const sessions = createSessionsStore(
        fakeBridge({ listSessions: (q) => Promise.resolve({ ...page([session()], q.offset ?? 0, q.limit ?? 0), sessions: 1 } as SessionPage) }),
      );
      await sessions.refresh();
      return render(SessionsList, { props: { store: sessions, onopen: () => {} } }).body;
    },
  },
  {
    name: 'session',
    html: async () => {
      const sessions = createSessionsStore(fakeBridge({ sessionResults: (q) => Promise.resolve(results(q.offset ?? 0, q.limit ?? 0)) }));
      await sessions.openSession(1);
      const timeline = createTimelineStore(fakeBridge());
      return render(SessionView, {
        props: { store: sessions, session: session(), onback: () => {}, onopen: () => {}, onsweep: () => {}, timeline, onopenid: () => {} },
      }).body;
    },
  },
];

describe('list screens', () => {
  for (const s of screens) {
    it(`${s.name}: the header names every column`, async () => {
      const { cols, heads } = tableOf(await s.html());
      expect(cols).toBeGreaterThan(0);
      expect(heads).toHaveLength(cols);
      for (const n of s.names ?? []) expect(heads).toContain(n);
    });
  }
});
