package sessions

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"spillscope/retention"
	"spillscope/sessions/goose"
)

// HarnessGoose is goose's name in the index.
const HarnessGoose = goose.Harness

// CompactionGoose: a model call goose made to compact the context, as its
// usage ledger marks it (is_compaction).
const CompactionGoose = "goose-compaction"

func init() { Register(gooseHarness{}) }

// gooseHarness reads goose sessions through sessions/goose: the database
// the current goose keeps, <data>/sessions/sessions.db, one source with
// many sessions read by its own change markers (row ids, updated_at, the
// usage ledger's ids); and the JSONL files older versions wrote beside it,
// one session each, read only where no database sits beside them (goose
// imports them into the database on first start and leaves them there).
type gooseHarness struct{}

func (gooseHarness) Name() string  { return HarnessGoose }
func (gooseHarness) Label() string { return "goose" }

// DefaultRoots: <data>/sessions (goose.DefaultRoots).
func (gooseHarness) DefaultRoots(env Env) []string { return goose.DefaultRoots(env.Get) }

// Detect: a SQLite file with goose's sessions and messages tables (by its
// own name, sessions.db, in a sessions folder: its layout); a .jsonl file
// whose first line is goose's session metadata or message.
func (gooseHarness) Detect(p *Probe) Match {
	switch {
	case isSQLite(p):
		if !goose.DetectDB(p.Path) {
			return MatchNone
		}
		if p.Base() == goose.DBName && filepath.Base(filepath.Dir(p.Path)) == goose.SessionsFolder {
			return MatchPath
		}
		return MatchContent
	case strings.HasSuffix(p.Base(), ".jsonl"):
		if l := p.Lines(); len(l) > 0 && goose.DetectLine(l[0]) {
			return MatchContent
		}
	}
	return MatchNone
}

// Notices: "The response returned from the tool call was larger (N
// characters) and is stored in the file…: <path>", and the variant "Tool
// output was N characters and is saved to <path>.".
func (gooseHarness) Notices() []NoticeRule { return gooseNotices }

func recogniseGoose(text string) (string, string, bool) {
	n, ok := retention.RecogniseGooseNotice(text)
	return goose.NoticeKind(n), n.Path, ok
}

var gooseNotices = []NoticeRule{
	kitNotice(goose.NoticeLargeResponse, "The response returned from the tool call was larger", recogniseGoose),
	kitNotice(goose.NoticeSavedOutput, "characters and is saved to", recogniseGoose),
}

// Locations: <data>/mcp_responses/ and the older $TMPDIR/goose_mcp_responses/
// (goose.Spill), or either copied beside the sessions under a root.
func (gooseHarness) Locations(s SessionRef) []Location {
	rules := goose.Spill(s.Env.Get)
	out := spillLocations(rules[0], false, s.Roots, filepath.Base(rules[0].Dirs[0]))
	return append(out, spillLocations(rules[1], true, s.Roots, "goose_mcp_responses")...)
}

// SpillCandidates: the named path, then the same name in the mcp_responses
// folder of the data folder the source sits in (<data>/sessions/…): a
// copied data folder keeps its spill files.
func (gooseHarness) SpillCandidates(named string, s SessionRef) []string {
	data := filepath.Dir(filepath.Dir(s.Path))
	return []string{namedPath(named, s.Path), filepath.Join(data, "mcp_responses", filepath.Base(filepath.FromSlash(named)))}
}

// ChangeStamp: a database's commits land in its -wal first; a JSONL file
// is superseded once a database sits beside it (its stamp then changes, so
// the next pass drops it).
func (gooseHarness) ChangeStamp(path string, size, mtime int64) (int64, int64) {
	if strings.HasSuffix(path, ".jsonl") {
		if _, ok := beside(filepath.Dir(path), goose.DBName); ok {
			return size, -mtime - 1
		}
		return size, mtime
	}
	return walStamp(path, size, mtime)
}

func (gooseHarness) Read(ctx context.Context, src Source, p *Parsed) (ReadState, error) {
	if strings.HasSuffix(src.Path, ".jsonl") {
		return readGooseJSONL(ctx, src, p)
	}
	return readGooseDB(ctx, src, p)
}

// gooseCursor is the database cursor as the index keeps it.
type gooseCursor struct {
	DB goose.DBCursor `json:"db"`
}

func readGooseDB(ctx context.Context, src Source, p *Parsed) (ReadState, error) {
	var from gooseCursor
	mode := ReadChanged
	if src.Cursor == "" || json.Unmarshal([]byte(src.Cursor), &from) != nil {
		from, mode = gooseCursor{}, ReadAll
	}
	p.NotSession = true
	totals := map[string]Usage{}
	h := gooseHandler(p, true)
	h.Session = func(s goose.Session) error {
		if s.Deleted {
			p.Gone = append(p.Gone, s.ID)
			return nil
		}
		p.AddSession(gooseSession(s))
		if s.Complete {
			p.Whole = append(p.Whole, s.ID)
		}
		a := s.Accumulated
		totals[s.ID] = Usage{Key: "session", Session: s.ID, Input: a.Input, CacheRead: a.CacheRead, CacheWrite: a.CacheWrite, Output: a.Output}
		return nil
	}
	next, err := goose.ReadDB(ctx, src.Path, from.DB, h)
	if st, done, err := dbRead(ctx, src, p, err, "goose"); done {
		return st, err
	}
	if !next.HasLedger {
		// Without a usage ledger (goose before it), a session's running
		// totals are all there is.
		ids := make([]string, 0, len(totals))
		for id := range totals {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			p.AddUsage(totals[id])
		}
	}
	b, _ := json.Marshal(gooseCursor{DB: next})
	return ReadState{Cursor: string(b), Mode: mode}, nil
}

