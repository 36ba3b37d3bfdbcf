package sessions

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// oldIndex writes an index as the build before the harness seam left it:
// migrations 0001 to 0003 applied and the rows that build wrote for a
// Claude Code transcript (line-log columns, a session unique per file, an
// exact count and search terms, one diagnostic per unknown line), plus a
// dsh log that build took for a Claude transcript.
func oldIndex(t *testing.T, dbPath, root string) (claudeFile, dshFile string) {
	t.Helper()
	claudeFile = filepath.Join(root, "p", "s1.jsonl")
	lines := []string{
		cAssistant("s1", "m1", "r1", "toolu_1", "Bash", 3),
		cResult("s1", "toolu_1", "zebrafish output"),
		cResult("s1", "toolu_2", "second result"),
		`{"type":"brand-new","sessionId":"s1"}` + "\n",
		`{"type":"brand-new","sessionId":"s1"}` + "\n",
	}
	writeFile(t, claudeFile, strings.Join(lines, ""))
	dshFile = filepath.Join(root, "dsh", "--p--", "x", "session.jsonl")
	writeFile(t, dshFile, `{"type":"session","version":0,"id":"x","createdAt":1,"delegationDepth":0}`+"\n")

	raw, err := sql.Open("sqlite3", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for _, name := range []string{"0001_init.sql", "0002_rank.sql", "0003_rescrub_search.sql"} {
		body, err := migrations.ReadFile("migrations/" + name)
		if err != nil {
			t.Fatal(err)
		}
		execAll(t, raw, string(body))
	}
	execAll(t, raw, `CREATE TABLE migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)`,
		`INSERT INTO migrations VALUES ('0001_init.sql', 't'), ('0002_rank.sql', 't'), ('0003_rescrub_search.sql', 't')`)
	st := mustStat(t, claudeFile)
	off1 := int64(len(lines[0]))
	off2 := off1 + int64(len(lines[1]))
	ins := func(q string, args ...any) {
		if _, err := raw.Exec(q, args...); err != nil {
			t.Fatalf("%.60s: %v", q, err)
		}
	}
	ins(`INSERT INTO files (id, path, root, harness, size, mtime_ns, fingerprint, parsed_offset, parsed_line, indexed_at) VALUES (1, ?, ?, 'claude-code', ?, ?, 'fp', ?, 6, 't')`,
		claudeFile, root, st.Size(), st.ModTime().UnixNano(), st.Size())
	ins(`INSERT INTO sessions (id, file_id, harness, session_id, project, model, route, tool_results) VALUES (7, 1, 'claude-code', 's1', '/home/u/proj', 'claude-sonnet-4-5', 'anthropic', 2)`)
	ins(`INSERT INTO tool_calls VALUES (7, 'toolu_1', 'Bash')`)
	ins(`INSERT INTO tool_results (id, session_id, file_id, call_id, tool_name, at, is_error, text_bytes, image_count, block_count,
  est_tokens, est_text_tokens, est_image_tokens, est_route, src_offset, src_length, src_line, src_index, fts_done, approx_tokens)
VALUES (41, 7, 1, 'toolu_1', 'Bash', '', 0, 16, 0, 1, 5, 5, 0, 'anthropic', ?, ?, 2, 0, 1, 5),
       (42, 7, 1, 'toolu_2', '', '', 0, 13, 0, 1, 4, 4, 0, 'anthropic', ?, ?, 3, 0, 1, 4)`,
		off1, len(lines[1]), off2, len(lines[2]))
	ins(`INSERT INTO result_fts (rowid, body) VALUES (41, 'zebrafish output'), (42, 'second result')`)
	ins(`INSERT INTO diagnostics (file_id, line, message) VALUES (1, 4, 'unknown line type "brand-new"'), (1, 5, 'unknown line type "brand-new"')`)
	dst := mustStat(t, dshFile)
	ins(`INSERT INTO files (id, path, root, harness, size, mtime_ns, fingerprint, parsed_offset, parsed_line, indexed_at) VALUES (2, ?, ?, 'claude-code', ?, ?, 'fp', ?, 2, 't')`,
		dshFile, root, dst.Size(), dst.ModTime().UnixNano(), dst.Size())
	ins(`INSERT INTO sessions (id, file_id, harness, session_id) VALUES (8, 2, 'claude-code', 'session')`)
	ins(`INSERT INTO diagnostics (file_id, line, message) VALUES (2, 1, 'unknown line type "session"')`)
	return claudeFile, dshFile
}

// TestHarnessMigrationCarriesOver: an index made by the previous schema
// opens, and its next pass keeps every result id, exact count and search
// term, re-detects what it had taken for Claude transcripts, and gives the
// diagnostics their codes.
func TestHarnessMigrationCarriesOver(t *testing.T) {
	root := t.TempDir()
	dbPath := filepath.Join(t.TempDir(), "index.db")
	claudeFile, dshFile := oldIndex(t, dbPath, root)
	d, err := Open(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()

	t.Run("opens with the rows carried over", func(t *testing.T) {
		rows, err := d.Results(t.Context(), ResultFilter{})
		if err != nil || len(rows) != 2 {
			t.Fatalf("%v %v", rows, err)
		}
		if rows[0].ID != 41 || rows[0].SessionRowID != 7 || rows[0].Ordinal != 0 || rows[0].EstTokens == nil || *rows[0].EstTokens != 5 {
			t.Errorf("%+v", rows[0])
		}
		_, res, err := d.LoadResult(t.Context(), 41)
		if err != nil || res.Content[0].Text != "zebrafish output" {
			t.Errorf("read back before any pass: %+v %v", res, err)
		}
	})
	s := index(t, d, root)
	t.Run("the next pass keeps ids, counts and search terms", func(t *testing.T) {
		if s.Files != 2 || s.Sessions != 2 || s.ToolResults != 2 || s.ChangedFiles != 2 || s.PerHarness[HarnessDsh].Sessions != 1 {
			t.Errorf("%+v", s)
		}
		got := idsByCall(t, d)
		if got["toolu_1"].ID != 41 || got["toolu_2"].ID != 42 || got["toolu_1"].SessionRowID != 7 {
			t.Errorf("ids %+v", got)
		}
		if got["toolu_1"].EstTokens == nil || *got["toolu_1"].EstTokens != 5 || got["toolu_2"].ToolName != "" {
			t.Errorf("counts %+v", got)
		}
		hits, err := d.Search(t.Context(), `"zebrafish"`, OrderSource, 10)
		if err != nil || len(hits) != 1 || hits[0].ID != 41 {
			t.Errorf("search %+v %v", hits, err)
		}
	})
	t.Run("what was taken for Claude is re-detected", func(t *testing.T) {
		ss, _ := d.BrowseSessions(t.Context(), SessionFilter{})
		for _, x := range ss {
			if x.File == dshFile && (x.Harness != HarnessDsh || x.SessionID != "x") {
				t.Errorf("the dsh log is not dsh's session: %+v", x)
			}
		}
	})
	t.Run("diagnostics have codes, one per type", func(t *testing.T) {
		diags, _ := d.BrowseDiagnostics(t.Context(), 10)
		if len(diags) != 1 || diags[0].File != claudeFile || diags[0].Code != DiagUnknownType || diags[0].Params["count"] != "2" {
			t.Errorf("%+v", diags)
		}
	})
	t.Run("later appends resume", func(t *testing.T) {
		appendFile(t, claudeFile, cResult("s1", "toolu_3", "third"))
		s := index(t, d, root)
		if s.ToolResults != 3 || s.ChangedFiles != 1 {
			t.Errorf("%+v", s)
		}
		var cursor string
		if err := d.db.QueryRow(`SELECT cursor FROM files WHERE path = ?`, claudeFile).Scan(&cursor); err != nil || cursor == "" {
			t.Errorf("cursor %q %v", cursor, err)
		}
		if _, ok := parseLineCursor(cursor); !ok {
			t.Errorf("cursor %q is not a line log's", cursor)
		}
	})
	t.Run("schema", func(t *testing.T) {
		var n int
		if err := d.db.QueryRow(`SELECT COUNT(*) FROM pragma_table_info('files') WHERE name IN ('fingerprint', 'parsed_offset', 'parsed_line')`).Scan(&n); err != nil || n != 0 {
			t.Errorf("line-log columns left: %d %v", n, err)
		}
		rows, err := d.db.Query(`PRAGMA foreign_key_check`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		if rows.Next() {
			t.Error("foreign keys broken")
		}
		var fk int
		if err := d.db.QueryRow(`PRAGMA foreign_keys`).Scan(&fk); err != nil || fk != 1 {
			t.Errorf("foreign keys %d after migrating (%v)", fk, err)
		}
	})
	if _, err := os.Stat(dbPath); err != nil {
		t.Fatal(err)
	}
}
