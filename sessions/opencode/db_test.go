package opencode

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"spillscope/sessions/internal/testkit"
)

// fixtureDB is a small OpenCode database: one session with a user message
// and an assistant message holding two finished calls, a running one and a
// step-finish; a second session whose assistant message has no step-finish.
type fixtureDB struct {
	path string
	db   *sql.DB
	now  int64
}

func newFixtureDB(t *testing.T) *fixtureDB {
	t.Helper()
	f := &fixtureDB{path: filepath.Join(t.TempDir(), "opencode.db"), now: 1773867525000}
	f.db = openWriter(t, f.path)
	t.Cleanup(func() { f.db.Close() })
	for _, q := range splitSQL(schema) {
		exec(t, f.db, q)
	}
	exec(t, f.db, "INSERT INTO project VALUES ('proj1', '/w', ?, ?)", f.now, f.now)
	f.session(t, "ses_1", "")
	f.session(t, "ses_2", "ses_1")
	f.message(t, "msg_1", "ses_1", map[string]any{"role": "user", "time": map[string]any{"created": f.now}, "agent": "build",
		"model": map[string]any{"providerID": "anthropic", "modelID": "claude-opus-4-6"}, "summary": map[string]any{"diffs": []any{}}})
	f.message(t, "msg_2", "ses_1", assistantInfo("msg_2", f.now+1))
	f.part(t, "prt_1", "msg_1", "ses_1", map[string]any{"type": "text", "text": "please"})
	f.part(t, "prt_2", "msg_2", "ses_1", toolPart("c1", "read", "completed", "1: a", nil))
	f.part(t, "prt_3", "msg_2", "ses_1", toolPart("c2", "bash", "completed", "...output truncated...\n\nFull output saved to: /d/tool-output/tool_c3eee3824001r2ysEXPDkHoY3U\n\nlast", map[string]any{
		"metadata": map[string]any{"output": "last", "exit": 0, "truncated": true, "outputPath": "/d/tool-output/tool_c3eee3824001r2ysEXPDkHoY3U"}}))
	f.part(t, "prt_4", "msg_2", "ses_1", toolPart("c3", "bash", "running", "", nil))
	f.part(t, "prt_5", "msg_2", "ses_1", stepFinish(3, 283, 0, 20644))
	a := assistantInfo("msg_3", f.now+2)
	a["tokens"] = map[string]any{"input": 9, "output": 1, "reasoning": 0, "cache": map[string]any{"read": 50, "write": 0}}
	f.message(t, "msg_3", "ses_2", a)
	return f
}

func (f *fixtureDB) tick() int64 { f.now += 10; return f.now }

func (f *fixtureDB) session(t *testing.T, id, parent string) {
	t.Helper()
	now := f.tick()
	var p any
	if parent != "" {
		p = parent
	}
	exec(t, f.db, `INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, agent, model, time_created, time_updated)
		VALUES (?, 'proj1', ?, 'quick-panda', '/w', 'Title '||?, '1.3.0', 'build', ?, ?, ?)`, id, p, id,
		`{"id":"claude-opus-4-6","providerID":"anthropic"}`, now, now)
}

func (f *fixtureDB) message(t *testing.T, id, sid string, data map[string]any) {
	t.Helper()
	delete(data, "id")
	delete(data, "sessionID") // a row keeps them in columns
	now := f.tick()
	exec(t, f.db, "INSERT INTO message VALUES (?, ?, ?, ?, ?)", id, sid, now, now, testkit.MustJSON(t, data))
}

func (f *fixtureDB) part(t *testing.T, id, mid, sid string, data map[string]any) {
	t.Helper()
	for _, k := range []string{"id", "messageID", "sessionID"} {
		delete(data, k)
	}
	now := f.tick()
	exec(t, f.db, "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", id, mid, sid, now, now, testkit.MustJSON(t, data))
}

func (f *fixtureDB) update(t *testing.T, id string, data map[string]any) {
	t.Helper()
	for _, k := range []string{"id", "messageID", "sessionID"} {
		delete(data, k)
	}
	exec(t, f.db, "UPDATE part SET data = ?, time_updated = ? WHERE id = ?", testkit.MustJSON(t, data), f.tick(), id)
}

func splitSQL(s string) []string {
	var out []string
	for _, q := range splitOn(s, ';') {
		if len(q) > 0 {
			out = append(out, q)
		}
	}
	return out
}

func splitOn(s string, sep byte) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == sep {
			if q := trimSpace(s[start:i]); q != "" {
				out = append(out, q)
			}
			start = i + 1
		}
	}
	return out
}

func trimSpace(s string) string {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\n' || s[0] == '\t') {
		s = s[1:]
	}
	return s
}

