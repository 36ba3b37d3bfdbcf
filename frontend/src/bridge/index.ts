// The typed bridge: the only module that touches the generated Wails
// bindings. Components and stores import from here, so a renamed Go method
// breaks one file and the type check, not every screen.
import * as AppSvc from '../wailsjs/go/app/App';
import * as SessionsSvc from '../wailsjs/go/app/Sessions';
import * as RetentionSvc from '../wailsjs/go/app/Retention';
import * as LinksSvc from '../wailsjs/go/app/Links';
import { app } from '../wailsjs/go/models';
import type { Params } from '../i18n';

export type AppInfo = app.Info;
export type Root = app.Root;
export type Settings = app.Settings;
export type SessionRow = app.SessionRow;
export type SessionQuery = app.SessionQuery;
export type SessionPage = app.SessionPage;
export type ResultRow = app.ResultRow;
export type ResultPage = app.ResultPage;
export type ResultQuery = app.ResultQuery;
export type LinkPage = app.LinkPage;
export type Defaults = app.Defaults;
export type Place = app.Place;
export type RootsView = app.RootsView;
export type ResultDetail = app.ResultDetail;
export type BlockView = app.BlockView;
export type RouteInfo = app.RouteInfo;
export type RetainRequest = app.RetainRequest;
export type Projection = app.Projection;
export type SweepRequest = app.SweepRequest;
export type SweepRow = app.SweepRow;
export type LinkRow = app.LinkRow;
export type LinkQuery = app.LinkQuery;
export type IndexStatus = app.IndexStatus;
export type Diagnostic = app.Diagnostic;
export type FileSlice = app.FileSlice;

/** SearchPageQuery is one page of a full-text search. */
export interface SearchPageQuery {
  query: string;
  /** order is "" (relevance), "tokens" or "source". */
  order: string;
  offset: number;
  limit: number;
}

/** Bridge is everything the stores need from Go; unit tests pass their own. Lists come a page at a time with the whole list's counts. */
export interface Bridge {
  info(): Promise<AppInfo>;
  getSettings(): Promise<Settings>;
  setLanguage(lang: string): Promise<Settings>;
  roots(): Promise<RootsView>;
  addRoot(path: string): Promise<Settings>;
  removeRoot(path: string): Promise<Settings>;
  /** chooseRoot opens the folder dialog; "" when the user cancelled. */
  chooseRoot(title: string): Promise<string>;
  setDefaults(d: Defaults): Promise<Settings>;
  setPlace(p: Place): Promise<Settings>;
  listSessions(q: Partial<SessionQuery>): Promise<SessionPage>;
  session(id: number): Promise<SessionRow>;
  sessionResults(q: Partial<ResultQuery>): Promise<ResultPage>;
  result(id: number): Promise<ResultDetail>;
  diagnostics(limit: number): Promise<Diagnostic[]>;
  startIndex(): Promise<IndexStatus>;
  indexStatus(): Promise<IndexStatus>;
  readFile(path: string, offset: number, limit: number): Promise<FileSlice>;
  searchResults(q: SearchPageQuery): Promise<ResultPage>;
  /** largest lists the results that cost the most tokens across the index. */
  largest(offset: number, limit: number): Promise<ResultPage>;
  routes(): Promise<RouteInfo[]>;
  retain(req: Partial<RetainRequest>): Promise<Projection>;
  sweep(req: Partial<SweepRequest>): Promise<SweepRow[]>;
  listLinks(q: Partial<LinkQuery>): Promise<LinkPage>;
  checkLink(uri: string): Promise<LinkRow>;
}

