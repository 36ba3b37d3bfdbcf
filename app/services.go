package app

import (
	"context"
	"errors"
	"fmt"

	"spillscope/retention"
	"spillscope/retention/imagecost"
	"spillscope/retention/links"
)

// errPending marks a service method whose domain package has not been wired
// yet; it is replaced as the packages land.
var errPending = errors.New("app: not wired yet")

// Sessions is the bound service for the index: sessions, results, indexing.
type Sessions struct {
	ctx context.Context
	cfg Config
}

// NewSessions builds the Sessions service.
func NewSessions(cfg Config) *Sessions { return &Sessions{cfg: cfg} }

// Startup receives the Wails context.
func (s *Sessions) Startup(ctx context.Context) { s.ctx = ctx }

// List returns indexed sessions, newest first.
func (s *Sessions) List(q SessionQuery) ([]SessionRow, error) { return nil, errPending }

// Results lists one session's tool results in file order.
func (s *Sessions) Results(sessionID int64) ([]ResultRow, error) { return nil, errPending }

// Result reads one tool result back from its source file.
func (s *Sessions) Result(id int64) (ResultDetail, error) { return ResultDetail{}, errPending }

// Diagnostics lists bad lines and files the indexer skipped.
func (s *Sessions) Diagnostics(limit int) ([]Diagnostic, error) { return nil, errPending }

// Index starts an indexing pass in the background and returns at once.
func (s *Sessions) Index() (IndexStatus, error) { return IndexStatus{}, errPending }

// Status reports the indexer's progress and the index's totals.
func (s *Sessions) Status() (IndexStatus, error) { return IndexStatus{}, errPending }

// ReadFile reads part of a spill file the index knows, for the side-by-side view.
func (s *Sessions) ReadFile(path string, offset, limit int64) (FileSlice, error) {
	return FileSlice{}, errPending
}

// Retention is the bound service that re-runs the retention core.
type Retention struct {
	cfg Config
}

// NewRetention builds the Retention service.
func NewRetention(cfg Config) *Retention { return &Retention{cfg: cfg} }

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
	return RouteInfo{
		Name: rt.Name, Provider: rt.Provider, Encoding: rt.Encoding, HasImages: rt.Priced(),
		Source: rt.Source, Note: rt.Note, Calculator: calc,
	}
}

// Retain runs the decision on one result at one budget and route.
func (r *Retention) Retain(req RetainRequest) (Projection, error) { return Projection{}, errPending }

// Sweep runs the decision at many budgets.
func (r *Retention) Sweep(req SweepRequest) ([]SweepRow, error) { return nil, errPending }

// Links is the bound service for the reviewers' link audit.
type Links struct {
	cfg Config
}

// NewLinks builds the Links service.
func NewLinks(cfg Config) *Links { return &Links{cfg: cfg} }

// List returns links of indexed tool results.
func (l *Links) List(q LinkQuery) ([]LinkRow, error) { return nil, errPending }

// Check classifies one URI as a tool result's resource_link would be shown.
// The URI itself is never echoed back when it may carry a credential.
func (l *Links) Check(uri string) (LinkRow, error) {
	if len(uri) > maxCheckedURI {
		return LinkRow{}, fmt.Errorf("app: URI is %d bytes, more than %d", len(uri), maxCheckedURI)
	}
	d := links.LinkLine(retention.Block{Type: retention.TypeResourceLink, URI: uri, Name: "checked"})
	row := LinkRow{Reason: d.Reason, Parameter: d.Parameter, Line: d.Line, Shown: "stub"}
	if d.Shown {
		row.Shown = "line"
	}
	return row, nil
}

// maxCheckedURI bounds what the check box accepts; no real link is longer.
const maxCheckedURI = 64 << 10