// gooseSession is a goose session as the index describes it.
func gooseSession(s goose.Session) SessionInfo {
	return SessionInfo{ID: s.ID, Project: s.WorkingDir, Cwd: s.WorkingDir, Model: s.Model, Started: kitTime(s.Created), Ended: kitTime(s.Updated)}
}

// gooseHandler maps what both goose sources report into p; many says the
// source holds many sessions (results name theirs).
func gooseHandler(p *Parsed, many bool) goose.Handler {
	sess := func(id string) string {
		if many {
			return id
		}
		return ""
	}
	return goose.Handler{
		Result: func(r goose.Result) error {
			s := sess(r.SessionID)
			if r.Tool != "" { // an orphan teaches no name
				p.AddCallIn(s, r.CallID, r.Tool)
			}
			off := r.Locator.Offset
			if r.Locator.Source == goose.SourceDB {
				off = r.Row
			}
			t := ToolResult{CallID: r.CallID, ToolName: r.Tool, Time: kitTime(r.Time), IsError: r.IsError, Blocks: r.Blocks,
				Arguments: r.Arguments, Session: s, Line: r.Line, Locator: kitLocator(r.Locator, off, r.Locator.Length, r.Index)}
			if r.Notice != nil {
				t.Notice = &SpillNotice{Kind: goose.NoticeKind(*r.Notice), Path: r.Notice.Path}
			}
			p.AddResult(t)
			return nil
		},
		Usage: func(u goose.Usage) error {
			if u.CarriedForward {
				// Usage from before the ledger, carried into it: a sum,
				// not one call.
				p.AddUsage(Usage{Key: u.Key, Session: sess(u.SessionID), Input: u.Input, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite, Output: u.Output})
				return nil
			}
			// One call per ledger row; its output counts whatever the
			// model produced.
			p.AddModelCall(ModelCall{Session: sess(u.SessionID), Key: u.Key, At: kitTime(u.Time), Model: u.Model,
				Input: u.Input, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite, Output: u.Output})
			return nil
		},
		Compaction: func(c goose.Compaction) error {
			p.AddCompaction(Compaction{Session: sess(c.SessionID), Key: fmt.Sprintf("ledger:%d", c.Row), Kind: CompactionGoose, At: kitTime(c.Time)})
			return nil
		},
		Diagnostic: func(d goose.Diagnostic) error {
			kitDiag(p, "goose", d, gooseDiagCodes[d.Code])
			return nil
		},
	}
}

// gooseDiagCodes maps the subpackage's diagnostic codes to this package's.
var gooseDiagCodes = map[string]string{
	goose.DiagBadRecord: DiagBadRecord, goose.DiagUnknownContent: DiagUnknownItem, goose.DiagOrphanResult: DiagOrphanResult,
	goose.DiagNotDatabase: DiagNotSource, goose.DiagNotSession: DiagNotSource,
}

// readGooseJSONL reads a legacy session file, resuming where it grew.
func readGooseJSONL(ctx context.Context, src Source, p *Parsed) (ReadState, error) {
	if _, ok := beside(filepath.Dir(src.Path), goose.DBName); ok {
		// goose imported this file into the database beside it and reads
		// only the database now: its sessions are indexed from there.
		p.NotSession = true
		return ReadState{Mode: ReadAll}, nil
	}
	var from goose.JSONLCursor
	mode := resumeLog(src, &from)
	h := gooseHandler(p, false)
	h.Session = func(s goose.Session) error {
		info := gooseSession(s)
		m := &p.Session
		m.ID, m.Project, m.Cwd = info.ID, info.Project, info.Cwd
		a := s.Accumulated
		p.AddUsage(Usage{Key: "session", Input: a.Input, CacheRead: a.CacheRead, CacheWrite: a.CacheWrite, Output: a.Output})
		return nil
	}
	inner := h.Result
	h.Result = func(r goose.Result) error {
		p.SeeTime(kitTime(r.Time))
		return inner(r)
	}
	next, err := goose.ReadJSONL(ctx, src.Path, from, h)
	if err != nil {
		if ctx.Err() != nil {
			return ReadState{}, ctx.Err()
		}
		p.Diag(next.Line, DiagUnreadable, map[string]string{"error": errText(err)})
	}
	if mode == ReadAll && p.Session.ID == "" && len(p.Results) == 0 {
		p.NotSession = true
	}
	return ReadState{Cursor: nextLog(src.Path, next.Offset, next), Mode: mode}, nil
}

// ReadResult: the locator is the message's row (checked against its
// message id) or its JSONL line, and the item's index in its content.
func (gooseHarness) ReadResult(path string, loc Locator, callID string) (retention.Result, error) {
	var gl goose.Locator
	if err := json.Unmarshal([]byte(loc.Key), &gl); err != nil {
		return retention.Result{}, kitGone(path)
	}
	r, err := goose.ReadResult(context.Background(), path, gl)
	return kitResult(r.CallID, r.Blocks, r.IsError, err, goose.ErrResultGone, path, callID)
}
