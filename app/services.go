package app

import (
	"context"
	"errors"
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

// Routes lists the pricing routes.
func (r *Retention) Routes() ([]RouteInfo, error) { return nil, errPending }

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
func (l *Links) Check(uri string) (LinkRow, error) { return LinkRow{}, errPending }
