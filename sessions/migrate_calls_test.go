package sessions

import (
	"database/sql"
	"path/filepath"
	"reflect"
	"testing"

	"spillscope/sessions/copilot"
)

// schemaAt writes an index at dbPath with the named migrations applied and
// recorded, as an earlier build left it, and returns it open without this
// build's migrations.
func schemaAt(t *testing.T, dbPath string, names ...string) *sql.DB {
	t.Helper()
	raw, err := sql.Open("sqlite3", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	execAll(t, raw, `CREATE TABLE migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)`)
	for _, name := range names {
		body, err := migrations.ReadFile("migrations/" + name)
		if err != nil {
			t.Fatal(err)
		}
		execAll(t, raw, string(body))
		if _, err := raw.Exec(`INSERT INTO migrations VALUES (?, 't')`, name); err != nil {
			t.Fatal(err)
		}
	}
	return raw
}

func rawExec(t *testing.T, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("%.80s: %v", q, err)
	}
}

// columns lists a table's columns.
func columns(t *testing.T, d *DB, table string) []string {
	t.Helper()
	rows, err := d.db.Query(`SELECT name FROM pragma_table_info(?) ORDER BY cid`, table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

// compactionColumns are the one compactions table's, from 0005 and 0008.
var compactionColumns = []string{"session_id", "key", "kind", "at", "line", "tokens_before", "tokens_after", "end_line", "trigger"}

// TestCallsMigrationFromCompactions: an index made by the schema before
// the per-call records (0001 to 0005, with a Copilot CLI log's compaction
// stored as 0005 keyed it) opens with the compactions table widened, not
// doubled, its row carried over, and the log read again whole on the next
// pass: the start and complete events become one compaction of the unified
// kind, the session keeps its row id and gains its model calls.
func TestCallsMigrationFromCompactions(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "session-state", "u1", "events.jsonl")
	writeFile(t, path, cpStart("u1")+
		cpEvent("assistant.message", map[string]any{"messageId": "m1", "content": "", "outputTokens": 120})+
		cpEvent("session.compaction_start", map[string]any{})+
		cpEvent("session.compaction_complete", map[string]any{"success": true, "preCompactionTokens": 90000, "postCompactionTokens": 8000}))
	dbPath := filepath.Join(t.TempDir(), "index.db")
	raw := schemaAt(t, dbPath, "0001_init.sql", "0002_rank.sql", "0003_rescrub_search.sql", "0004_harness_keys.sql", "0005_compactions.sql")
	st := mustStat(t, path)
	cursor := nextLog(path, st.Size(), copilot.Cursor{Offset: st.Size(), Line: 8, SessionID: "u1"})
	rawExec(t, raw, `INSERT INTO files (id, path, root, harness, size, mtime_ns, indexed_at, cursor) VALUES (1, ?, ?, 'copilot-cli', ?, ?, 't', ?)`,
		path, root, st.Size(), st.ModTime().UnixNano(), cursor)
	execAll(t, raw, `INSERT INTO sessions (id, file_id, harness, session_id, output_tokens) VALUES (7, 1, 'copilot-cli', 'u1', 120)`,
		`INSERT INTO usage (session_id, key, input, cache_read, cache_write, output, reasoning) VALUES (7, 'call:m1', 0, 0, 0, 120, 0)`,
		`INSERT INTO compactions (session_id, key, kind, at, line, tokens_before, tokens_after) VALUES (7, 'line:7', 'compaction', 't', 7, 90000, 8000)`)
	raw.Close()

	d, err := Open(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	t.Run("one compactions table, widened, its row kept", func(t *testing.T) {
		if got := columns(t, d, "compactions"); !reflect.DeepEqual(got, compactionColumns) {
			t.Errorf("columns %v, want %v", got, compactionColumns)
		}
		var n int
		if err := d.db.QueryRow(`SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name LIKE '%compaction%'`).Scan(&n); err != nil || n != 1 {
			t.Errorf("%d compaction tables (%v)", n, err)
		}
		cs, err := d.Compactions(t.Context(), 7)
		want := []Compaction{{Session: "u1", Key: "line:7", Kind: "compaction", At: "t", Line: 7, TokensBefore: 90000, TokensAfter: 8000}}
		if err != nil || !reflect.DeepEqual(cs, want) {
			t.Errorf("carried over %+v %v", cs, err)
		}
		var cur string
		var mtime int64
		if err := d.db.QueryRow(`SELECT cursor, mtime_ns FROM files WHERE id = 1`).Scan(&cur, &mtime); err != nil || cur != "" || mtime != -1 {
			t.Errorf("the file is not marked to be read again: cursor %q mtime %d (%v)", cur, mtime, err)
		}
	})
	s := index(t, d, root)
	t.Run("the next pass reads the log again into the unified rows", func(t *testing.T) {
		if s.ChangedFiles != 1 || s.Sessions != 1 {
			t.Errorf("%+v", s)
		}
		ss := onlySession(t, d)
		if ss.ID != 7 || ss.Output != 120 || ss.ModelCalls != 1 || ss.Compactions != 1 {
			t.Errorf("session %+v", ss)
		}
		cs, _ := d.Compactions(t.Context(), 7)
		want := []Compaction{{Session: "u1", Key: "line:5", Kind: CompactionCopilot, At: cpTime, Line: 5, EndLine: 7, TokensBefore: 90000, TokensAfter: 8000}}
		if !reflect.DeepEqual(cs, want) {
			t.Errorf("compactions %+v, want %+v", cs, want)
		}
	})
}

// TestCallsMigrationBeforeCompactions: an index made before 0005 takes
// 0005 to the last migration in turn; a Claude Code transcript indexed then is read
// again, its boundary and summary one compaction with its trigger and
// tokens, and the same again after the summary is appended in a later pass.
func TestCallsMigrationBeforeCompactions(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "projects", "-w", "0b8f1c52-0000-4000-8000-000000000001.jsonl")
	writeFile(t, path, cSplit("msg_1", "req_1", "m", "t", 1, 2)+
		cLine(map[string]any{"type": "system", "subtype": "compact_boundary", "uuid": "b", "compactMetadata": map[string]any{"trigger": "auto", "preTokens": 500}}))
	dbPath := filepath.Join(t.TempDir(), "index.db")
	raw := schemaAt(t, dbPath, "0001_init.sql", "0002_rank.sql", "0003_rescrub_search.sql", "0004_harness_keys.sql")
	st := mustStat(t, path)
	rawExec(t, raw, `INSERT INTO files (id, path, root, harness, size, mtime_ns, indexed_at, cursor) VALUES (1, ?, ?, 'claude-code', ?, ?, 't', '')`,
		path, root, st.Size(), st.ModTime().UnixNano())
	execAll(t, raw, `INSERT INTO sessions (id, file_id, harness, session_id, model) VALUES (3, 1, 'claude-code', 's', 'm')`)
	raw.Close()

	d, err := Open(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var applied []string
	rows, err := d.db.Query(`SELECT name FROM migrations WHERE name >= '0005' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		rows.Scan(&n)
		applied = append(applied, n)
	}
	rows.Close()
	if want := []string{"0005_compactions.sql", "0006_replacements.sql", "0007_search_parts.sql", "0008_calls.sql", "0009_links_audit.sql", "0010_timeline.sql", "0011_sweep_summaries.sql"}; !reflect.DeepEqual(applied, want) {
		t.Errorf("applied %v, want %v", applied, want)
	}
	if got := columns(t, d, "compactions"); !reflect.DeepEqual(got, compactionColumns) {
		t.Errorf("columns %v, want %v", got, compactionColumns)
	}
	index(t, d, root)
	appendFile(t, path, cLine(map[string]any{"type": "user", "uuid": "c", "isCompactSummary": true, "message": map[string]any{"role": "user", "content": "summary"}}))
	index(t, d, root)
	s := onlySession(t, d)
	cs, _ := d.Compactions(t.Context(), s.ID)
	want := []Compaction{{Session: "s", Key: "line:2", Kind: CompactionClaude, Line: 2, EndLine: 3, Trigger: "auto", TokensBefore: 500}}
	if s.ID != 3 || s.ModelCalls != 1 || s.Compactions != 1 || !reflect.DeepEqual(cs, want) {
		t.Errorf("session %+v compactions %+v, want %+v", s, cs, want)
	}
}

// TestTimelineMigration: an index made before 0010 reads its Codex CLI,
// OpenCode and dsh files once more, so their calls move to where their
// responses began; other harnesses' files are left as they are.
func TestTimelineMigration(t *testing.T) {
	root := t.TempDir()
	writeFile(t, codexPath(root), xStart("gpt-5.5")+
		xLine("response_item", "2026-07-06T09:00:02Z", map[string]any{"type": "reasoning", "summary": []any{}})+
		xCall("call_1", "exec_command", "out")+
		xTokens("2026-07-06T09:00:04Z", [4]int{100, 40, 10, 2}, [4]int{100, 40, 10, 2}, 258400))
	writeFile(t, filepath.Join(root, "projects", "-w", "s1.jsonl"), cAssistant("s1", "m1", "r1", "toolu_1", "Bash", 3))
	dbPath := filepath.Join(t.TempDir(), "index.db")
	d, err := Open(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	index(t, d, root)
	// As an earlier build left it: the call at its token_count line.
	execAll(t, d.db, `UPDATE model_calls SET line = 6 WHERE key LIKE 'total:%'`, `DELETE FROM migrations WHERE name = '0010_timeline.sql'`)
	d.Close()
	if d, err = Open(dbPath); err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var reset map[string]bool = map[string]bool{}
	rows, err := d.db.Query(`SELECT harness, mtime_ns = -1 AND cursor = '' FROM files`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var h string
		var r bool
		rows.Scan(&h, &r)
		reset[h] = r
	}
	rows.Close()
	if !reflect.DeepEqual(reset, map[string]bool{HarnessCodex: true, HarnessClaude: false}) {
		t.Errorf("files read again: %v", reset)
	}
	index(t, d, root)
	ss, _ := d.BrowseSessions(t.Context(), SessionFilter{Harness: HarnessCodex})
	if len(ss) != 1 {
		t.Fatalf("codex sessions %+v", ss)
	}
	mc, _ := d.ModelCalls(t.Context(), ss[0].ID)
	if len(mc) != 1 || mc[0].Line != 3 || mc[0].At != "2026-07-06T09:00:02Z" {
		t.Errorf("calls %+v, want the one at line 3", mc)
	}
}
