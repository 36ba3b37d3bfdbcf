package app

import (
	"context"
	"strings"
	"sync"
	"time"

	"spillscope/sessions"

	"spillscope/retention"
	"spillscope/retention/imagecost"
	"spillscope/retention/links"
)

// Sessions is the bound service for the index: sessions, results, indexing.
type Sessions struct {
	ctx   context.Context
	store *Store

	mu       sync.Mutex
	running  bool
	progress sessions.Progress
	lastErr  string
	lastDone time.Time
	// emit pushes events to the window; seq numbers the statuses they
	// carry. live is the watcher of the session folders (live.go).
	emit emitter
	seq  int64
	live live
	// totals are the last totals Status read, for progress events.
	totals sessions.Summary
	// pushMu keeps pushed statuses in the order they were read.
	pushMu sync.Mutex
}

// NewSessions builds the Sessions service over a shared store.
func NewSessions(store *Store) *Sessions { return &Sessions{store: store, ctx: context.Background()} }

// Startup receives the Wails context: events go to its window, and the
// live watcher starts a moment later.
func (s *Sessions) Startup(ctx context.Context) {
	s.ctx = ctx
	s.startup(wailsEmitter(ctx), liveStart)
}

// checkPage refuses a page the lists cannot serve: every list is read page
// by page, so no call can ask for everything at once.
func checkPage(offset, limit int) error {
	if offset < 0 || limit < 1 || limit > MaxPage {
		return coded("page-invalid", "offset", offset, "limit", limit, "max", MaxPage)
	}
	return nil
}

// listOrder reads a list's order, refusing those the list lacks.
func listOrder(o string) (sessions.Order, error) {
	order, err := sessions.ParseOrder(o)
	if err != nil || (order != "" && order != sessions.OrderTokens) {
		return "", coded("order-unknown", "order", o, "want", `"", "tokens"`)
	}
	return order, nil
}

// List returns one page of the indexed sessions (newest first, or most
// tokens first) and how many the whole list holds.
func (s *Sessions) List(q SessionQuery) (SessionPage, error) {
	if err := checkPage(q.Offset, q.Limit); err != nil {
		return SessionPage{}, err
	}
	order, err := listOrder(q.Order)
	if err != nil {
		return SessionPage{}, err
	}
	db, err := s.store.DB()
	if err != nil {
		return SessionPage{}, err
	}
	f := sessions.SessionFilter{Harness: q.Harness, Search: q.Search, Order: order, Limit: q.Limit, Offset: q.Offset}
	rows, err := db.BrowseSessions(s.ctx, f)
	if err != nil {
		return SessionPage{}, err
	}
	c, err := db.CountSessions(s.ctx, f)
	if err != nil {
		return SessionPage{}, err
	}
	out := SessionPage{Rows: make([]SessionRow, 0, len(rows)), Total: c.Transcripts, Sessions: c.Sessions}
	for _, r := range rows {
		out.Rows = append(out.Rows, sessionRow(r))
	}
	return out, nil
}

func sessionRow(r sessions.SessionSummary) SessionRow {
	route := r.Route
	if route == "" {
		route = imagecost.RouteForModel(r.Model)
	}
	return SessionRow{
		ID: r.ID, Harness: r.Harness, HarnessLabel: sessions.HarnessLabel(r.Harness), SessionID: r.SessionID, AgentID: r.AgentID, Project: r.Project,
		Model: r.Model, Route: route, Started: r.Started, Ended: r.Ended, File: r.File,
		ToolResults: r.ToolResults, Images: r.Images, SpillNotices: r.SpillNotices, TextBytes: r.TextBytes,
		InputTokens: r.Input, OutputTokens: r.Output, CacheReadTokens: r.CacheRead, CacheWriteTokens: r.CacheWrite,
		Tokens: r.Tokens, TokensExact: r.TokensPending == 0,
		Title: r.Title, Kind: r.Kind, ParentID: r.ParentRowID, AgentType: r.AgentType, AgentDescription: r.AgentDescription,
		ModelCalls: r.ModelCalls, Compactions: r.Compactions, APIErrors: r.APIErrors, AbortedTurns: r.AbortedTurns,
	}
}

