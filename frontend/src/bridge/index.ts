// The typed bridge: the only module that touches the generated Wails
// bindings. Components and stores import from here, so a renamed Go method
// breaks one file and the type check, not every screen.
import * as AppSvc from '../wailsjs/go/app/App';
import * as SessionsSvc from '../wailsjs/go/app/Sessions';
import * as RetentionSvc from '../wailsjs/go/app/Retention';
import * as LinksSvc from '../wailsjs/go/app/Links';
import * as DesktopSvc from '../wailsjs/go/app/Desktop';
import * as ExportsSvc from '../wailsjs/go/app/Exports';
import { ClipboardSetText, EventsOn } from '../wailsjs/runtime/runtime';
import { app, sessions } from '../wailsjs/go/models';
import type { Params } from '../i18n';
import { firstPageNow, firstPageOnItsWay } from '../lib/firstpage';
import { starting } from '../lib/startup';

export type AppInfo = app.Info;
export type Root = app.Root;
export type Settings = app.Settings;
export type SessionRow = app.SessionRow;
export type SessionQuery = app.SessionQuery;
export type SessionPage = app.SessionPage;
export type ResultRow = app.ResultRow;
export type ResultPage = app.ResultPage;
export type ResultsQuery = app.ResultsQuery;
export type LinkPage = app.LinkPage;
export type Defaults = app.Defaults;
export type Place = app.Place;
export type RootsView = app.RootsView;
export type ResultDetail = app.ResultDetail;
export type BlockView = app.BlockView;
export type RouteInfo = app.RouteInfo;
export type PolicyInfo = app.PolicyInfo;
export type RetainRequest = app.RetainRequest;
export type Projection = app.Projection;
export type SweepRequest = app.SweepRequest;
export type SweepRow = app.SweepRow;
export type ParamInfo = app.ParamInfo;
export type CompareRequest = app.CompareRequest;
export type CompareView = app.CompareView;
export type CompareColumn = app.CompareColumn;
export type SweepPoliciesRequest = app.SweepPoliciesRequest;
export type SweepSeries = app.SweepSeries;
export type SweepCutsRequest = app.SweepCutsRequest;
export type CutList = sessions.CutList;
export type CutRow = sessions.CutRow;
export type CutFigures = sessions.CutFigures;
export type LinkRow = app.LinkRow;
export type LinkQuery = app.LinkQuery;
export type IndexStatus = app.IndexStatus;
export type Diagnostic = app.Diagnostic;
export type FileSlice = app.FileSlice;
export type MaskSpan = app.MaskSpan;
export type Snippet = app.Snippet;
export type TextPage = app.TextPage;
export type TextSpan = app.TextSpan;
export type TextQuery = app.TextQuery;
export type ReplayView = app.ReplayView;
export type ReplacedView = app.ReplacedView;
export type FileTarget = app.FileTarget;
export type FileAction = app.FileAction;
export type LinkFacets = app.LinkFacets;
export type FacetCount = app.FacetCount;
export type ExportRequest = app.ExportRequest;
export type ExportResult = app.ExportResult;
export type ResultsExport = app.ResultsExport;
export type ReportRequest = app.ReportRequest;

/** ExportAsk is an export without its format and path: what a screen shows, in its subject's request. */
export interface ExportAsk {
  what: string;
  sweep?: Record<string, unknown>;
  policies?: Record<string, unknown>;
  results?: Record<string, unknown>;
  links?: Record<string, unknown>;
  compare?: Record<string, unknown>;
  report?: Record<string, unknown>;
}
export type Timeline = app.Timeline;
export type TimelineLane = app.TimelineLane;
export type TimelineCall = app.TimelineCall;
export type TimelineResult = app.TimelineResult;
export type TimelineCompaction = app.TimelineCompaction;
export type Calibration = app.Calibration;
export type CalibrationView = app.CalibrationView;
export type FilledQuery = app.FilledQuery;
export type Filled = app.Filled;
export type FilledResult = app.FilledResult;
export type LiveStatus = app.LiveStatus;

