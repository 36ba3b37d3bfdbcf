package sessions

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"spillscope/sessions/samplegen"
)

// The deferred indexes' statements, read from the migrations, are the
// ones a freshly migrated index holds.
func TestDeferredIndexSQL(t *testing.T) {
	d := openTemp(t)
	for _, name := range deferredIndexes {
		def, err := indexSQL(name)
		if err != nil {
			t.Fatal(err)
		}
		var got string
		if err := d.db.QueryRow(`SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?`, name).Scan(&got); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got != def {
			t.Errorf("%s: migrations say %q, the index holds %q", name, def, got)
		}
	}
	if _, err := indexSQL("no_such_index"); err == nil {
		t.Error("an index no migration creates was found")
	}
}

// A first pass with the deferred indexes built at its end leaves every
// table row for row, and the schema, as a pass that kept them; so does a
// second pass over the generated corpus with files added and changed (it
// keeps its indexes throughout).
func TestFreshPassDefersIndexes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "corpus")
	if _, err := samplegen.Generate(dir, samplegen.Options{Seed: 3, Scale: 1}); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "claude", "projects")
	var some string
	filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
		if err == nil && some == "" && strings.HasSuffix(p, ".jsonl") {
			some = p
		}
		return err
	})
	body, err := os.ReadFile(some)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(some)
	if err != nil {
		t.Fatal(err)
	}
	added := filepath.Join(filepath.Dir(some), "0f0f0f0f-0000-4000-8000-000000000001.jsonl")
	later := fi.ModTime().Add(time.Hour)
	// Both runs see the same files with the same times: the first pass
	// reads the corpus, the second a copy of a transcript under a new name
	// and the transcript grown by its own first line.
	setFiles := func(grown bool) {
		content, mtime := body, fi.ModTime()
		if grown {
			content, mtime = append(bytes.Clone(body), body[:bytes.IndexByte(body, '\n')+1]...), later
			if err := os.WriteFile(added, body, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(added, later, later); err != nil {
				t.Fatal(err)
			}
		} else if err := os.Remove(added); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if err := os.WriteFile(some, content, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(some, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	run := func(deferred []string) (first, second indexDump) {
		saved := deferredIndexes
		deferredIndexes = deferred
		defer func() { deferredIndexes = saved }()
		d, err := Open(filepath.Join(t.TempDir(), "index.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		setFiles(false)
		index(t, d, root)
		first = dumpIndex(t, d)
		setFiles(true)
		index(t, d, root)
		return first, dumpIndex(t, d)
	}
	wantFirst, wantSecond := run(nil)
	gotFirst, gotSecond := run(deferredIndexes)
	for _, c := range []struct {
		name      string
		got, want indexDump
	}{{"first pass", gotFirst, wantFirst}, {"second pass", gotSecond, wantSecond}} {
		if len(c.want.tables["tool_results"]) == 0 || len(c.want.tables["links"]) == 0 {
			t.Fatalf("%s: the corpus gave no results or no links", c.name)
		}
		if !reflect.DeepEqual(c.got.schema, c.want.schema) {
			t.Errorf("%s: schema\n%v\nwant\n%v", c.name, c.got.schema, c.want.schema)
		}
		for name, rows := range c.want.tables {
			if !reflect.DeepEqual(c.got.tables[name], rows) {
				t.Errorf("%s: table %s differs (%d rows, want %d)", c.name, name, len(c.got.tables[name]), len(rows))
			}
		}
		if len(c.got.tables) != len(c.want.tables) {
			t.Errorf("%s: %d tables, want %d", c.name, len(c.got.tables), len(c.want.tables))
		}
	}
	if len(wantSecond.tables["files"]) <= len(wantFirst.tables["files"]) {
		t.Errorf("the second pass added no file (%d rows, then %d)", len(wantFirst.tables["files"]), len(wantSecond.tables["files"]))
	}
}

// An index whose first pass died before building its deferred indexes
// has them again once opened.
func TestOpenBuildsMissingIndexes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db")
	d, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	want := dumpIndex(t, d).schema
	for _, name := range deferredIndexes {
		if _, err := d.db.Exec(`DROP INDEX ` + name); err != nil {
			t.Fatal(err)
		}
	}
	d.Close()
	if d, err = Open(path); err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if got := dumpIndex(t, d).schema; !reflect.DeepEqual(got, want) {
		t.Errorf("schema after reopening\n%v\nwant\n%v", got, want)
	}
}

// indexDump is what an index holds: its schema (each object's type, name
// and statement) and every table's rows in rowid (else key) order, but
// for the times a pass stamps.
type indexDump struct {
	schema []string
	tables map[string][]string
}

func dumpIndex(t *testing.T, d *DB) indexDump {
	t.Helper()
	out := indexDump{tables: map[string][]string{}}
	rows, err := d.db.Query(`SELECT type, name, COALESCE(sql, '') FROM sqlite_master ORDER BY type, name`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var typ, name, def string
		if err := rows.Scan(&typ, &name, &def); err != nil {
			t.Fatal(err)
		}
		out.schema = append(out.schema, typ+" "+name+" "+def)
		if typ == "table" && !strings.HasPrefix(def, "CREATE VIRTUAL") {
			tables = append(tables, name)
		}
	}
	rows.Close()
	for _, name := range tables {
		cols, err := columnsOf(d.db, name)
		if err != nil {
			t.Fatal(err)
		}
		var keep []string
		for _, c := range cols {
			if c != "indexed_at" && c != "applied_at" {
				keep = append(keep, `"`+c+`"`)
			}
		}
		list := strings.Join(keep, ", ")
		rs, err := d.db.Query(fmt.Sprintf(`SELECT %s FROM "%s" ORDER BY %s`, list, name, list))
		if err != nil {
			t.Fatal(err)
		}
		for rs.Next() {
			vals := make([]any, len(keep))
			ptrs := make([]any, len(keep))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rs.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			out.tables[name] = append(out.tables[name], fmt.Sprintf("%q", vals))
		}
		rs.Close()
	}
	return out
}

func columnsOf(db *sql.DB, table string) ([]string, error) {
	rows, err := db.QueryContext(context.Background(), fmt.Sprintf(`SELECT name FROM pragma_table_xinfo('%s')`, table))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}