func resultRow(r sessions.ResultRow) ResultRow {
	row := ResultRow{
		ID: r.ID, SessionID: r.SessionRowID, Project: r.Project, CallID: r.CallID, Tool: r.ToolName, Time: r.Time, IsError: r.IsError,
		TextBytes: r.TextBytes, Images: r.Images, EstimatedTokens: -1, Tokens: r.Tokens, TokensExact: r.TokensExact,
		File: r.Path, Line: r.Line,
	}
	if r.EstTokens != nil {
		row.EstimatedTokens = *r.EstTokens
	}
	if r.Cut != nil {
		row.CutBy, row.CutOriginalTokens = sessions.HarnessLabel(r.Cut.By), r.Cut.OriginalTokens
	}
	row.HasOriginal = r.Original != nil
	if r.Spill != nil {
		row.NoticeKind, row.NoticePath, row.NoticeFileExists, row.NoticeFileState = r.Spill.Kind, r.SpillResolved, r.SpillExists, r.SpillState
		if row.NoticePath == "" {
			row.NoticePath = r.Spill.Path
		}
	}
	return row
}

// Results returns one page of a session's tool results, in file order or
// most tokens first, and how many the whole list holds.
func (s *Sessions) Results(q ResultsQuery) (ResultPage, error) {
	if q.SessionID <= 0 {
		return ResultPage{}, coded("session-id-invalid", "id", q.SessionID)
	}
	if err := checkPage(q.Offset, q.Limit); err != nil {
		return ResultPage{}, err
	}
	order, err := listOrder(q.Order)
	if err != nil {
		return ResultPage{}, err
	}
	return s.resultPage(s.ctx, sessions.ResultFilter{SessionRowID: q.SessionID, Order: order, OnlyNotices: q.OnlyNotices, Offset: q.Offset, Limit: q.Limit})
}

// resultPage reads one page of results and the count of the whole list.
func (s *Sessions) resultPage(ctx context.Context, f sessions.ResultFilter) (ResultPage, error) {
	db, err := s.store.DB()
	if err != nil {
		return ResultPage{}, err
	}
	rows, err := db.Results(ctx, f)
	if err != nil {
		return ResultPage{}, err
	}
	n, err := db.CountResults(ctx, f)
	if err != nil {
		return ResultPage{}, err
	}
	return ResultPage{Rows: resultRows(rows), Total: n}, nil
}

// ResultList lists every tool result of one session (q.SessionID), of
// every transcript of one harness session (q.HarnessSessionID, subagents
// included), or of the whole index, in q.Order: "" or "source" (source
// order), "tokens" (most tokens first, exact once counted). The CLI reads
// its lists through it; the window pages (Results, Largest).
func (s *Sessions) ResultList(q ResultListQuery) ([]ResultRow, error) {
	if q.SessionID < 0 {
		return nil, coded("session-id-invalid", "id", q.SessionID)
	}
	order, err := sessions.ParseOrder(q.Order)
	if err != nil || order == sessions.OrderRelevance {
		return nil, coded("order-unknown", "order", q.Order, "want", `"", "source", "tokens"`)
	}
	db, err := s.store.DB()
	if err != nil {
		return nil, err
	}
	rows, err := db.Results(s.ctx, sessions.ResultFilter{SessionRowID: q.SessionID, SessionID: q.HarnessSessionID, Order: order})
	if err != nil {
		return nil, err
	}
	return resultRows(rows), nil
}

func resultRows(rows []sessions.ResultRow) []ResultRow {
	out := make([]ResultRow, 0, len(rows))
	for _, r := range rows {
		out = append(out, resultRow(r))
	}
	return out
}

// Largest returns one page of the tool results that cost the most tokens
// across every indexed session (exact counts where the token phase has
// run, size-based approximations, marked as such, where it has not yet)
// and how many results the index holds.
func (s *Sessions) Largest(q PageQuery) (ResultPage, error) {
	return s.largest(s.ctx, q)
}

