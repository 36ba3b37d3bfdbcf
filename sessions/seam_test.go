package sessions

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"spillscope/retention"
)

// testDB is a harness of the kind OpenCode's SQLite storage will be: one
// source (a database) holding many sessions, read incrementally by the
// database's own change marker, results read back by row id. It lives in
// the tests to hold the seam to that shape before such a harness exists.
type testDB struct{}

const harnessTestDB = "test-db"

func init() { Register(testDB{}) }

func (testDB) Name() string                                    { return harnessTestDB }
func (testDB) Label() string                                   { return "Test database" }
func (testDB) DefaultRoots(Env) []string                       { return nil }
func (testDB) Notices() []NoticeRule                           { return nil }
func (testDB) Locations(SessionRef) []Location                 { return nil }
func (testDB) SpillCandidates(n string, s SessionRef) []string { return []string{namedPath(n, s.Path)} }

func (testDB) Detect(p *Probe) Match {
	if strings.HasSuffix(p.Base(), ".testdb") {
		return MatchPath
	}
	return MatchNone
}

func openTestDB(path string) (*sql.DB, error) {
	return sql.Open("sqlite3", "file:"+path+"?mode=ro")
}

// Read: rows updated after the cursor (the largest "updated" seen), each a
// result of its session; the first pass reads everything.
func (testDB) Read(ctx context.Context, src Source, p *Parsed) (ReadState, error) {
	db, err := openTestDB(src.Path)
	if err != nil {
		return ReadState{}, err
	}
	defer db.Close()
	since, _ := strconv.ParseInt(src.Cursor, 10, 64)
	rows, err := db.QueryContext(ctx, `SELECT id, session, call, tool, text, updated FROM parts WHERE updated > ? ORDER BY id`, since)
	if err != nil {
		p.Diag(0, DiagUnreadable, map[string]string{"error": err.Error()})
		return ReadState{Mode: ReadAll}, nil
	}
	defer rows.Close()
	p.NotSession = true
	seen := map[string]bool{}
	last := since
	for rows.Next() {
		var id, updated int64
		var sess, call, tool, text string
		if err := rows.Scan(&id, &sess, &call, &tool, &text, &updated); err != nil {
			return ReadState{}, err
		}
		if !seen[sess] {
			seen[sess] = true
			p.AddSession(SessionInfo{ID: sess, Project: "/p/" + sess, Model: "claude-sonnet-4-5"})
		}
		p.AddCallIn(sess, call, tool)
		p.AddResult(ToolResult{CallID: call, ToolName: tool, Session: sess, Locator: Locator{Offset: id}, Line: id,
			Blocks: []retention.Block{{Type: retention.TypeText, Text: text}}})
		last = max(last, updated)
	}
	mode := ReadChanged
	if src.Cursor == "" {
		mode = ReadAll
	}
	return ReadState{Cursor: strconv.FormatInt(last, 10), Mode: mode}, rows.Err()
}

func (testDB) ReadResult(path string, loc Locator, callID string) (retention.Result, error) {
	db, err := openTestDB(path)
	if err != nil {
		return retention.Result{}, err
	}
	defer db.Close()
	var text string
	if err := db.QueryRow(`SELECT text FROM parts WHERE id = ? AND call = ?`, loc.Offset, callID).Scan(&text); err != nil {
		return retention.Result{}, fmt.Errorf("%w: %v", ErrResultGone, err)
	}
	return retention.Result{Content: []retention.Block{{Type: retention.TypeText, Text: text}}}, nil
}

func execAll(t *testing.T, db *sql.DB, qs ...string) {
	t.Helper()
	for _, q := range qs {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%.80s: %v", q, err)
		}
	}
}