const direct: Bridge = {
  info: () => AppSvc.Info(),
  getSettings: () => AppSvc.GetSettings(),
  setLanguage: (lang) => AppSvc.SetLanguage(lang),
  roots: () => AppSvc.Roots(),
  addRoot: (path) => AppSvc.AddRoot(path),
  removeRoot: (path) => AppSvc.RemoveRoot(path),
  chooseRoot: (title) => AppSvc.ChooseRoot(title),
  setDefaults: (d) => AppSvc.SetDefaults(app.Defaults.createFrom(d)),
  setPlace: (p) => AppSvc.SetPlace(app.Place.createFrom(p)),
  listSessions: (q) => SessionsSvc.List(app.SessionQuery.createFrom({ harness: '', search: '', order: '', limit: 0, offset: 0, ...q })),
  session: (id) => SessionsSvc.Session(id),
  sessionResults: (q) =>
    SessionsSvc.Results(app.ResultQuery.createFrom({ sessionId: 0, order: '', onlyNotices: false, offset: 0, limit: 0, ...q })),
  result: (id) => SessionsSvc.Result(id),
  diagnostics: (limit) => SessionsSvc.Diagnostics(limit),
  startIndex: () => SessionsSvc.Index(),
  indexStatus: () => SessionsSvc.Status(),
  readFile: (path, offset, limit) => SessionsSvc.ReadFile(path, offset, limit),
  searchResults: (q) => SessionsSvc.Search(app.SearchQuery.createFrom(q)),
  largest: (offset, limit) => SessionsSvc.Largest(app.PageQuery.createFrom({ offset, limit })),
  routes: () => RetentionSvc.Routes(),
  retain: (req) =>
    RetentionSvc.Retain(
      app.RetainRequest.createFrom({ resultId: 0, json: '', budget: null, route: '', encoding: '', toolName: '', ...req }),
    ),
  sweep: (req) => RetentionSvc.Sweep(app.SweepRequest.createFrom({ resultId: 0, sessionId: 0, budgets: [], route: '', ...req })),
  listLinks: (q) => LinksSvc.List(app.LinkQuery.createFrom({ onlyHidden: false, limit: 0, offset: 0, ...q })),
  checkLink: (uri) => LinksSvc.Check(uri),
};

let goReady: Promise<void> | null = null;

/**
 * ready resolves once Wails has put the Go bindings on window.go. In a
 * browser on the dev server they arrive after the page script has started,
 * so a screen's first calls (settings, the first page of a list) wait for
 * them instead of failing; after 15 s the call goes ahead and fails as it
 * would.
 */
function ready(): Promise<void> {
  const has = () => !!(globalThis as { go?: { app?: unknown } }).go?.app;
  if (has()) return Promise.resolve();
  goReady ??= new Promise((resolve) => {
    const start = Date.now();
    const tick = () => (has() || Date.now() - start > 15000 ? resolve() : setTimeout(tick, 20));
    tick();
  });
  return goReady;
}

function whenReady(b: Bridge): Bridge {
  const out = {} as Record<string, unknown>;
  for (const [name, f] of Object.entries(b) as [string, (...a: unknown[]) => Promise<unknown>][]) {
    out[name] = (...args: unknown[]) => ready().then(() => f(...args));
  }
  return out as unknown as Bridge;
}

/** bridge is what the app uses: every call waits for the bindings first. */
export const bridge: Bridge = whenReady(direct);

/**
 * BridgeError is a failed call as Go reports it (app.Error): a stable code
 * and its params, which screens translate, and the detail underneath for
 * the log and the Details box.
 */
export interface BridgeError {
  code: string;
  params: Params;
  detail: string;
}

function isCoded(v: unknown): v is { code: string; params?: Params | null; detail?: string } {
  return !!v && typeof v === 'object' && typeof (v as { code?: unknown }).code === 'string';
}

/**
 * bridgeError reads a rejected call: Go's {code, params, detail} object, the
 * same as JSON text (a message passed along as a string), or anything else
 * (a Wails timeout, a JavaScript error) as code "failed" with its text.
 */
export function bridgeError(e: unknown): BridgeError {
  let v: unknown = e instanceof Error ? e.message : e;
  if (typeof v === 'string' && v.startsWith('{')) {
    try {
      v = JSON.parse(v);
    } catch {
      /* plain text */
    }
  }
  if (isCoded(v)) return { code: v.code, params: v.params ?? {}, detail: v.detail ?? '' };
  const text = typeof v === 'string' ? v : JSON.stringify(v);
  return { code: 'failed', params: {}, detail: text ?? String(e) };
}

/** errorText turns a rejected binding call into text for the log, never for HTML. */
export function errorText(e: unknown): string {
  const b = bridgeError(e);
  return b.detail || b.code;
}
