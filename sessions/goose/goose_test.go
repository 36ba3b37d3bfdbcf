package goose

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"spillscope/retention"
	"spillscope/sessions/internal/readkit"
	"spillscope/sessions/internal/testkit"
	"spillscope/sessions/samplegen"
)

type collected struct {
	testkit.Collected[Session, Result, Usage, Compaction]
}

func (c *collected) handler() Handler {
	return Handler{Session: c.OnSession, Result: c.OnResult, Usage: c.OnUsage, Compaction: c.OnCompaction, Diagnostic: c.OnDiagnostic}
}

func (c *collected) calls() []string { return c.Calls(func(r Result) string { return r.CallID }) }

// The content items below are serialised the way goose's serde
// definitions (conversation/message.rs, tool_result_serde.rs) write them.
func toolRequest(id, name string, args map[string]any) map[string]any {
	return map[string]any{"type": "toolRequest", "id": id, "toolCall": map[string]any{"status": "success", "value": map[string]any{"name": name, "arguments": args}}}
}

func toolResponse(id string, content ...map[string]any) map[string]any {
	if content == nil {
		content = []map[string]any{}
	}
	return map[string]any{"type": "toolResponse", "id": id, "toolResult": map[string]any{"status": "success", "value": map[string]any{"content": content, "isError": false}}}
}

func legacyResponse(id string, content ...map[string]any) map[string]any {
	return map[string]any{"type": "toolResponse", "id": id, "toolResult": map[string]any{"status": "success", "value": content}}
}

func errorResponse(id, msg string) map[string]any {
	return map[string]any{"type": "toolResponse", "id": id, "toolResult": map[string]any{"status": "error", "error": msg}}
}

func text(s string) map[string]any { return map[string]any{"type": "text", "text": s} }

// schemaV17 is sessions.db as session_manager.rs's create_schema makes it
// (CURRENT_SCHEMA_VERSION 17), the schema the sample generator writes.
const schemaV17 = samplegen.GooseSchema + `;INSERT INTO schema_version (version) VALUES (17);`

// schemaV1 is the first schema: no names, metadata, message ids, cache
// columns or usage ledger.
const schemaV1 = `
CREATE TABLE sessions (id TEXT PRIMARY KEY, description TEXT NOT NULL DEFAULT '', working_dir TEXT NOT NULL,
  created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, extension_data TEXT DEFAULT '{}',
  total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER, accumulated_total_tokens INTEGER,
  accumulated_input_tokens INTEGER, accumulated_output_tokens INTEGER, schedule_id TEXT, recipe_json TEXT);
CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id), role TEXT NOT NULL,
  content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL, timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, tokens INTEGER);
`

type gooseDB struct {
	path string
	db   *sql.DB
	ts   int64
}

func newGooseDB(t testing.TB, schema string) *gooseDB {
	t.Helper()
	g := &gooseDB{path: filepath.Join(t.TempDir(), "sessions", DBName), ts: 1767225600}
	os.MkdirAll(filepath.Dir(g.path), 0o700)
	db, err := sql.Open("sqlite3", "file:"+g.path+"?_journal_mode=WAL&_foreign_keys=1")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	g.db = db
	for _, q := range strings.Split(schema, ";") {
		if strings.TrimSpace(q) != "" {
			g.exec(t, q)
		}
	}
	return g
}