// largest is Largest under ctx (the first page, read before the window's
// context exists, reads under its own).
func (s *Sessions) largest(ctx context.Context, q PageQuery) (ResultPage, error) {
	if err := checkPage(q.Offset, q.Limit); err != nil {
		return ResultPage{}, err
	}
	return s.resultPage(ctx, sessions.ResultFilter{Order: sessions.OrderTokens, Offset: q.Offset, Limit: q.Limit})
}

// Session returns one session's row (a window reopening where it was left,
// a header following an index pass).
func (s *Sessions) Session(id int64) (SessionRow, error) {
	if id <= 0 {
		return SessionRow{}, coded("session-id-invalid", "id", id)
	}
	db, err := s.store.DB()
	if err != nil {
		return SessionRow{}, err
	}
	r, err := db.SessionByID(s.ctx, id)
	if err != nil {
		return SessionRow{}, err
	}
	return sessionRow(r), nil
}

// Result reads one tool result back from its source file, with its images
// pointed at the attachment store and its credential values masked unless
// q.Reveal.
func (s *Sessions) Result(q ResultQuery) (ResultDetail, error) {
	defer startCall("Result").done()
	db, err := s.store.DB()
	if err != nil {
		return ResultDetail{}, err
	}
	l, err := s.store.results.load(s.ctx, db, q.ID)
	if err != nil {
		return ResultDetail{}, err
	}
	row := l.row
	sess, err := db.SessionByID(s.ctx, row.SessionRowID)
	if err != nil {
		return ResultDetail{}, err
	}
	d := ResultDetail{Row: resultRow(row), Session: sessionRow(sess), Revealed: q.Reveal}
	var tp textPages
	if q.Paged {
		tp.pages = l.masker
	}
	d.Blocks, d.Masked = blockViews(l.res.Content, db.AttachmentDir(), q.Reveal, tp)
	if d.Replaced, err = replacedView(s.ctx, db, q); err != nil {
		return ResultDetail{}, err
	}
	d.Replayable = row.Spill != nil && sessions.CanReplay(row.Harness)
	d.Route = d.Session.Route
	if d.Estimator, err = retention.RouteEstimator(d.Route); err != nil {
		d.Estimator = retention.DefaultEncoding
	}
	return d, nil
}

// Diagnostics lists bad lines and files the indexer skipped, one row per
// file and kind with its count.
func (s *Sessions) Diagnostics(limit int) ([]Diagnostic, error) {
	db, err := s.store.DB()
	if err != nil {
		return nil, err
	}
	rows, err := db.DiagnosticGroups(s.ctx, limit)
	if err != nil {
		return nil, err
	}
	out := make([]Diagnostic, 0, len(rows))
	for _, d := range rows {
		out = append(out, Diagnostic{File: d.File, Line: d.Line, Code: d.Code, Params: d.Params, Message: d.Message, Count: d.Count})
	}
	return out, nil
}

// Index starts an indexing pass in the background and returns at once; a
// pass already running is not started twice.
func (s *Sessions) Index() (IndexStatus, error) {
	db, err := s.store.DB()
	if err != nil {
		return IndexStatus{}, err
	}
	s.mu.Lock()
	if s.running {
		s.mu.Unlock()
		return s.Status()
	}
	s.running = true
	s.lastErr = ""
	s.progress = sessions.Progress{Phase: sessions.PhaseStructure}
	s.mu.Unlock()
	roots := s.store.Roots()
	go func() {
		// Progress goes to the window a few times a second, what changed
		// once a second (new sessions show while the pass runs), and the
		// end as both.
		var batch changeBatch
		var lastProgress time.Time
		tick := time.NewTicker(time.Second)
		stop := make(chan struct{})
		go func() {
			for {
				select {
				case <-tick.C:
					if rows, results, any := batch.take(); any {
						s.changed(rows, results, false)
					}
				case <-stop:
					return
				}
			}
		}()
		err := runIndex(s.ctx, db, roots, func(p sessions.Progress) {
			s.mu.Lock()
			s.progress = p
			s.mu.Unlock()
			if time.Since(lastProgress) >= progressEvery {
				lastProgress = time.Now()
				s.sendProgress()
			}
		}, batch.add)
		tick.Stop()
		close(stop)
		s.mu.Lock()
		s.running = false
		s.lastDone = time.Now()
		if err != nil {
			s.lastErr = err.Error()
		}
		s.mu.Unlock()
		s.sendProgress()
		batch.take()
		// Token counts changed across the index: every list reloads.
		s.changed(nil, nil, true)
		// The folders to watch may have changed with the settings.
		s.restartLive()
	}()
	return s.Status()
}

