package sessions

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"spillscope/internal/fixtures"
	"spillscope/retention"
	"spillscope/sessions/internal/readkit"
)

// Helpers of the OpenCode, Copilot CLI and goose tests.

// liveDB is a database a harness writes while Spillscope reads it: WAL
// mode, one connection held open (so its -wal stays, as a running harness
// keeps it).
type liveDB struct {
	path string
	db   *sql.DB
}

func openLive(t testing.TB, path, schema string) *liveDB {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", "file:"+(&url.URL{Path: path}).EscapedPath()+"?_journal_mode=WAL&_foreign_keys=1")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	l := &liveDB{path: path, db: db}
	t.Cleanup(func() { l.close() })
	for _, q := range strings.Split(schema, ";") {
		if strings.TrimSpace(q) != "" {
			l.exec(t, q)
		}
	}
	return l
}

func (l *liveDB) exec(t testing.TB, q string, args ...any) {
	t.Helper()
	if _, err := l.db.Exec(q, args...); err != nil {
		t.Fatalf("%.100s: %v", q, err)
	}
}

// close ends the writer: SQLite checkpoints and removes the -wal, leaving
// a quiescent file (read immutable).
func (l *liveDB) close() {
	if l.db != nil {
		l.db.Close()
		l.db = nil
	}
}

// rows maps each indexed result of one harness to its row, by call id.
func rowsOf(t testing.TB, d *DB, harness string) map[string]ResultRow {
	t.Helper()
	rows, err := d.Results(context.Background(), ResultFilter{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]ResultRow{}
	for _, r := range rows {
		if r.Harness == harness {
			out[r.CallID] = r
		}
	}
	return out
}

// sessionsOf maps each indexed session of one harness to its summary, by
// the harness's session id.
func sessionsOf(t testing.TB, d *DB, harness string) map[string]SessionSummary {
	t.Helper()
	ss, err := d.BrowseSessions(context.Background(), SessionFilter{Limit: 5000})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]SessionSummary{}
	for _, s := range ss {
		if s.Harness == harness {
			out[s.SessionID] = s
		}
	}
	return out
}

// textOf reads a result back through its harness and joins its text.
func textOf(t testing.TB, d *DB, id int64) string {
	t.Helper()
	_, res, err := d.LoadResult(context.Background(), id)
	if err != nil {
		t.Fatalf("read back %d: %v", id, err)
	}
	var b strings.Builder
	for _, blk := range res.Content {
		b.WriteString(blk.Text)
	}
	return b.String()
}

// diagCodes counts the indexed diagnostics by code.
func diagCodes(t testing.TB, d *DB) map[string]int {
	t.Helper()
	ds, err := d.BrowseDiagnostics(context.Background(), 10000)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, dg := range ds {
		out[dg.Code]++
	}
	return out
}

// testEnv is a machine with its own temp and data folders.
func testEnv(vars map[string]string) Env {
	return Env{Getenv: func(k string) string { return vars[k] }}
}

// compactionsOf lists one session's stored compaction events.
func compactionsOf(t testing.TB, d *DB, s SessionSummary) []Compaction {
	t.Helper()
	cs, err := d.Compactions(context.Background(), s.ID)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// TestDBReadError: what a failed database pass keeps.
func TestDBReadError(t *testing.T) {
	ctx := context.Background()
	changed := fmt.Errorf("pass: %w", readkit.ErrChangedWhileRead)
	tests := []struct {
		name   string
		cursor string
		err    error
		retry  bool
		diags  int
	}{
		{"changed under a first read", "", changed, true, 0},
		{"changed under a later read", `{"db":{}}`, changed, true, 0},
		{"a later read that fails keeps what is stored", `{"db":{}}`, errors.New("disk I/O error"), true, 0},
		{"a first read that fails says why", "", errors.New("file is not a database"), false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Parsed{}
			st, done, err := dbRead(ctx, Source{Cursor: tt.cursor}, p, tt.err, "OpenCode")
			if !done || err != nil || st.Retry != tt.retry || len(p.Diags) != tt.diags {
				t.Fatalf("%+v done %v err %v diags %+v", st, done, err, p.Diags)
			}
			if tt.retry && st.Cursor != tt.cursor {
				t.Errorf("cursor %q, want the old one %q", st.Cursor, tt.cursor)
			}
		})
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, done, err := dbRead(cancelled, Source{}, &Parsed{}, context.Canceled, "goose"); !done || !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled pass: done %v err %v", done, err)
	}
	if _, done, _ := dbRead(ctx, Source{}, &Parsed{}, nil, "goose"); done {
		t.Error("a pass without an error is done")
	}
}

// testRetry is a harness whose next read of a file sees it change under
// it when torn[path] is set (as a database a writer opens mid-read): the
// read reports a result and Retry.
type testRetry struct{}

const harnessTestRetry = "test-retry"

var torn = map[string]bool{}

func init() { Register(testRetry{}) }