func idsByCall(t *testing.T, d *DB) map[string]ResultRow {
	t.Helper()
	rows, err := d.Results(t.Context(), ResultFilter{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]ResultRow{}
	for _, r := range rows {
		k := r.CallID
		if r.Ordinal > 0 {
			k = fmt.Sprintf("%s#%d", r.CallID, r.Ordinal)
		}
		out[k] = r
	}
	return out
}

// TestDatabaseHarness: one source, many sessions, passes by the change
// marker: updated rows replace their results (ids kept, a changed one
// counted again), new rows and sessions join, nothing is dropped.
func TestDatabaseHarness(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "store", "opencode.testdb")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	execAll(t, src, `CREATE TABLE parts (id INTEGER PRIMARY KEY, session TEXT, call TEXT, tool TEXT, text TEXT, updated INTEGER)`,
		`INSERT INTO parts VALUES (1, 'ses_a', 'c1', 'bash', 'one one one', 1), (2, 'ses_a', 'c2', 'read', 'two', 2), (3, 'ses_b', 'c3', 'grep', 'three', 3)`)
	d := openTemp(t)
	s := index(t, d, root)
	if s.Files != 1 || s.Sessions != 2 || s.ToolResults != 3 || s.PerHarness[harnessTestDB].Sessions != 2 {
		t.Fatalf("first pass %+v", s)
	}
	if err := d.Enrich(t.Context(), EnrichOptions{Workers: 1}); err != nil {
		t.Fatal(err)
	}
	before := idsByCall(t, d)
	if before["c1"].SessionID != "ses_a" || before["c3"].SessionID != "ses_b" || before["c2"].ToolName != "read" || before["c1"].EstTokens == nil {
		t.Fatalf("rows %+v", before)
	}
	execAll(t, src, `UPDATE parts SET text = 'uno, rewritten at more length', updated = 4 WHERE id = 1`,
		`INSERT INTO parts VALUES (4, 'ses_b', 'c4', 'bash', 'four', 5), (5, 'ses_c', 'c5', 'bash', 'five', 6)`)
	bump(t, path)
	s = index(t, d, root)
	if s.Sessions != 3 || s.ToolResults != 5 || s.ChangedFiles != 1 {
		t.Fatalf("second pass %+v", s)
	}
	after := idsByCall(t, d)
	for _, c := range []string{"c1", "c2", "c3"} {
		if after[c].ID != before[c].ID {
			t.Errorf("%s: id %d, was %d", c, after[c].ID, before[c].ID)
		}
	}
	if after["c1"].EstTokens != nil || after["c1"].TextBytes != int64(len("uno, rewritten at more length")) {
		t.Errorf("a changed row keeps its old count or size: %+v", after["c1"])
	}
	if after["c2"].EstTokens == nil || *after["c2"].EstTokens != *before["c2"].EstTokens {
		t.Errorf("an unchanged row lost its count: %+v", after["c2"])
	}
	if after["c4"].SessionID != "ses_b" || after["c5"].SessionID != "ses_c" {
		t.Errorf("new rows: %+v %+v", after["c4"], after["c5"])
	}
	if err := d.Enrich(t.Context(), EnrichOptions{Workers: 1}); err != nil {
		t.Fatal(err)
	}
	for word, want := range map[string]int{"one": 0, "rewritten": 1, "three": 1} {
		if hits, err := d.Search(t.Context(), `"`+word+`"`, OrderSource, 10); err != nil || len(hits) != want {
			t.Errorf("search %q: %d hits (%v), want %d", word, len(hits), err, want)
		}
	}
	_, res, err := d.LoadResult(t.Context(), after["c1"].ID)
	if err != nil || len(res.Content) != 1 || res.Content[0].Text != "uno, rewritten at more length" {
		t.Errorf("read back by row id: %+v %v", res, err)
	}
	ss, _ := d.BrowseSessions(t.Context(), SessionFilter{})
	for _, x := range ss {
		if x.File != path || !strings.HasPrefix(x.Project, "/p/ses_") {
			t.Errorf("session %+v", x)
		}
	}
}

// bump moves a file's mtime on, as a writer's next second would.
func bump(t *testing.T, path string) {
	t.Helper()
	st := mustStat(t, path)
	future := st.ModTime().Add(2e9)
	if err := os.Chtimes(path, future, future); err != nil {
		t.Fatal(err)
	}
}