// progressEvery bounds how often a manual pass's progress is pushed.
const progressEvery = 250 * time.Millisecond

// sendProgress pushes the progress of a manual pass (no totals query:
// the last totals stand until the pass's changes are pushed).
func (s *Sessions) sendProgress() {
	s.pushMu.Lock()
	defer s.pushMu.Unlock()
	s.mu.Lock()
	st := s.progressStatus()
	st.Sessions, st.ToolResults, st.Images, st.SpillNotices, st.Diagnostics = s.totals.Sessions, s.totals.ToolResults, s.totals.ToolResultImages, s.totals.SpillNotices, s.totals.Diagnostics
	if !st.Running {
		st.Files, st.Bytes = s.totals.Files, s.totals.Bytes
	}
	s.mu.Unlock()
	st.Seq = s.nextSeq()
	s.send(EventIndexProgress, st)
}

// Status reports the indexer's progress and the index's totals.
func (s *Sessions) Status() (IndexStatus, error) {
	s.mu.Lock()
	st := s.progressStatus()
	st.Seq = s.seq
	s.mu.Unlock()
	db, err := s.store.DB()
	if err != nil {
		return st, err
	}
	sum, err := db.Totals(s.ctx, s.store.Roots())
	if err != nil {
		return st, err
	}
	s.mu.Lock()
	s.totals = sum
	s.mu.Unlock()
	st.Sessions, st.ToolResults, st.Images, st.SpillNotices, st.Diagnostics = sum.Sessions, sum.ToolResults, sum.ToolResultImages, sum.SpillNotices, sum.Diagnostics
	if !st.Running {
		st.Files, st.Bytes = sum.Files, sum.Bytes
	}
	return st, nil
}

// progressStatus is the status without the totals; the caller holds s.mu.
func (s *Sessions) progressStatus() IndexStatus {
	st := IndexStatus{
		Running: s.running, Phase: s.progress.Phase, Files: s.progress.FilesTotal, FilesDone: s.progress.Files,
		Bytes: s.progress.BytesTotal, BytesDone: s.progress.Bytes, RateMBs: s.progress.Rate() / 1e6, Error: s.lastErr,
	}
	if !s.lastDone.IsZero() {
		st.LastIndexedAgo = time.Since(s.lastDone).Round(time.Second).String()
		st.LastIndexedAt = s.lastDone.UnixMilli()
	}
	return st
}

// maxSearchQuery bounds what the search box sends.
const maxSearchQuery = 500

// Search finds tool results whose text (with credential-bearing URLs already
// redacted) holds every word of q.Query, in q.Order: one page of them and
// how many match. Words are matched as FTS5 phrases, so punctuation in the
// query is never read as FTS syntax.
func (s *Sessions) Search(q SearchQuery) (ResultPage, error) {
	query := q.Query
	words := strings.Fields(query)
	if len(words) == 0 {
		return ResultPage{}, coded("search-empty")
	}
	if len(query) > maxSearchQuery {
		return ResultPage{}, coded("search-too-long", "bytes", len(query), "max", maxSearchQuery)
	}
	if err := checkPage(q.Offset, q.Limit); err != nil {
		return ResultPage{}, err
	}
	o, err := sessions.ParseOrder(q.Order)
	if err != nil {
		return ResultPage{}, coded("order-unknown", "order", q.Order, "want", `"", "relevance", "tokens", "source"`)
	}
	for i, w := range words {
		words[i] = `"` + strings.ReplaceAll(w, `"`, `""`) + `"`
	}
	db, err := s.store.DB()
	if err != nil {
		return ResultPage{}, err
	}
	match := strings.Join(words, " ")
	rows, err := db.SearchPage(s.ctx, sessions.SearchFilter{Query: match, Order: o, Limit: q.Limit, Offset: q.Offset})
	if err != nil {
		return ResultPage{}, err
	}
	n, err := db.CountSearch(s.ctx, match)
	if err != nil {
		return ResultPage{}, err
	}
	return ResultPage{Rows: resultRows(rows), Total: n}, nil
}