func (testRetry) Name() string                    { return harnessTestRetry }
func (testRetry) Label() string                   { return "Test retry" }
func (testRetry) DefaultRoots(Env) []string       { return nil }
func (testRetry) Notices() []NoticeRule           { return nil }
func (testRetry) Locations(SessionRef) []Location { return nil }
func (testRetry) SpillCandidates(n string, s SessionRef) []string {
	return []string{namedPath(n, s.Path)}
}
func (testRetry) Detect(p *Probe) Match {
	if strings.HasSuffix(p.Base(), ".retrytest") {
		return MatchPath
	}
	return MatchNone
}

func (testRetry) Read(ctx context.Context, src Source, p *Parsed) (ReadState, error) {
	b, err := os.ReadFile(src.Path)
	if err != nil {
		return ReadState{}, err
	}
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		p.AddResult(ToolResult{CallID: fmt.Sprintf("c%d", i), ToolName: "t", Blocks: []retention.Block{{Type: retention.TypeText, Text: line}}})
	}
	if torn[src.Path] {
		torn[src.Path] = false
		return ReadState{Cursor: src.Cursor, Mode: ReadChanged, Retry: true}, nil
	}
	return ReadState{Cursor: "read", Mode: ReadAll}, nil
}

func (testRetry) ReadResult(path string, loc Locator, callID string) (retention.Result, error) {
	return retention.Result{}, ErrResultGone
}

// TestRetryKeepsStored: a pass that saw its source change under it writes
// nothing (what earlier passes stored stays, ids and all), and the next
// pass reads the source again though it has not changed since.
func TestRetryKeepsStored(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "a.retrytest")
	writeFile(t, path, "one\n")
	torn[path] = true
	d := openTemp(t)
	if s := index(t, d, root); s.Files != 0 || s.ToolResults != 0 {
		t.Fatalf("a torn first read was stored: %+v", s)
	}
	if s := index(t, d, root); s.Files != 1 || s.ToolResults != 1 || s.ChangedFiles != 1 {
		t.Fatalf("the next pass did not read it again: %+v", s)
	}
	before := rowsOf(t, d, harnessTestRetry)
	writeFile(t, path, "one\ntwo\nthree\n")
	bump(t, path)
	torn[path] = true
	if s := index(t, d, root); s.ToolResults != 1 {
		t.Fatalf("a torn pass replaced what was stored: %+v", s)
	}
	if s := index(t, d, root); s.ToolResults != 3 || s.ChangedFiles != 1 {
		t.Fatalf("the pass after a torn one did not read again: %+v", s)
	}
	if after := rowsOf(t, d, harnessTestRetry); after["c0"].ID != before["c0"].ID {
		t.Errorf("id %d, was %d", after["c0"].ID, before["c0"].ID)
	}
}

// TestKitHarnessesRealFixtures: every OpenCode and Copilot CLI result of the
// shared fixtures reads back through its harness with the size the index
// recorded and the tool name the raw files give its call (read here with
// encoding/json).
func TestKitHarnessesRealFixtures(t *testing.T) {
	root := realRoot(t)
	d := openTemp(t)
	index(t, d, root)
	want := map[string]string{}
	filepath.WalkDir(root, func(path string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		switch {
		case strings.HasPrefix(rel, "copilot/"):
			b, _ := os.ReadFile(path)
			for _, line := range strings.Split(string(b), "\n") {
				var ev struct {
					Type string `json:"type"`
					Data struct {
						ToolCallID string `json:"toolCallId"`
						ToolName   string `json:"toolName"`
					} `json:"data"`
				}
				if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == "tool.execution_start" {
					want[ev.Data.ToolCallID] = ev.Data.ToolName
				}
			}
		case strings.HasPrefix(rel, "opencode/"):
			var doc struct {
				Messages []struct {
					Parts []struct {
						Type, CallID, Tool string
					} `json:"parts"`
				} `json:"messages"`
			}
			b, _ := os.ReadFile(path)
			json.Unmarshal(b, &doc)
			for _, m := range doc.Messages {
				for _, p := range m.Parts {
					if p.Type == "tool" {
						want[p.CallID] = p.Tool
					}
				}
			}
		}
		return nil
	})
	n := 0
	for _, h := range []string{HarnessCopilot, HarnessOpenCode} {
		for call, r := range rowsOf(t, d, h) {
			n++
			if r.ToolName != want[call] || r.ToolName == "" {
				t.Errorf("%s %s: tool %q, the file says %q", h, call, r.ToolName, want[call])
			}
			_, res, err := d.LoadResult(t.Context(), r.ID)
			if err != nil {
				t.Errorf("%s %s: %v", h, call, err)
				continue
			}
			var size int64
			for _, b := range res.Content {
				size += int64(len(b.Text))
			}
			if size != r.TextBytes {
				t.Errorf("%s %s: read back %d bytes, indexed %d", h, call, size, r.TextBytes)
			}
		}
	}
	census := fixtures.CountReal(t, root)
	if w := census.Harness[HarnessCopilot].ToolResults + census.Harness[HarnessOpenCode].ToolResults; n != w || n == 0 {
		t.Errorf("%d results of the two harnesses, the fixtures hold %d", n, w)
	}
}
