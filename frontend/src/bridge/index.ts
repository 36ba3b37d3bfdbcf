// The typed bridge: the only module that touches the generated Wails
// bindings. Components and stores import from here, so a renamed Go method
// breaks one file and the type check, not every screen.
import * as AppSvc from '../wailsjs/go/app/App';
import * as SessionsSvc from '../wailsjs/go/app/Sessions';
import * as RetentionSvc from '../wailsjs/go/app/Retention';
import * as LinksSvc from '../wailsjs/go/app/Links';
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
export type ParamInfo = app.ParamInfo;
export type CompareRequest = app.CompareRequest;
export type CompareView = app.CompareView;
export type CompareColumn = app.CompareColumn;
export type SweepPoliciesRequest = app.SweepPoliciesRequest;
export type SweepSeries = app.SweepSeries;
export type LinkRow = app.LinkRow;
export type LinkQuery = app.LinkQuery;
export type IndexStatus = app.IndexStatus;
export type Diagnostic = app.Diagnostic;
export type FileSlice = app.FileSlice;

/** Bridge is everything the stores need from Go; unit tests pass their own. */
export interface Bridge {
  info(): Promise<AppInfo>;
  getSettings(): Promise<Settings>;
  setLanguage(lang: string): Promise<Settings>;
  listSessions(q: Partial<SessionQuery>): Promise<SessionRow[]>;
  sessionResults(sessionId: number): Promise<ResultRow[]>;
  result(id: number): Promise<ResultDetail>;
  diagnostics(limit: number): Promise<Diagnostic[]>;
  startIndex(): Promise<IndexStatus>;
  indexStatus(): Promise<IndexStatus>;
  readFile(path: string, offset: number, limit: number): Promise<FileSlice>;
  /** searchResults orders by "" (relevance), "tokens" or "source". */
  searchResults(query: string, order: string): Promise<ResultRow[]>;
  /** largest lists the results that cost the most tokens across the index. */
  largest(limit: number): Promise<ResultRow[]>;
  routes(): Promise<RouteInfo[]>;
  /** policies declares the retention policies (name, budget parameter, unit, shipped budget). */
  policies(): Promise<PolicyInfo[]>;
  retain(req: Partial<RetainRequest>): Promise<Projection>;
  sweep(req: Partial<SweepRequest>): Promise<SweepRow[]>;
  /** compare runs several policies on one result, every column priced on one yardstick. */
  compare(req: Partial<CompareRequest>): Promise<CompareView>;
  /** sweepPolicies sweeps several policies over one scope: one series each. */
  sweepPolicies(req: Partial<SweepPoliciesRequest>): Promise<SweepSeries[]>;
  listLinks(q: Partial<LinkQuery>): Promise<LinkRow[]>;
  checkLink(uri: string): Promise<LinkRow>;
}

export const bridge: Bridge = {
  info: () => AppSvc.Info(),
  getSettings: () => AppSvc.GetSettings(),
  setLanguage: (lang) => AppSvc.SetLanguage(lang),
  listSessions: (q) => SessionsSvc.List(app.SessionQuery.createFrom({ harness: '', search: '', order: '', limit: 0, offset: 0, ...q })),
  sessionResults: (id) => SessionsSvc.Results(id),
  result: (id) => SessionsSvc.Result(id),
  diagnostics: (limit) => SessionsSvc.Diagnostics(limit),
  startIndex: () => SessionsSvc.Index(),
  indexStatus: () => SessionsSvc.Status(),
  readFile: (path, offset, limit) => SessionsSvc.ReadFile(path, offset, limit),
  searchResults: (query, order) => SessionsSvc.Search(app.SearchQuery.createFrom({ query, order })),
  largest: (limit) => SessionsSvc.Largest(limit),
  routes: () => RetentionSvc.Routes(),
  policies: () => RetentionSvc.Policies(),
  retain: (req) =>
    RetentionSvc.Retain(
      app.RetainRequest.createFrom({ resultId: 0, json: '', policy: '', budget: null, params: {}, route: '', estimator: '', toolName: '', ...req }),
    ),
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
  listLinks: (q) => LinksSvc.List(app.LinkQuery.createFrom({ onlyHidden: false, limit: 0, offset: 0, ...q })),
  checkLink: (uri) => LinksSvc.Check(uri),
};

/** errorText turns a rejected binding call into text for the log, never for HTML. */
export function errorText(e: unknown): string {
  if (e instanceof Error) return e.message;
  return typeof e === 'string' ? e : JSON.stringify(e);
}
