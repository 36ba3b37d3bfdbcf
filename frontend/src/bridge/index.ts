// The typed bridge: the only module that touches the generated Wails
// bindings. Components and stores import from here, so a renamed Go method
// breaks one file and the type check, not every screen.
import * as AppSvc from '../wailsjs/go/app/App';
import * as SessionsSvc from '../wailsjs/go/app/Sessions';
import * as RetentionSvc from '../wailsjs/go/app/Retention';
import * as LinksSvc from '../wailsjs/go/app/Links';
import * as DesktopSvc from '../wailsjs/go/app/Desktop';
import { ClipboardSetText } from '../wailsjs/runtime/runtime';
import { app } from '../wailsjs/go/models';

export type AppInfo = app.Info;
export type Root = app.Root;
export type Settings = app.Settings;
export type SessionRow = app.SessionRow;
export type SessionQuery = app.SessionQuery;
export type ResultRow = app.ResultRow;
export type ResultDetail = app.ResultDetail;
export type BlockView = app.BlockView;
export type RouteInfo = app.RouteInfo;
export type PolicyInfo = app.PolicyInfo;
export type RetainRequest = app.RetainRequest;
export type Projection = app.Projection;
export type SweepRequest = app.SweepRequest;
export type SweepRow = app.SweepRow;
export type LinkRow = app.LinkRow;
export type LinkQuery = app.LinkQuery;
export type IndexStatus = app.IndexStatus;
export type Diagnostic = app.Diagnostic;
export type FileSlice = app.FileSlice;
export type MaskSpan = app.MaskSpan;
export type Snippet = app.Snippet;
export type FileTarget = app.FileTarget;
export type FileAction = app.FileAction;

/** Bridge is everything the stores need from Go; unit tests pass their own. */
export interface Bridge {
  info(): Promise<AppInfo>;
  getSettings(): Promise<Settings>;
  setLanguage(lang: string): Promise<Settings>;
  listSessions(q: Partial<SessionQuery>): Promise<SessionRow[]>;
  sessionResults(sessionId: number): Promise<ResultRow[]>;
  /** result reads one result back; reveal shows its credential values (asked for by the user, never remembered). */
  result(id: number, reveal?: boolean): Promise<ResultDetail>;
  diagnostics(limit: number): Promise<Diagnostic[]>;
  startIndex(): Promise<IndexStatus>;
  indexStatus(): Promise<IndexStatus>;
  /** spillFile reads a page of an indexed result's spill file: Go picks the file and says whether it may be opened (slice.state); credential values are masked unless reveal. */
  spillFile(resultId: number, offset: number, limit: number, reveal?: boolean): Promise<FileSlice>;
  /** searchResults orders by "" (relevance), "tokens" or "source". */
  searchResults(query: string, order: string): Promise<ResultRow[]>;
  /** snippets reads a few masked words around the query in each result. */
  snippets(query: string, ids: number[]): Promise<Snippet[]>;
  /** largest lists the results that cost the most tokens across the index. */
  largest(limit: number): Promise<ResultRow[]>;
  routes(): Promise<RouteInfo[]>;
  /** policies declares the retention policies (name, budget parameter, unit, shipped budget). */
  policies(): Promise<PolicyInfo[]>;
  retain(req: Partial<RetainRequest>): Promise<Projection>;
  sweep(req: Partial<SweepRequest>): Promise<SweepRow[]>;
  listLinks(q: Partial<LinkQuery>): Promise<LinkRow[]>;
  checkLink(uri: string): Promise<LinkRow>;
  /** copyText puts text on the clipboard (what the pane shows: masked unless revealed). */
  copyText(text: string): Promise<void>;
  /** openFile opens a result's spill file (kind "spill") or the stored image of one of its blocks (kind "attachment") in the system viewer: Go picks the path and the file rule decides (action.state); the window never names a path. */
  openFile(target: FileTarget): Promise<FileAction>;
  /** revealFile shows the same file selected in the file manager. */
  revealFile(target: FileTarget): Promise<FileAction>;
}

export const bridge: Bridge = {
  info: () => AppSvc.Info(),
  getSettings: () => AppSvc.GetSettings(),
  setLanguage: (lang) => AppSvc.SetLanguage(lang),
  listSessions: (q) => SessionsSvc.List(app.SessionQuery.createFrom({ harness: '', search: '', order: '', limit: 0, offset: 0, ...q })),
  sessionResults: (id) => SessionsSvc.Results(id),
  result: (id, reveal) => SessionsSvc.Result(app.ResultQuery.createFrom({ id, reveal: !!reveal })),
  diagnostics: (limit) => SessionsSvc.Diagnostics(limit),
  startIndex: () => SessionsSvc.Index(),
  indexStatus: () => SessionsSvc.Status(),
  spillFile: (resultId, offset, limit, reveal) => SessionsSvc.SpillFile(app.SpillQuery.createFrom({ resultId, offset, limit, reveal: !!reveal })),
  searchResults: (query, order) => SessionsSvc.Search(app.SearchQuery.createFrom({ query, order })),
  snippets: (query, ids) => SessionsSvc.Snippets(app.SnippetQuery.createFrom({ query, ids })),
  largest: (limit) => SessionsSvc.Largest(limit),
  routes: () => RetentionSvc.Routes(),
  policies: () => RetentionSvc.Policies(),
  retain: (req) =>
    RetentionSvc.Retain(
      app.RetainRequest.createFrom({ resultId: 0, json: '', policy: '', budget: null, params: {}, route: '', estimator: '', toolName: '', reveal: false, ...req }),
    ),
  sweep: (req) =>
    RetentionSvc.Sweep(app.SweepRequest.createFrom({ resultId: 0, sessionId: 0, budgets: [], route: '', policy: '', estimator: '', ...req })),
  listLinks: (q) => LinksSvc.List(app.LinkQuery.createFrom({ onlyHidden: false, limit: 0, offset: 0, ...q })),
  checkLink: (uri) => LinksSvc.Check(uri),
  openFile: (target) => DesktopSvc.Open(app.FileTarget.createFrom(target)),
  revealFile: (target) => DesktopSvc.Reveal(app.FileTarget.createFrom(target)),
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

/** errorText turns a rejected binding call into text for the log, never for HTML. */
export function errorText(e: unknown): string {
  if (e instanceof Error) return e.message;
  return typeof e === 'string' ? e : JSON.stringify(e);
}