// maxFileSlice bounds one read of a spill file for the window.
const maxFileSlice = 1 << 20

// SpillFile reads part of an indexed result's spill file, for the
// side-by-side view and its paging, with credential values masked unless
// q.Reveal. The index decides which file that is,
// and the file rule whether it may be opened at all: the slice's State is
// the one verdict the result header and the pane both show, and a file
// outside the folders the session's harness writes is never read.
func (s *Sessions) SpillFile(q SpillQuery) (FileSlice, error) {
	if q.ResultID <= 0 || q.Offset < 0 || q.Limit <= 0 {
		return FileSlice{}, coded("read-range-invalid", "offset", q.Offset, "limit", q.Limit)
	}
	db, err := s.store.DB()
	if err != nil {
		return FileSlice{}, err
	}
	sf, err := db.OpenSpill(s.ctx, q.ResultID, s.store.Roots())
	if err != nil {
		return FileSlice{}, err
	}
	if sf.File == nil {
		return FileSlice{Path: sf.Path, State: sf.State, Detail: sf.Detail, Offset: q.Offset}, nil
	}
	defer sf.File.Close()
	return readSlice(sf.File, sf.Path, q.Offset, min(q.Limit, maxFileSlice), q.Reveal)
}

// Retention is the bound service that re-runs the retention core.
type Retention struct {
	store *Store
	cache *analysisCache
}

// NewRetention builds the Retention service over a shared store.
func NewRetention(store *Store) *Retention {
	return &Retention{store: store, cache: newAnalysisCache(maxCachedAnalyses)}
}

// Routes lists the pricing routes, priced ones first in the core's order.
func (r *Retention) Routes() ([]RouteInfo, error) {
	routes := imagecost.Routes()
	out := make([]RouteInfo, 0, len(routes))
	for _, rt := range routes {
		out = append(out, routeInfo(rt))
	}
	return out, nil
}

func routeInfo(rt imagecost.Route) RouteInfo {
	calc := rt.Name
	if !rt.Priced() {
		calc = "none"
	}
	est, err := retention.RouteEstimator(rt.Name)
	if err != nil {
		est = retention.DefaultEncoding
	}
	return RouteInfo{
		Name: rt.Name, Provider: rt.Provider, Estimator: est, HasImages: rt.Priced(),
		Source: rt.Source, Note: rt.Note, Calculator: calc,
	}
}

// Links is the bound service for the reviewers' link audit.
type Links struct {
	store *Store
}

// NewLinks builds the Links service over a shared store.
func NewLinks(store *Store) *Links { return &Links{store: store} }

// Check classifies one URI as a tool result's resource_link would be shown.
// The URI itself is never echoed back when it may carry a credential.
func (l *Links) Check(uri string) (LinkRow, error) {
	if len(uri) > maxCheckedURI {
		return LinkRow{}, coded("uri-too-long", "bytes", len(uri), "max", maxCheckedURI)
	}
	d := links.LinkLine(retention.Block{Type: retention.TypeResourceLink, URI: uri, Name: "checked"})
	line, _ := links.Mask(d.Line)
	row := LinkRow{Reason: d.Reason, Parameter: d.Parameter, Line: line, Shown: "stub", URI: links.RedactURI(uri), Start: -1, End: -1,
		Host: links.URIHost(uri), Families: links.FamiliesOf(d.Parameter), Class: sessions.ClassStubbed}
	if d.Shown {
		row.Shown, row.Class = "line", sessions.ClassPlain
	}
	if row.Families == nil {
		row.Families = []string{}
	}
	return row, nil
}

// maxCheckedURI bounds what the check box accepts; no real link is longer.
const maxCheckedURI = 64 << 10