/** IndexChange is what Go pushes after a pass changed the index (app.IndexChange): the rows named, All when every list should reload, and the status after. */
export interface IndexChange {
  sessions: number[];
  results: number[];
  all: boolean;
  status: IndexStatus;
}

/** The events Go pushes (app.Event*), with their payloads. */
export interface GoEvents {
  'index:changed': IndexChange;
  'index:progress': IndexStatus;
  'live:status': LiveStatus;
}

/** Unsubscribe ends a subscription. */
export type Unsubscribe = () => void;

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
  sessionResults(q: Partial<ResultsQuery>): Promise<ResultPage>;
  /** result reads one result back, its text blocks paged (see text); reveal shows its credential values (asked for by the user, never remembered). */
  result(id: number, reveal?: boolean): Promise<ResultDetail>;
  /** text reads the page holding an offset of an indexed result's block, or of a decision's complete file (block -1). */
  text(q: Partial<TextQuery>): Promise<TextPage>;
  diagnostics(limit: number): Promise<Diagnostic[]>;
  startIndex(): Promise<IndexStatus>;
  indexStatus(): Promise<IndexStatus>;
  /** live says what the watcher of the session folders is doing; setLivePaused pauses or resumes it. */
  live(): Promise<LiveStatus>;
  setLivePaused(paused: boolean): Promise<LiveStatus>;
  /** on subscribes to an event Go pushes; it resolves null where the window's runtime is absent (no events reach the page). */
  on<K extends keyof GoEvents>(event: K, cb: (data: GoEvents[K]) => void): Promise<Unsubscribe | null>;
  /** spillFile reads a page of an indexed result's spill file: Go picks the file and says whether it may be opened (slice.state); credential values are masked unless reveal. */
  spillFile(resultId: number, offset: number, limit: number, reveal?: boolean): Promise<FileSlice>;
  searchResults(q: SearchPageQuery): Promise<ResultPage>;
  /** snippets reads a few masked words around the query in each result. */
  snippets(query: string, ids: number[]): Promise<Snippet[]>;
  /** largest lists the results that cost the most tokens across the index. */
  largest(offset: number, limit: number): Promise<ResultPage>;
  /** largestNow is largest's page when the window already holds it (the first page, asked for while the page loaded), once; undefined otherwise. */
  largestNow?(offset: number, limit: number): ResultPage | undefined;
  routes(): Promise<RouteInfo[]>;
  /** policies declares the retention policies (name, budget parameter, unit, shipped budget). */
  policies(): Promise<PolicyInfo[]>;
  /** estimators lists the text estimators the retention core registers. */
  estimators(): Promise<string[]>;
  retain(req: Partial<RetainRequest>): Promise<Projection>;
  /** replay replays an indexed result's recorded decision as recorded (budget null: the shipped default, then the range that reproduces). */
  replay(resultId: number, budget?: number | null): Promise<ReplayView>;
  sweep(req: Partial<SweepRequest>): Promise<SweepRow[]>;
  /** compare runs several policies on one result, every column priced on one yardstick. */
  compare(req: Partial<CompareRequest>): Promise<CompareView>;
  /** sweepPolicies sweeps several policies over one scope: one series each. */
  sweepPolicies(req: Partial<SweepPoliciesRequest>): Promise<SweepSeries[]>;
  /** sweepCuts lists the results one budget of a sweep cuts, and with against how each fares at another budget. */
  sweepCuts(req: Partial<SweepCutsRequest>): Promise<CutList>;
  listLinks(q: Partial<LinkQuery>): Promise<LinkPage>;
  checkLink(uri: string): Promise<LinkRow>;
  /** linkFacets lists the links filters' values with their counts (sessionId 0: every link). */
  linkFacets(sessionId: number): Promise<LinkFacets>;
  /** chooseExportPath opens the save dialog; "" when the user cancelled. Nothing is written. */
  chooseExportPath(title: string, name: string): Promise<string>;
  /** exportTo has Go write an export to path (refused inside a session folder). */
  exportTo(ask: ExportAsk, format: string, path: string): Promise<ExportResult>;
  /** copyText puts text on the clipboard (what the pane shows: masked unless revealed). */
  copyText(text: string): Promise<void>;
  /** openFile opens a result's spill file (kind "spill") or the stored image of one of its blocks (kind "attachment") in the system viewer: Go picks the path and the file rule decides (action.state); the window never names a path. */
  openFile(target: FileTarget): Promise<FileAction>;
  /** revealFile shows the same file selected in the file manager. */
  revealFile(target: FileTarget): Promise<FileAction>;
  /** timeline is how a transcript's context grew, call by call, with its subagents' lanes and the route estimator's calibration. */
  timeline(sessionId: number): Promise<Timeline>;
  /** calibration compares the session's growth with every token estimator (slower: every result is counted again). */
  calibration(sessionId: number): Promise<CalibrationView>;
  /** filled lists the results still in context at a call (-1: the peak) and what the seed policy at budget would have saved. */
  filled(q: Partial<FilledQuery>): Promise<Filled>;
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
    SessionsSvc.Results(app.ResultsQuery.createFrom({ sessionId: 0, order: '', onlyNotices: false, offset: 0, limit: 0, ...q })),
  result: (id, reveal) => SessionsSvc.Result(app.ResultQuery.createFrom({ id, reveal: !!reveal, paged: true })),
  text: (q) => RetentionSvc.Text(app.TextQuery.createFrom({ resultId: 0, block: 0, offset: 0, reveal: false, fileKey: '', ...q })),
  diagnostics: (limit) => SessionsSvc.Diagnostics(limit),
  startIndex: () => SessionsSvc.Index(),
  indexStatus: () => SessionsSvc.Status(),
  live: () => SessionsSvc.Live(),
  setLivePaused: (paused) => SessionsSvc.SetLivePaused(paused),
  on: async (event, cb) => {
    if (!(globalThis as { runtime?: { EventsOnMultiple?: unknown } }).runtime?.EventsOnMultiple) return null;
    return EventsOn(event, (data: unknown) => cb(data as GoEvents[typeof event]));
  },
  spillFile: (resultId, offset, limit, reveal) => SessionsSvc.SpillFile(app.SpillQuery.createFrom({ resultId, offset, limit, reveal: !!reveal })),
  searchResults: (q) => SessionsSvc.Search(app.SearchQuery.createFrom(q)),
  snippets: (query, ids) => SessionsSvc.Snippets(app.SnippetQuery.createFrom({ query, ids })),
  largest: (offset, limit) => firstPageOnItsWay(offset, limit) ?? SessionsSvc.Largest(app.PageQuery.createFrom({ offset, limit })),
  largestNow: (offset, limit) => firstPageNow(offset, limit),
  routes: () => RetentionSvc.Routes(),
  policies: () => RetentionSvc.Policies(),
  estimators: () => RetentionSvc.Estimators(),
  retain: (req) =>
    RetentionSvc.Retain(
      app.RetainRequest.createFrom({ resultId: 0, json: '', policy: '', budget: null, params: {}, route: '', estimator: '', toolName: '', reveal: false, paged: false, ...req }),
    ),
  replay: (resultId, budget) => RetentionSvc.Replay(app.ReplayRequest.createFrom({ resultId, budget: budget ?? null })),
  sweep: (req) =>
    RetentionSvc.Sweep(app.SweepRequest.createFrom({ resultId: 0, sessionId: 0, budgets: [], route: '', policy: '', estimator: '', ...req })),
  compare: (req) =>
    RetentionSvc.Compare(
      app.CompareRequest.createFrom({ resultId: 0, json: '', columns: [], slider: null, route: '', estimator: '', toolName: '', ...req }),
    ),
  sweepPolicies: (req) =>
    RetentionSvc.SweepPolicies(
      app.SweepPoliciesRequest.createFrom({ resultId: 0, sessionId: 0, budgets: [], columns: [], route: '', estimator: '', ...req }),
    ),
  sweepCuts: (req) =>
    RetentionSvc.SweepCuts(
      app.SweepCutsRequest.createFrom({
        resultId: 0, sessionId: 0, budget: 0, route: '', policy: '', params: {}, estimator: '', series: false, ...req,
      }),
    ),
  listLinks: (q) =>
    LinksSvc.List(app.LinkQuery.createFrom({ onlyHidden: false, sessionId: 0, reason: '', family: '', host: '', class: '', limit: 0, offset: 0, ...q })),
  checkLink: (uri) => LinksSvc.Check(uri),
  openFile: (target) => DesktopSvc.Open(app.FileTarget.createFrom(target)),
  revealFile: (target) => DesktopSvc.Reveal(app.FileTarget.createFrom(target)),
  linkFacets: (sessionId) => LinksSvc.Facets(sessionId),
  chooseExportPath: (title, name) => ExportsSvc.ChoosePath(app.ExportPathQuery.createFrom({ title, name })),
  exportTo: (ask, format, path) => ExportsSvc.Export(exportRequest(ask, format, path)),
  timeline: (sessionId) => SessionsSvc.Timeline(sessionId),
  calibration: (sessionId) => SessionsSvc.Calibration(sessionId),
  filled: (q) => SessionsSvc.Filled(app.FilledQuery.createFrom({ sessionId: 0, call: -1, budget: 0, policy: '', limit: 0, ...q })),
  copyText: async (text) => {
    // The browser's clipboard where the page may use it (the dev server in
    // a browser); the window's own otherwise (WebKitGTK refuses it).
    if (navigator.clipboard?.writeText) {
      try {
        await navigator.clipboard.writeText(text);
        return;
      } catch {
        /* fall through to the window's clipboard */
      }
    }
    if (!(await ClipboardSetText(text))) throw new Error('clipboard refused the text');
  },
};

