// English is the reference catalogue: zh.ts is type-checked against it, so a
// key missing in Chinese fails the build.
export const en = {
  app: {
    name: 'Spillscope',
    tagline: 'How your agents’ oversized tool results were retained',
  },
  nav: {
    overview: 'Overview',
    sessions: 'Sessions',
    sweep: 'Budget sweep',
    links: 'Links',
    settings: 'Settings',
  },
  language: {
    label: 'Language',
    en: 'English',
    zh: '中文',
  },
  overview: {
    title: 'Overview',
    version: 'Version',
    platform: 'Platform',
    dataDir: 'Index location',
    roots: 'Session folders',
    rootsHint: 'Spillscope reads these folders and never writes into them.',
    exists: 'found',
    missing: 'not found',
    harness: 'Harness',
    path: 'Path',
    status: 'Status',
  },
  empty: {
    sessionsTitle: 'No sessions indexed yet',
    sessionsBody: 'Index a session folder to see its tool results, spill notices and token figures here.',
    sweepTitle: 'Nothing to sweep yet',
    sweepBody: 'Once results are indexed you can re-run retention over many budgets at once.',
    linksTitle: 'No links yet',
    linksBody: 'Links found in indexed tool results appear here, with the reason any were redacted.',
  },
  errors: {
    loadFailed: 'Could not load data from the app.',
    retry: 'Retry',
  },
  common: {
    loading: 'Loading…',
  },
} as const;

type Widen<T> = { -readonly [K in keyof T]: T[K] extends string ? string : Widen<T[K]> };

/** Messages is the shape every language must fill in. */
export type Messages = Widen<typeof en>;
