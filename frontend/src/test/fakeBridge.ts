// A Bridge for unit tests: every method rejects unless the test gives it.
import type { Bridge, GoEvents, IndexStatus, LinkFacets, LiveStatus, Projection, ResultDetail, ResultRow, SessionRow, Settings } from '../bridge';

const unset = (name: string) => () => Promise.reject(new Error(`fake bridge: ${name} not set`));

export function fakeBridge(over: Partial<Bridge> = {}): Bridge {
  return {
    info: unset('info'),
    getSettings: () => Promise.resolve(settings()),
    setLanguage: (l) => Promise.resolve(settings({ language: l })),
    roots: unset('roots'),
    addRoot: unset('addRoot'),
    removeRoot: unset('removeRoot'),
    chooseRoot: unset('chooseRoot'),
    setDefaults: unset('setDefaults'),
    setPlace: (p) => Promise.resolve(settings({ last: p })),
    listSessions: unset('listSessions'),
    session: unset('session'),
    sessionResults: unset('sessionResults'),
    result: unset('result'),
    text: unset('text'),
    diagnostics: unset('diagnostics'),
    startIndex: unset('startIndex'),
    indexStatus: unset('indexStatus'),
    live: () => Promise.resolve(liveStatus()),
    setLivePaused: (paused) => Promise.resolve(liveStatus({ paused })),
    on: () => Promise.resolve(null),
    spillFile: unset('spillFile'),
    searchResults: unset('searchResults'),
    snippets: () => Promise.resolve([]),
    largest: unset('largest'),
    routes: unset('routes'),
    policies: unset('policies'),
    estimators: () => Promise.resolve(['bytes4', 'cl100k_base', 'code-points', 'dsh-meter', 'o200k_base', 'utf16-units', 'utf8-bytes']),
    retain: unset('retain'),
    replay: unset('replay'),
    sweep: unset('sweep'),
    compare: unset('compare'),
    sweepPolicies: unset('sweepPolicies'),
    sweepCuts: unset('sweepCuts'),
    listLinks: unset('listLinks'),
    checkLink: unset('checkLink'),
    linkFacets: () => Promise.resolve({ reasons: [], families: [], hosts: [] } as unknown as LinkFacets),
    chooseExportPath: unset('chooseExportPath'),
    exportTo: unset('exportTo'),
    copyText: unset('copyText'),
    openFile: unset('openFile'),
    revealFile: unset('revealFile'),
    timeline: unset('timeline'),
    calibration: unset('calibration'),
    filled: unset('filled'),
    ...over,
  };
}

export function settings(over: Partial<Settings> = {}): Settings {
  return {
    language: 'en', roots: [], defaults: { budget: 12500, route: '', estimator: '', readTools: [] },
    last: { screen: '', sessionId: 0, resultId: 0, budget: 0, off: false },
    ...over,
  } as Settings;
}

/** page answers one page of rows out of a whole list, as Go does. */
export function page<T>(all: T[], offset: number, limit: number): { rows: T[]; total: number } {
  return { rows: all.slice(offset, offset + limit), total: all.length };
}

export function status(over: Partial<IndexStatus> = {}): IndexStatus {
  return {
    running: false, phase: '', files: 0, filesDone: 0, bytes: 0, bytesDone: 0, rateMBs: 0, error: '',
    sessions: 0, toolResults: 0, images: 0, spillNotices: 0, diagnostics: 0, lastIndexedAgo: '', lastIndexedAt: 0, seq: 0,
    ...over,
  };
}

export function liveStatus(over: Partial<LiveStatus> = {}): LiveStatus {
  return { state: 'live', paused: false, folders: 3, unwatched: 0, everySeconds: 0, setting: '', detail: '', ...over } as LiveStatus;
}

/** events is a bridge's event bus for a test: on subscribes through it, push delivers as Go would. */
export function events() {
  const subs = new Map<string, Set<(d: unknown) => void>>();
  return {
    on: (<K extends keyof GoEvents>(event: K, cb: (data: GoEvents[K]) => void) => {
      const set = subs.get(event) ?? new Set();
      subs.set(event, set);
      set.add(cb as (d: unknown) => void);
      return Promise.resolve(() => set.delete(cb as (d: unknown) => void));
    }) as Bridge['on'],
    push<K extends keyof GoEvents>(event: K, data: GoEvents[K]) {
      for (const cb of subs.get(event) ?? []) cb(data);
    },
    count: (event: string) => subs.get(event)?.size ?? 0,
  };
}

export function session(over: Partial<SessionRow> = {}): SessionRow {
  return {
    id: 1, harness: 'claude-code', harnessLabel: 'Claude Code', sessionId: 's-1', agentId: '', project: '/p', model: 'claude-sonnet-4-5', route: 'anthropic',
    started: '2026-03-02T09:00:00Z', ended: '', file: '/f.jsonl', toolResults: 2, images: 0, spillNotices: 0, textBytes: 10,
    inputTokens: 100, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0, tokens: 50, tokensExact: true,
    title: '', kind: '', parentId: 0, agentType: '', agentDescription: '', modelCalls: 0, compactions: 0, apiErrors: 0, abortedTurns: 0,
    ...over,
  };
}

export function resultRow(over: Partial<ResultRow> = {}): ResultRow {
  return {
    id: 7, sessionId: 1, project: '/p', callId: 'c', tool: 'Bash', time: '', isError: false, textBytes: 100, images: 0, estimatedTokens: -1, tokens: 29, tokensExact: false,
    noticeKind: '', noticePath: '', noticeFileExists: false, noticeFileState: '', file: '/f.jsonl', line: 3,
    cutBy: '', cutOriginalTokens: -1, hasOriginal: false,
    ...over,
  };
}

export function detail(over: Partial<ResultDetail> = {}, row: Partial<ResultRow> = {}): ResultDetail {
  return { row: resultRow(row), session: session(), blocks: [], route: 'anthropic', estimator: 'o200k_base', ...over } as ResultDetail;
}

export function projection(over: Partial<Projection> = {}): Projection {
  return {
    status: 'within_budget', blocks: [], notice: '', omittedBytes: 0, omittedImages: 0,
    tokens: { estimator: 'o200k_base', total: 10, text: 10, images: 0, notice: 0 }, originalTokens: 10, diagnostics: [],
    policy: 'dsh-tokens', route: 'anthropic', estimator: 'o200k_base', budget: 12500, budgetUnit: 'tokens', completeFile: '', completeFileBytes: 0,
    ...over,
  } as Projection;
}

/** deferred is a promise the test settles when it wants, to check ordering. */
export function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