func (g *gooseDB) exec(t testing.TB, q string, args ...any) {
	t.Helper()
	if _, err := g.db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// add inserts a message as insert_message does and stamps the session.
func (g *gooseDB) add(t *testing.T, sid, role string, meta map[string]any, content ...map[string]any) {
	t.Helper()
	g.ts++
	mid := "msg_" + sid + "_" + strings.Repeat("x", int(g.ts%7)) + testkit.MustJSON(t, g.ts)
	if meta == nil {
		meta = map[string]any{"userVisible": true, "agentVisible": true}
	}
	g.exec(t, "INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, metadata_json) VALUES (?, ?, ?, ?, ?, ?)",
		mid, sid, role, testkit.MustJSON(t, content), g.ts, testkit.MustJSON(t, meta))
	g.exec(t, "UPDATE sessions SET updated_at = datetime('now', '+'||?||' seconds') WHERE id = ?", g.ts-1767225600, sid)
}

func (g *gooseDB) fill(t *testing.T) {
	t.Helper()
	g.exec(t, `INSERT INTO sessions (id, name, session_type, working_dir, created_at, updated_at, provider_name, model_config_json,
		input_tokens, output_tokens, total_tokens, cache_read_tokens, cache_write_tokens, accumulated_input_tokens, accumulated_output_tokens,
		accumulated_total_tokens, accumulated_cache_read_tokens, accumulated_cache_write_tokens, accumulated_cost)
		VALUES ('20260101_1', 'Fix the build', 'user', '/w', '2026-01-01T00:00:00Z', datetime('now'), 'anthropic', '{"model_name":"claude-sonnet-4-5"}',
		12000, 300, 12300, 9000, 1000, 40000, 900, 40900, 30000, 2000, 0.12)`)
	g.exec(t, `INSERT INTO sessions (id, name, session_type, working_dir, parent_session_id) VALUES ('20260101_2', 'explore', 'sub_agent', '/w', '20260101_1')`)
	g.add(t, "20260101_1", "user", nil, text("build it"))
	g.add(t, "20260101_1", "assistant", nil, text("looking"), toolRequest("call_1", "developer__shell", map[string]any{"command": "make"}),
		toolRequest("call_2", "developer__text_editor", map[string]any{"path": "/w/a.rs", "command": "view"}))
	g.add(t, "20260101_1", "user", nil,
		toolResponse("call_1", text("The response returned from the tool call was larger (250123 characters) and is stored in the file: /d/mcp_responses/mcp_response_20260101_000001.123456_Ab12Cd.txt\nYou can use other tools to examine or search it.")),
		toolResponse("call_2", text("fn main() {}"), map[string]any{"type": "text", "text": "for the user", "annotations": map[string]any{"audience": []string{"user"}}},
			map[string]any{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}))
	g.add(t, "20260101_2", "assistant", nil, toolRequest("call_3", "developer__shell", map[string]any{"command": "ls"}))
	g.add(t, "20260101_2", "user", nil, errorResponse("call_3", "Command failed"))
	if cols, _ := readkit.Columns(context.Background(), g.db, "usage_ledger"); cols["usage_ledger"]["id"] {
		g.exec(t, `INSERT INTO usage_ledger (session_id, created_timestamp, model, input_tokens, output_tokens, total_tokens, cache_read_tokens, cache_write_tokens, cost, cost_source, is_compaction)
			VALUES ('20260101_1', 1767225605, 'claude-sonnet-4-5', 12000, 300, 12300, 9000, 1000, 0.05, 'provider_reported', 0),
			       ('20260101_1', 1767225700, 'claude-sonnet-4-5', 30000, 600, 30600, 0, 0, 0.07, 'estimated', 1),
			       ('20260101_1', 1767225701, NULL, 100, 0, 100, 0, 0, NULL, 'carried_forward', 0)`)
	}
}

func readDB(t *testing.T, path string, from DBCursor) (*collected, DBCursor) {
	t.Helper()
	var c collected
	cur, err := ReadDB(context.Background(), path, from, c.handler())
	if err != nil {
		t.Fatalf("ReadDB: %v", err)
	}
	return &c, cur
}

func TestDB(t *testing.T) {
	g := newGooseDB(t, schemaV17)
	g.fill(t)
	if !DetectDB(g.path) || Detect(g.path) != KindDB {
		t.Fatal("not detected")
	}
	c, cur := readDB(t, g.path, DBCursor{})
	if len(c.Sessions) != 2 || !c.Sessions[0].Complete || c.Sessions[0].Model != "claude-sonnet-4-5" || c.Sessions[1].ParentID != "20260101_1" ||
		c.Sessions[1].Type != "sub_agent" || c.Sessions[0].Name != "Fix the build" {
		t.Fatalf("sessions %+v", c.Sessions)
	}
	if s := c.Sessions[0]; s.Last != (Totals{Input: 2000, CacheRead: 9000, CacheWrite: 1000, Output: 300, Total: 12300}) || s.Accumulated.Input != 8000 || s.Accumulated.Cost != 0.12 {
		t.Errorf("totals %+v", s)
	}
	if got := c.calls(); !reflect.DeepEqual(got, []string{"call_1", "call_2", "call_3"}) {
		t.Fatalf("calls %v", got)
	}
	r1, r2, r3 := c.Results[0], c.Results[1], c.Results[2]
	if r1.Tool != "developer__shell" || string(r1.Arguments) != `{"command":"make"}` || r1.Notice == nil || r1.Notice.Kind != NoticeLargeResponse ||
		r1.Notice.Characters != 250123 || r1.Notice.Path != "/d/mcp_responses/mcp_response_20260101_000001.123456_Ab12Cd.txt" || !r1.AgentVisible {
		t.Errorf("%+v", r1)
	}
	if len(r2.Blocks) != 2 || r2.Hidden != 1 || r2.Blocks[1].Type != retention.TypeImage || r2.Index != 1 {
		t.Errorf("%+v", r2)
	}
	if !r3.IsError || r3.Error != "Command failed" || r3.SessionID != "20260101_2" {
		t.Errorf("%+v", r3)
	}
	if len(c.Usage) != 3 || c.Usage[0].Input != 2000 || c.Usage[0].CacheRead != 9000 || !c.Usage[1].Compaction || !c.Usage[2].CarriedForward ||
		len(c.Compactions) != 1 || c.Compactions[0].Row != c.Usage[1].Row {
		t.Errorf("usage %+v compactions %+v", c.Usage, c.Compactions)
	}
	for _, r := range c.Results {
		back, err := ReadResult(context.Background(), g.path, r.Locator)
		if err != nil || back.CallID != r.CallID || !reflect.DeepEqual(back.Blocks, r.Blocks) {
			t.Errorf("ReadResult(%+v) = %s, %v", r.Locator, back.CallID, err)
		}
	}
	raw, _ := json.Marshal(cur)
	var stored DBCursor
	json.Unmarshal(raw, &stored)

	// appended messages: only the new response, with its earlier request found
	g.add(t, "20260101_1", "assistant", nil, toolRequest("call_4", "developer__shell", map[string]any{"command": "make test"}))
	g.add(t, "20260101_1", "user", nil, legacyResponse("call_4", text("ok")))
	g.add(t, "20260101_1", "user", nil, toolResponse("call_1b"))
	g.exec(t, `UPDATE messages SET content_json = ? WHERE content_json LIKE '%call_1b%'`, testkit.MustJSON(t, []any{toolResponse("call_2")}))
	c2, cur2 := readDB(t, g.path, stored)
	if got := c2.calls(); !reflect.DeepEqual(got, []string{"call_4", "call_2"}) {
		t.Fatalf("appended calls %v", got)
	}
	if c2.Results[1].Tool != "developer__text_editor" || c2.Results[0].Tool != "developer__shell" {
		t.Errorf("requests not found: %+v", c2.Results)
	}
	for _, s := range c2.Sessions {
		if s.Complete {
			t.Errorf("an appended session was re-read whole: %s", s.ID)
		}
	}
	if len(c2.Usage) != 0 {
		t.Errorf("ledger rows repeated: %+v", c2.Usage)
	}

	// a compaction hides old messages in place: the session is read whole
	g.exec(t, `UPDATE messages SET metadata_json = '{"userVisible":true,"agentVisible":false}' WHERE session_id = '20260101_1' AND id <= 3`)
	g.add(t, "20260101_1", "user", map[string]any{"userVisible": false, "agentVisible": true}, text("summary of the conversation"))
	c3, cur3 := readDB(t, g.path, cur2)
	if len(c3.Sessions) != 1 || !c3.Sessions[0].Complete || len(c3.Results) != 4 || c3.Results[0].AgentVisible || c3.Results[1].AgentVisible || !c3.Results[2].AgentVisible {
		t.Fatalf("after compaction: %+v %d results", c3.Sessions, len(c3.Results))
	}

	// replace_conversation deletes and re-inserts under new ids (without
	// touching updated_at): read whole again
	g.exec(t, "DELETE FROM messages WHERE session_id = '20260101_2'")
	g.exec(t, "INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp) VALUES ('m9', '20260101_2', 'assistant', ?, 1767225999)",
		testkit.MustJSON(t, []any{toolRequest("call_3", "developer__shell", map[string]any{})}))
	g.exec(t, "INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp) VALUES ('m10', '20260101_2', 'user', ?, 1767226000)",
		testkit.MustJSON(t, []any{errorResponse("call_3", "again")}))
	c4, cur4 := readDB(t, g.path, cur3)
	whole := map[string]bool{}
	for _, s := range c4.Sessions {
		whole[s.ID] = s.Complete // a session stamped in the cursor's last second is reported again, without its messages
	}
	if !reflect.DeepEqual(whole, map[string]bool{"20260101_1": false, "20260101_2": true}) || len(c4.Results) != 1 || c4.Results[0].Error != "again" {
		t.Fatalf("after rewrite: %+v %+v", c4.Sessions, c4.Results)
	}

	// a deleted session
	g.exec(t, "DELETE FROM messages WHERE session_id = '20260101_2'")
	g.exec(t, "DELETE FROM sessions WHERE id = '20260101_2'")
	c5, _ := readDB(t, g.path, cur4)
	var gone []string
	for _, s := range c5.Sessions {
		if s.Deleted {
			gone = append(gone, s.ID)
		}
	}
	if !reflect.DeepEqual(gone, []string{"20260101_2"}) || len(c5.Results) != 0 {
		t.Errorf("deletion: %+v", c5.Sessions)
	}

	// closed: reading creates nothing beside the database
	g.db.Close()
	dir := filepath.Dir(g.path)
	list := func() []string {
		es, _ := os.ReadDir(dir)
		var n []string
		for _, e := range es {
			n = append(n, e.Name())
		}
		sort.Strings(n)
		return n
	}
	before := list()
	readDB(t, g.path, DBCursor{})
	if after := list(); !reflect.DeepEqual(after, before) {
		t.Errorf("files %v after, %v before", after, before)
	}
}

func TestDBOldSchema(t *testing.T) {
	g := newGooseDB(t, schemaV1)
	g.exec(t, "INSERT INTO sessions (id, description, working_dir) VALUES ('20250601_1', 'old one', '/w')")
	g.exec(t, "INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES ('20250601_1', 'assistant', ?, 1748736000)",
		testkit.MustJSON(t, []any{toolRequest("c1", "developer__shell", map[string]any{})}))
	g.exec(t, "INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES ('20250601_1', 'user', ?, 1748736001)",
		testkit.MustJSON(t, []any{legacyResponse("c1", text("The response returned from the tool call was larger (200001 characters) and is stored in the file which you can use other tools to examine or search in: /tmp/goose_mcp_responses/mcp_response_20250601_000001.txt"))}))
	c, _ := readDB(t, g.path, DBCursor{})
	if len(c.Sessions) != 1 || c.Sessions[0].Name != "old one" || len(c.Results) != 1 || c.Results[0].Notice == nil ||
		c.Results[0].Notice.Path != "/tmp/goose_mcp_responses/mcp_response_20250601_000001.txt" || !c.Results[0].AgentVisible || len(c.Diags) != 0 {
		t.Fatalf("%+v %+v %+v", c.Sessions, c.Results, c.Diags)
	}
	back, err := ReadResult(context.Background(), g.path, c.Results[0].Locator)
	if err != nil || back.CallID != "c1" {
		t.Errorf("ReadResult = %+v, %v", back, err)
	}
}

func TestDBContentFaults(t *testing.T) {
	g := newGooseDB(t, schemaV17)
	g.exec(t, "INSERT INTO sessions (id, working_dir) VALUES ('s1', '/w')")
	g.add(t, "s1", "user", nil, map[string]any{"type": "hologram"}, map[string]any{"type": "hologram"}, map[string]any{"id": "x"},
		toolResponse("nobody_asked", text("x")))
	g.exec(t, "INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES ('s1', 'user', '{not json', 1)")
	c, _ := readDB(t, g.path, DBCursor{})
	got := c.Codes()
	sort.Strings(got)
	want := []string{DiagBadRecord, DiagBadRecord, DiagOrphanResult, DiagUnknownContent}
	if !reflect.DeepEqual(got, want) || len(c.Results) != 1 {
		t.Errorf("%v, want %v (%d results)", got, want, len(c.Results))
	}
	other := filepath.Join(t.TempDir(), "x.db")
	db, _ := sql.Open("sqlite3", other)
	db.Exec("CREATE TABLE t (a)")
	db.Close()
	var c2 collected
	if _, err := ReadDB(context.Background(), other, DBCursor{}, c2.handler()); err != nil || !reflect.DeepEqual(c2.Codes(), []string{DiagNotDatabase}) {
		t.Errorf("%v %v", err, c2.Codes())
	}
}

func TestJSONL(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sessions")
	p := filepath.Join(dir, "20250301_120000.jsonl")
	os.MkdirAll(dir, 0o755)
	meta := testkit.MustJSON(t, map[string]any{"working_dir": "/w", "description": "legacy", "schedule_id": nil, "message_count": 3,
		"total_tokens": 900, "input_tokens": 800, "output_tokens": 100, "accumulated_total_tokens": 2000, "accumulated_input_tokens": 1800, "accumulated_output_tokens": 200})
	line := func(role string, created int64, content ...map[string]any) string {
		return testkit.MustJSON(t, map[string]any{"id": nil, "role": role, "created": created, "content": content, "metadata": map[string]any{"userVisible": true, "agentVisible": true}})
	}
	first := meta + "\n" + line("user", 1740830400, text("hi")) + "\n" +
		line("assistant", 1740830401, toolRequest("c1", "developer__shell", map[string]any{"command": "ls"})) + "\n" +
		line("user", 1740830402, legacyResponse("c1", text("a\nb"))) + "\n" +
		line("assistant", 1740830403, toolRequest("c2", "developer__shell", map[string]any{})) + "\n" + `{"role":"us`
	os.WriteFile(p, []byte(first), 0o644)
	if !DetectJSONL(p) || Detect(p) != KindJSONL {
		t.Fatal("not detected")
	}
	var c collected
	cur, err := ReadJSONL(context.Background(), p, JSONLCursor{}, c.handler())
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Sessions) != 1 || c.Sessions[0].ID != "20250301_120000" || c.Sessions[0].WorkingDir != "/w" || c.Sessions[0].Accumulated.Input != 1800 {
		t.Errorf("%+v", c.Sessions)
	}
	if got := c.calls(); !reflect.DeepEqual(got, []string{"c1"}) || c.Results[0].Tool != "developer__shell" || c.Results[0].Line != 4 {
		t.Fatalf("%v %+v", got, c.Results)
	}
	if cur.Line != 6 || cur.Requests["c2"] != "developer__shell" {
		t.Fatalf("cursor %+v", cur)
	}
	back, err := ReadResult(context.Background(), p, c.Results[0].Locator)
	if err != nil || back.CallID != "c1" || back.Blocks[0].Text != "a\nb" {
		t.Errorf("ReadResult = %+v, %v", back, err)
	}
	// the half-written line is finished, and the next response arrives
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`er","created":1740830404,"content":[` + testkit.MustJSON(t, toolResponse("c2", text("done"))) + `],"metadata":{"userVisible":true,"agentVisible":true}}` + "\n")
	f.Close()
	var c2 collected
	if _, err := ReadJSONL(context.Background(), p, cur, c2.handler()); err != nil {
		t.Fatal(err)
	}
	if got := c2.calls(); !reflect.DeepEqual(got, []string{"c2"}) || c2.Results[0].Tool != "developer__shell" || len(c2.Sessions) != 0 {
		t.Errorf("second pass %v %+v %+v", got, c2.Results, c2.Sessions)
	}
	// not a session
	bad := filepath.Join(dir, "x.jsonl")
	os.WriteFile(bad, []byte(`{"type":"session_meta"}`+"\n"), 0o644)
	var c3 collected
	if _, err := ReadJSONL(context.Background(), bad, JSONLCursor{}, c3.handler()); err != nil || !reflect.DeepEqual(c3.Codes(), []string{DiagNotSession}) || DetectJSONL(bad) {
		t.Errorf("%v %v", err, c3.Codes())
	}
}