/**
 * exportRequest fills an export's request with every field Go expects, the
 * screen's own request for its subject over the defaults.
 */
export function exportRequest(ask: ExportAsk, format: string, path: string): ExportRequest {
  const { what, sweep, policies, results, links, compare, report } = ask;
  return app.ExportRequest.createFrom({
    what,
    format,
    path,
    sweep: { resultId: 0, sessionId: 0, budgets: [], route: '', policy: '', estimator: '', ...sweep },
    policies: { resultId: 0, sessionId: 0, budgets: [], columns: [], route: '', estimator: '', ...policies },
    results: { list: '', sessionId: 0, order: '', onlyNotices: false, query: '', ...results },
    links: { onlyHidden: false, sessionId: 0, reason: '', family: '', host: '', class: '', limit: 0, offset: 0, ...links },
    compare: { resultId: 0, json: '', columns: [], slider: null, route: '', estimator: '', toolName: '', reveal: false, ...compare },
    report: { sessionId: 0, budgets: [], policies: [], route: '', language: 'en', largest: 0, ...report },
  });
}

let goReady: Promise<void> | null = null;

/**
 * ready resolves once Wails has put the Go bindings on window.go. In a
 * browser on the dev server they arrive after the page script has started,
 * so a screen's first calls (settings, the first page of a list) wait for
 * them instead of failing; after 15 s the call goes ahead and fails as it
 * would.
 */
const hasBindings = () => !!(globalThis as { go?: { app?: unknown } }).go?.app;

function ready(): Promise<void> {
  const has = hasBindings;
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
    // What the window already holds is answered at once, bindings or not.
    if (name === 'largestNow') {
      out[name] = f;
      continue;
    }
    // During the start, with the bindings there (the window's are, before
    // the page's script), a call leaves now, not a microtask later: WebKit
    // runs the first microtask after the module script only once it has
    // laid the page out, 40 ms the first rows' page would wait. Afterwards
    // a call leaves after the task that made it has updated the screen
    // (a budget is on screen when its request leaves).
    out[name] = (...args: unknown[]) => {
      if (!hasBindings() || !starting()) return ready().then(() => f(...args));
      try {
        return f(...args);
      } catch (e) {
        // A call fails as a rejected promise, as it did through then().
        return Promise.reject(e);
      }
    };
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