func dirFiles(t *testing.T, dir string) []string {
	t.Helper()
	es, _ := os.ReadDir(dir)
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

func TestDB(t *testing.T) {
	f := newFixtureDB(t)
	if !DetectDB(f.path) || Detect(f.path) != KindDB {
		t.Fatal("database not detected")
	}
	// first pass, with OpenCode still running (its -wal open)
	c, cur := readDB(t, f.path, DBCursor{})
	if len(c.Sessions) != 2 || !c.Sessions[0].Complete || !c.Sessions[1].Complete || c.Sessions[1].ParentID != "ses_1" ||
		c.Sessions[0].Model != "claude-opus-4-6" || c.Sessions[0].Version != "1.3.0" {
		t.Fatalf("sessions %+v", c.Sessions)
	}
	if got := c.calls(); !reflect.DeepEqual(got, []string{"c1", "c2"}) {
		t.Fatalf("calls %v (a running call has no result yet)", got)
	}
	r := c.Results[1]
	if r.Notice == nil || r.Notice.Kind != NoticeShell || !r.Truncated || r.OutputPath != "/d/tool-output/tool_c3eee3824001r2ysEXPDkHoY3U" ||
		r.Row == 0 || r.Locator != (Locator{Source: SourceDB, PartID: "prt_3"}) || r.Model != "claude-opus-4-6" {
		t.Errorf("%+v", r)
	}
	if len(c.Usage) != 2 || c.Usage[0].Key != "prt_5" || c.Usage[0].CacheWrite != 20644 || !c.Usage[1].FromMessage || c.Usage[1].CacheRead != 50 {
		t.Errorf("usage %+v", c.Usage)
	}
	back, err := ReadResult(context.Background(), f.path, r.Locator)
	if err != nil || back.CallID != "c2" || back.SessionID != "ses_1" || !reflect.DeepEqual(back.Blocks, r.Blocks) {
		t.Errorf("ReadResult = %+v, %v", back, err)
	}
	raw, _ := json.Marshal(cur)
	var stored DBCursor
	json.Unmarshal(raw, &stored)

	// nothing changed: the boundary rows may repeat, nothing new appears
	c2, _ := readDB(t, f.path, stored)
	for _, x := range c2.Results {
		if x.CallID != "c2" {
			t.Errorf("unchanged pass reported %s", x.CallID)
		}
	}

	// the running call completes, a new call is added: only those come back
	f.update(t, "prt_4", toolPart("c3", "bash", "completed", "done", nil))
	f.part(t, "prt_6", "msg_2", "ses_1", toolPart("c4", "grep", "error", "no match", nil))
	c3, cur3 := readDB(t, f.path, stored)
	if got := c3.calls(); !reflect.DeepEqual(got, []string{"c3", "c4"}) {
		t.Errorf("incremental calls %v", got)
	}
	for _, s := range c3.Sessions {
		if s.Complete {
			t.Errorf("an appended session was re-read whole: %+v", s)
		}
	}

	// a revert deletes rows: the session is reported whole again
	exec(t, f.db, "DELETE FROM part WHERE id = 'prt_2'")
	c4, cur4 := readDB(t, f.path, cur3)
	var whole bool
	for _, s := range c4.Sessions {
		whole = whole || s.ID == "ses_1" && s.Complete
	}
	if got := c4.calls(); !whole || !reflect.DeepEqual(got, []string{"c2", "c3", "c4"}) {
		t.Errorf("after delete: complete %v calls %v", whole, got)
	}

	// a deleted session is reported gone
	exec(t, f.db, "DELETE FROM session WHERE id = 'ses_2'")
	c5, _ := readDB(t, f.path, cur4)
	var gone bool
	for _, s := range c5.Sessions {
		gone = gone || s.ID == "ses_2" && s.Deleted
	}
	if !gone {
		t.Errorf("deleted session not reported: %+v", c5.Sessions)
	}

	// once OpenCode closes, a read creates nothing beside the database
	f.db.Close()
	dir := filepath.Dir(f.path)
	before := dirFiles(t, dir)
	if c6, _ := readDB(t, f.path, DBCursor{}); len(c6.Results) != 3 {
		t.Errorf("quiescent read: %d results", len(c6.Results))
	}
	if after := dirFiles(t, dir); !reflect.DeepEqual(after, before) {
		t.Errorf("files %v after a read, %v before", after, before)
	}
}

func TestDBNotOpenCode(t *testing.T) {
	p := filepath.Join(t.TempDir(), "other.db")
	db := openWriter(t, p)
	exec(t, db, "CREATE TABLE session (id text, x text)")
	db.Close()
	c, _ := readDB(t, p, DBCursor{})
	if got := c.Codes(); !reflect.DeepEqual(got, []string{DiagNotDatabase}) || DetectDB(p) {
		t.Errorf("%v", got)
	}
}

func TestDBBadRow(t *testing.T) {
	f := newFixtureDB(t)
	exec(t, f.db, "INSERT INTO part VALUES ('prt_x', 'msg_2', 'ses_1', ?, ?, '{broken')", f.tick(), f.now)
	// a message row that does not parse, before the one holding the calls
	exec(t, f.db, "INSERT INTO message VALUES ('msg_0', 'ses_1', 0, ?, 'nope')", f.tick())
	exec(t, f.db, "INSERT INTO part VALUES ('prt_y', 'msg_0', 'ses_1', ?, ?, ?)", f.tick(), f.now, testkit.MustJSON(t, toolPart("c0", "read", "completed", "z", nil)))
	c, _ := readDB(t, f.path, DBCursor{})
	if got := c.Codes(); !reflect.DeepEqual(got, []string{DiagBadJSON, DiagBadJSON}) || c.Diags[0].Row == 0 {
		t.Errorf("%v %+v", got, c.Diags)
	}
	if got := c.calls(); !reflect.DeepEqual(got, []string{"c0", "c1", "c2"}) || c.Results[1].Model == "" {
		t.Errorf("calls %v", got)
	}
}