func geminiDoc(indent string, calls ...string) string {
	var msgs []any
	for _, c := range calls {
		msgs = append(msgs, map[string]any{"id": "m-" + c, "type": "gemini", "model": "gemini-2.5-pro", "toolCalls": []any{
			map[string]any{"id": c, "name": "shell", "status": "success", "result": []any{map[string]any{"functionResponse": map[string]any{
				"id": c, "name": "shell", "response": map[string]any{"output": "output of " + c}}}}}}})
	}
	doc := map[string]any{"sessionId": "g1", "projectHash": "abc", "lastUpdated": "2026-01-0" + strconv.Itoa(len(calls)) + "T00:00:00Z", "messages": msgs}
	b := mustJSON(doc)
	if indent != "" {
		b = strings.ReplaceAll(b, ",", ","+indent)
	}
	return b
}

// TestRewriteKeepsIDs: Gemini CLI rewrites its chat file every turn; the
// results keep their ids (and their counts and search terms) through it,
// and a call gone from the file leaves the index.
func TestRewriteKeepsIDs(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "tmp", "abc", "chats", "session-1.json")
	writeFile(t, path, geminiDoc("", "c1", "c2"))
	d := openTemp(t)
	index(t, d, root)
	if err := d.Enrich(t.Context(), EnrichOptions{Workers: 1}); err != nil {
		t.Fatal(err)
	}
	before := idsByCall(t, d)
	// The next turn: everything moves (a longer document, other spacing).
	writeFile(t, path, geminiDoc("\n  ", "c1", "c2", "c3"))
	bump(t, path)
	s := index(t, d, root)
	if s.ToolResults != 3 {
		t.Fatalf("%+v", s)
	}
	after := idsByCall(t, d)
	for _, c := range []string{"c1", "c2"} {
		if after[c].ID != before[c].ID || after[c].Offset == before[c].Offset {
			t.Errorf("%s: id %d at %d, was %d at %d", c, after[c].ID, after[c].Offset, before[c].ID, before[c].Offset)
		}
		if after[c].EstTokens == nil {
			t.Errorf("%s lost its token count across the rewrite", c)
		}
	}
	hits, err := d.Search(t.Context(), `"c1"`, OrderSource, 10)
	if err != nil || len(hits) != 1 || hits[0].ID != before["c1"].ID {
		t.Errorf("search after the rewrite: %+v %v", hits, err)
	}
	_, res, err := d.LoadResult(t.Context(), after["c2"].ID)
	if err != nil || res.Content[0].Text != "output of c2" {
		t.Errorf("read back at the new place: %+v %v", res, err)
	}
	writeFile(t, path, geminiDoc("", "c1", "c3"))
	bump(t, path)
	index(t, d, root)
	last := idsByCall(t, d)
	if _, ok := last["c2"]; ok || last["c1"].ID != before["c1"].ID || last["c3"].ID != after["c3"].ID {
		t.Errorf("after dropping c2: %+v", last)
	}
}

// TestRepeatedCallIDs: results sharing a call id are told apart by their
// ordinal, counted on across appended passes.
func TestRepeatedCallIDs(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "p", "r.jsonl")
	writeFile(t, path, cResult("r", "toolu_x", "first")+cResult("r", "toolu_x", "second"))
	d := openTemp(t)
	index(t, d, root)
	appendFile(t, path, cResult("r", "toolu_x", "third"))
	s := index(t, d, root)
	if s.ToolResults != 3 {
		t.Fatalf("%+v", s)
	}
	got := idsByCall(t, d)
	for k, want := range map[string]string{"toolu_x": "first", "toolu_x#1": "second", "toolu_x#2": "third"} {
		_, res, err := d.LoadResult(t.Context(), got[k].ID)
		if err != nil || res.Content[0].Text != want {
			t.Errorf("%s: %+v %v, want %q", k, res, err, want)
		}
	}
}