func TestRootsAndSpill(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if got := DataDir(env(map[string]string{"HOME": "/h", PathRootEnv: "/r"})); got != "/r/data" {
		t.Errorf("%s", got)
	}
	if got := DataDir(env(map[string]string{"HOME": "/h", PathRootEnv: "rel"})); got != "/h/.local/share/goose" {
		t.Errorf("a relative GOOSE_PATH_ROOT was used: %s", got)
	}
	if got := DefaultRoots(env(map[string]string{"HOME": "/h", "XDG_DATA_HOME": "/x"})); !reflect.DeepEqual(got, []string{"/x/goose/sessions"}) {
		t.Errorf("%v", got)
	}
	rules := Spill(env(map[string]string{"HOME": "/h"}))
	match := func(p string) bool {
		for _, r := range rules {
			if r.Match(p) {
				return true
			}
		}
		return false
	}
	for p, want := range map[string]bool{
		"/h/.local/share/goose/mcp_responses/mcp_response_20260101_000001.123456_Ab12Cd.txt": true,
		"/tmp/goose_mcp_responses/mcp_response_20250601_000001.123456.txt":                   true,
		"/tmp/goose_mcp_responses/mcp_response_20250601_000001.txt":                          true,
		"/tmp/goose_mcp_responses/../mcp_response_20250601_000001.txt":                       false,
		"/tmp/goose_mcp_responses/notes.txt":                                                 false,
		"/h/.local/share/goose/mcp_responses/mcp_response_20250601_000001.txt":               false,
	} {
		if got := match(p); got != want {
			t.Errorf("Match(%q) = %v", p, got)
		}
	}
}

func TestHandlerErrorStops(t *testing.T) {
	g := newGooseDB(t, schemaV17)
	g.fill(t)
	stop := errors.New("stop")
	if _, err := ReadDB(context.Background(), g.path, DBCursor{}, Handler{Result: func(Result) error { return stop }}); !errors.Is(err, stop) {
		t.Errorf("err %v", err)
	}
}

func newGooseDBB(b *testing.B) *gooseDB {
	g := newGooseDB(b, schemaV17)
	g.exec(b, "INSERT INTO sessions (id, working_dir) VALUES ('s1', '/w')")
	return g
}
