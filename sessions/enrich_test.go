package sessions

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEnrichRedactsAndCaches(t *testing.T) {
	const secret = "SECRETVALUE0123456789"
	// The same kind of value in spellings Redact does not see as a URL.
	hidden := []string{"DOUBLYESCAPED0123456789", "PERCENTENCODED0123456789", "BAREPAIR0123456789"}
	root := t.TempDir()
	text := "deploy log: fetched https://bucket.s3.amazonaws.com/k.tar?X-Amz-Signature=" + secret + "&X-Amz-Expires=60 then unpacked zebrafish" +
		`\n{"u":"https:\\/\\/b.s3.amazonaws.com\\/k?X-Amz-Signature=` + hidden[0] + `\\u0026X-Amz-Date=1"}` +
		" next=https%3A%2F%2Fb.s3.amazonaws.com%2Fk%3FX-Amz-Signature%3D" + hidden[1] + "%26X-Amz-Date%3D1" +
		" env access_token=" + hidden[2] + " done"
	persisted := mustJSON(map[string]any{
		"type": "user", "sessionId": "s6", "timestamp": "2026-01-01T00:00:03.000Z",
		"toolUseResult": map[string]any{"stdout": "x", "persistedOutputPath": "/elsewhere/s6/tool-results/toolu_z.txt"},
		"message":       map[string]any{"role": "user", "content": []any{map[string]any{"tool_use_id": "toolu_z", "type": "tool_result", "content": "short preview"}}},
	})
	writeFile(t, filepath.Join(root, "p", "s6.jsonl"), cAssistant("s6", "m", "r", "toolu_s", "Bash", 1)+cResult("s6", "toolu_s", text)+persisted)
	writeFile(t, filepath.Join(root, "p", "s6", "tool-results", "toolu_z.txt"), "complete")
	d := openTemp(t)
	s := index(t, d, root)
	if s.SpillNotices != 1 {
		t.Errorf("toolUseResult.persistedOutputPath not recorded: %+v", s)
	}
	calls := 0
	opts := EnrichOptions{Progress: func(Progress) { calls++ }}
	if err := d.Enrich(t.Context(), opts); err != nil {
		t.Fatal(err)
	}
	if calls == 0 {
		t.Fatal("no progress reported")
	}
	t.Run("search finds words, not the credential", func(t *testing.T) {
		if ids, err := d.Search(t.Context(), "zebrafish", "", 10); err != nil || len(ids) != 1 {
			t.Errorf("search zebrafish: %v %v", ids, err)
		}
		if ids, err := d.Search(t.Context(), secret, "", 10); err != nil || len(ids) != 0 {
			t.Errorf("search for the credential value found %v (%v)", ids, err)
		}
	})
	t.Run("links keep reason and parameter name only", func(t *testing.T) {
		links, err := d.BrowseLinks(t.Context(), LinkFilter{OnlyFlagged: true, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if len(links) != 1 || links[0].Reason != "credential-parameter" || !strings.EqualFold(links[0].Parameter, "X-Amz-Signature") {
			t.Errorf("links %+v", links)
		}
	})
	t.Run("no credential value anywhere in the database", func(t *testing.T) {
		d.db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
		if b, _ := os.ReadFile(d.Path()); !bytes.Contains(b, []byte("zebrafish")) {
			t.Fatal("search terms not found in the file: this check would prove nothing")
		}
		for _, suffix := range []string{"", "-wal"} {
			b, err := os.ReadFile(d.Path() + suffix)
			if err != nil {
				continue
			}
			// FTS5 stores lower-cased terms.
			for _, v := range append([]string{secret}, hidden...) {
				if bytes.Contains(bytes.ToLower(b), bytes.ToLower([]byte(v))) {
					t.Errorf("%s holds the credential value %s", filepath.Base(d.Path()+suffix), v)
				}
			}
		}
	})
	t.Run("no credential value among the search terms", func(t *testing.T) {
		// FTS5 compresses terms that share a prefix, so the file check above
		// can miss one; the vocabulary lists every term whole.
		if _, err := d.db.Exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.terms USING fts5vocab(main, result_fts, row)`); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := d.db.QueryRow(`SELECT COUNT(*) FROM temp.terms WHERE term = 'zebrafish'`).Scan(&n); err != nil || n != 1 {
			t.Fatalf("vocabulary lacks a word the text holds (%d, %v): this check would prove nothing", n, err)
		}
		for _, v := range append([]string{secret}, hidden...) {
			var terms []string
			rows, err := d.db.Query(`SELECT term FROM temp.terms WHERE instr(term, ?) > 0`, strings.ToLower(v))
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var term string
				rows.Scan(&term)
				terms = append(terms, term)
			}
			rows.Close()
			if len(terms) > 0 {
				t.Errorf("search terms hold the credential value %s: %q", v, terms)
			}
		}
	})
	t.Run("persistedOutputPath linked to the local spill file", func(t *testing.T) {
		rows, _ := d.Results(t.Context(), ResultFilter{})
		for _, r := range rows {
			if r.CallID == "toolu_z" && (r.Spill == nil || !r.SpillExists) {
				t.Errorf("toolu_z spill %+v exists %v", r.Spill, r.SpillExists)
			}
		}
	})
	t.Run("estimates are cached", func(t *testing.T) {
		var missing int
		d.db.QueryRow(`SELECT COUNT(*) FROM tool_results WHERE est_tokens IS NULL OR fts_done = 0`).Scan(&missing)
		if missing != 0 {
			t.Fatalf("%d results without estimate or search entry", missing)
		}
		calls = 0
		index(t, d, root)
		if err := d.Enrich(t.Context(), opts); err != nil {
			t.Fatal(err)
		}
		if calls != 0 {
			t.Errorf("unchanged results were processed again (%d progress calls)", calls)
		}
	})
}

// An index whose search entries were written before the scrub is rebuilt:
// its old terms are gone and the next pass re-adds every result.
func TestSearchRebuiltOnUpgrade(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "p", "up.jsonl"), cAssistant("up", "m", "r", "toolu_u", "Bash", 1)+cResult("up", "toolu_u", "heron sighted"))
	path := filepath.Join(t.TempDir(), "index.db")
	d, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	index(t, d, root)
	if err := d.Enrich(t.Context(), EnrichOptions{}); err != nil {
		t.Fatal(err)
	}
	// What an older version could have written, and its migration undone.
	var id int64
	d.db.QueryRow(`SELECT id FROM tool_results`).Scan(&id)
	for _, q := range []string{`DELETE FROM result_fts WHERE rowid = ?`, `INSERT INTO result_fts (rowid, body) VALUES (?, 'heron sighted access_token=oldleak0123')`} {
		if _, err := d.db.Exec(q, id); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.db.Exec(`DELETE FROM migrations WHERE name = '0003_rescrub_search.sql'`); err != nil {
		t.Fatal(err)
	}
	if rows, err := d.Search(t.Context(), `"oldleak0123"`, "", 10); err != nil || len(rows) != 1 {
		t.Fatalf("setup: the old term is not searchable (%d, %v)", len(rows), err)
	}
	d.Close()
	d, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if rows, err := d.Search(t.Context(), `"oldleak0123"`, "", 10); err != nil || len(rows) != 0 {
		t.Errorf("old term still found after the upgrade: %d rows, %v", len(rows), err)
	}
	if err := d.Enrich(t.Context(), EnrichOptions{}); err != nil {
		t.Fatal(err)
	}
	if rows, err := d.Search(t.Context(), `"heron"`, "", 10); err != nil || len(rows) != 1 {
		t.Errorf("not re-added after the upgrade: %d rows, %v", len(rows), err)
	}
}