// TestUnknownTypesCounted: one diagnostic per unknown type and file, with
// its count and first line, across appended passes too.
func TestUnknownTypesCounted(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "p", "u.jsonl")
	var b strings.Builder
	b.WriteString(cResult("u", "t1", "x"))
	for i := 0; i < 312; i++ {
		b.WriteString(`{"type":"brand-new","sessionId":"u"}` + "\n")
	}
	b.WriteString(`{"type":"other-new","sessionId":"u"}` + "\n")
	writeFile(t, path, b.String())
	d := openTemp(t)
	if s := index(t, d, root); s.Diagnostics != 2 || s.ToolResults != 1 {
		t.Fatalf("%+v", s)
	}
	appendFile(t, path, strings.Repeat(`{"type":"brand-new","sessionId":"u"}`+"\n", 5))
	if s := index(t, d, root); s.Diagnostics != 2 {
		t.Fatalf("after append %+v", s)
	}
	diags, _ := d.BrowseDiagnostics(t.Context(), 10)
	want := map[string][2]string{"brand-new": {"317", "2"}, "other-new": {"1", "314"}}
	for _, dg := range diags {
		w, ok := want[dg.Params["type"]]
		if dg.Code != DiagUnknownType || !ok || dg.Params["count"] != w[0] || dg.Params["firstLine"] != w[1] || strconv.FormatInt(dg.Line, 10) != w[1] {
			t.Errorf("diagnostic %+v", dg)
		}
		if dg.Params["type"] == "brand-new" && dg.Message != `unknown line type "brand-new": 317 lines skipped, the first at line 2` {
			t.Errorf("message %q", dg.Message)
		}
	}
}

// TestNotASession: a file claimed by its name that holds no record is one
// diagnostic and no session; a file no harness claims is not read at all.
func TestNotASession(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "sessions", "rollout-junk.jsonl"), strings.Repeat("not json at all\n", 40)+`{"type":"x","payload":{}}`+"\n")
	// A dsh header under a name dsh never gives a log (a backup copy).
	writeFile(t, filepath.Join(root, "dsh", "--p--", "s1", "session.jsonl.bak"), `{"type":"session","version":0,"id":"s1","createdAt":1,"delegationDepth":0}`+"\n"+
		`{"type":"tool/result","data":{"message":{"role":"user"}},"sourceEventSeqs":[3]}`+"\n")
	d := openTemp(t)
	s := index(t, d, root)
	if s.Files != 1 || s.Sessions != 0 || s.Diagnostics != 1 {
		t.Fatalf("%+v", s)
	}
	diags, _ := d.BrowseDiagnostics(t.Context(), 10)
	if len(diags) != 1 || diags[0].Code != DiagNotASession || diags[0].Params["lines"] != "41" || diags[0].Params["harness"] != "Codex CLI" {
		t.Errorf("%+v", diags)
	}
}

func TestDetectIsPositive(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, rel, content, want string
	}{
		{"dsh log", "dsh/--p--/s/session.jsonl", `{"type":"session","version":0,"id":"s","createdAt":1,"cwd":"/w","delegationDepth":0}` + "\n" +
			`{"type":"user/message","data":{"message":{"role":"user","content":[]}},"surfaceOp":"append"}` + "\n", HarnessDsh},
		{"dsh generation", "dsh/--p--/g/session.v3.jsonl", `{"type":"session","version":3,"id":"g","createdAt":1,"delegationDepth":0}` + "\n", HarnessDsh},
		{"dsh snapshot child", "dsh/snap/session.2.jsonl", `{"type":"session","version":0,"id":"c","createdAt":1,"delegationDepth":1}` + "\n", HarnessDsh},
		{"dsh flat layout", "dsh/0123456789ab/c1.jsonl", `{"type":"session","version":0,"id":"c1","createdAt":1,"delegationDepth":0}` + "\n", HarnessDsh},
		{"dsh expected log", "dsh/snap/session.expected.jsonl", `{"type":"session","version":0,"id":"c","createdAt":1,"delegationDepth":1}` + "\n", ""},
		{"dsh name without header", "dsh/--p--/n/session.jsonl", `{"type":"user","content":"hi"}` + "\n", ""},
		{"dsh header with no id", "dsh/--p--/e/session.jsonl", `{"type":"session","version":0,"id":"","createdAt":1}` + "\n", ""},
		{"dsh replay", "dsh/x/child.replay.jsonl", `{"type":"session","version":0,"id":"c","createdAt":2,"delegationDepth":1}` + "\n", ""},
		{"copilot events in its layout", "copilot/session-state/u/events.jsonl", `{"type":"session.start","data":{"sessionId":"u"},"id":"e1","timestamp":"t","parentId":null}` + "\n", HarnessCopilot},
		{"copilot-shaped start elsewhere, not the agent's", "misc/u/events.jsonl", `{"type":"session.start","data":{"sessionId":"u"},"id":"e1","timestamp":"t","parentId":null}` + "\n", ""},
		{"copilot agent log elsewhere", "misc/v/log.jsonl", `{"type":"session.start","data":{"sessionId":"v","producer":"copilot-agent"},"id":"e1"}` + "\n", HarnessCopilot},
		{"goose legacy session", "goose/sessions/20250101_1.jsonl", `{"working_dir":"/w","description":"d","message_count":0}` + "\n", HarnessGoose},
		{"goose-shaped message", "misc/m.jsonl", `{"role":"user","created":1,"content":[]}` + "\n", HarnessGoose},
		{"opencode export", "opencode/export/ses_2.json", `{"info":{"id":"ses_2","directory":"/w","version":"1.2.27"},"messages":[]}`, HarnessOpenCode},
		{"opencode storage session", "opencode/storage/session/p1/ses_3.json", `{"id":"ses_3"}`, HarnessOpenCode},
		{"gemini jsonl", "gemini/tmp/h/chats/session-1.jsonl", `{"sessionId":"g","projectHash":"h","startTime":"t","lastUpdated":"t","kind":"main"}` + "\n" +
			`{"id":"m1","timestamp":"t","type":"user","content":[{"text":"hi"}]}` + "\n", HarnessGemini},
		{"gemini subagent jsonl", "gemini/tmp/h/chats/parent-id/child-id.jsonl", `{"sessionId":"child-id","projectHash":"h","kind":"subagent"}` + "\n", HarnessGemini},
		{"gemini-shaped header outside chats", "gemini/tmp/h/other/x/child-id.jsonl", `{"sessionId":"child-id","projectHash":"h","kind":"subagent"}` + "\n", ""},
		{"jsonl one below chats without a header", "gemini/tmp/h/chats/p/notes.jsonl", `{"id":"x"}` + "\n", ""},
		{"opencode export", "opencode/export/ses_1.json", `{"info":{"id":"ses_1"},"messages":[]}`, ""},
		{"empty claude transcript in its layout", "claude/projects/-w/5b97e2d4-d624-4af2-9fb8-7fc02540282a.jsonl", "", HarnessClaude},
		{"empty subagent transcript in its layout", "claude/projects/-w/5b97e2d4-d624-4af2-9fb8-7fc02540282a/subagents/agent-a1.jsonl", "", HarnessClaude},
		{"empty jsonl elsewhere", "misc/5b97e2d4-d624-4af2-9fb8-7fc02540282a.jsonl", "", ""},
		{"claude summary only", "misc/s.jsonl", `{"type":"summary","summary":"x","leafUuid":"u"}` + "\n", HarnessClaude},
		{"claude line after a huge one", "misc/h.jsonl", `{"type":"user","sessionId":"s","message":{"content":"` + strings.Repeat("x", 70<<10) + `"}}` + "\n", HarnessClaude},
		{"claude-typed line without its keys", "misc/n.jsonl", `{"type":"user","content":"hi"}` + "\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, filepath.FromSlash(tt.rel))
			writeFile(t, p, tt.content)
			if strings.Contains(tt.rel, "/storage/session/") {
				os.MkdirAll(filepath.Join(dir, "opencode", "storage", "message"), 0o755)
			}
			if got := detect(&Probe{Path: p}); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
