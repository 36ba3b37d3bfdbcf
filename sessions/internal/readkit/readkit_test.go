package readkit

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
)

func TestLineReader(t *testing.T) {
	long := strings.Repeat("z", 600<<10) // more than two buffer fills
	tests := []struct {
		name string
		in   string
		want []Line
	}{
		{"empty", "", nil},
		{"crlf and a partial tail", "a\r\nbb\nccc", []Line{
			{Bytes: []byte("a"), Offset: 0, Number: 1, Length: 3, Complete: true},
			{Bytes: []byte("bb"), Offset: 3, Number: 2, Length: 3, Complete: true},
			{Bytes: []byte("ccc"), Offset: 6, Number: 3, Length: 3},
		}},
		{"a line longer than the buffer", long + "\nx\n", []Line{
			{Bytes: []byte(long), Offset: 0, Number: 1, Length: int64(len(long) + 1), Complete: true},
			{Bytes: []byte("x"), Offset: int64(len(long) + 1), Number: 2, Length: 2, Complete: true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lr := NewLineReader(strings.NewReader(tt.in), 0, 1)
			var got []Line
			for {
				l, err := lr.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				l.Bytes = append([]byte(nil), l.Bytes...)
				got = append(got, l)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %d lines, want %d", len(got), len(tt.want))
			}
		})
	}
}

func TestWalkerOffsets(t *testing.T) {
	doc := "{\n  \"a\": 1,\n  \"list\": [\n    {\"x\": 1},\n    {\"x\": [2, 3]}\n  ],\n  \"z\": \"s\"\n}\n"
	lt := NewLineTracker(strings.NewReader(doc))
	dec := json.NewDecoder(lt)
	var starts []int64
	var lines []int64
	err := Fields(dec, func(k string) error {
		if k != "list" {
			return Skip(dec)
		}
		return Items(dec, func(int) error {
			raw, off, err := Raw(dec)
			if err != nil {
				return err
			}
			if !bytes.Equal([]byte(doc[off:off+int64(len(raw))]), raw) {
				t.Errorf("raw %q is not doc[%d:]", raw, off)
			}
			starts = append(starts, off)
			lines = append(lines, lt.LineAt(off))
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(lines, []int64{4, 5}) || len(starts) != 2 {
		t.Errorf("lines %v starts %v", lines, starts)
	}
	if err := Fields(json.NewDecoder(strings.NewReader(`[1]`)), func(string) error { return nil }); !errors.Is(err, ErrShape) {
		t.Errorf("an array walked as an object: %v", err)
	}
}

func TestTally(t *testing.T) {
	var tl Tally
	tl.Add("b", 7, 0)
	tl.Add("a", 3, 0)
	tl.Add("b", 9, 0)
	tl.Add("r", 0, 42)
	got := tl.Diagnostics("x.unknown", "type", func(k string, n int) string { return k })
	if len(got) != 3 || got[0].Params["type"] != "a" || got[1].Params["count"] != "2" || got[1].Line != 7 || got[2].Row != 42 || got[2].Line != 0 {
		t.Errorf("%+v", got)
	}
}

func TestSpillRule(t *testing.T) {
	r := SpillRule{Dirs: []string{"/d/tool-output"}, Name: regexp.MustCompile(`^tool_[0-9a-z]+$`)}
	for path, want := range map[string]bool{
		"/d/tool-output/tool_abc":         true,
		"/d/tool-output/./tool_abc":       true,
		"/d/tool-output/../x/tool_abc":    false,
		"/d/tool-output/sub/tool_abc":     false,
		"/d/tool-output/tool_abc.txt":     false,
		"d/tool-output/tool_abc":          false,
		"/d/tool-output/tool_abc/../../x": false,
	} {
		if got := r.Match(path); got != want {
			t.Errorf("Match(%q) = %v", path, got)
		}
	}
	if got := TempDirs(func(string) string { return "" }); !reflect.DeepEqual(got, []string{"/tmp"}) {
		t.Errorf("%v", got)
	}
}

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

func makeDB(t *testing.T, path, journal string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode="+journal)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{"create table t(a)", "insert into t values(1)"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
}

func count(t *testing.T, db *sql.DB) int {
	t.Helper()
	var n int
	if err := db.QueryRow("select count(*) from t").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestOpenReadOnly: reading never leaves a file beside the user's
// database, and a live writer's latest commits are seen.
func TestOpenReadOnly(t *testing.T) {
	t.Run("quiescent WAL database: immutable, nothing created", func(t *testing.T) {
		dir := t.TempDir()
		p := filepath.Join(dir, "x.db")
		makeDB(t, p, "WAL")
		before := listDir(t, dir)
		db, snap, err := OpenReadOnly(p)
		if err != nil {
			t.Fatal(err)
		}
		if n := count(t, db); n != 1 || !snap.Immutable() {
			t.Errorf("count %d immutable %v", n, snap.Immutable())
		}
		if err := snap.Verify(); err != nil {
			t.Error(err)
		}
		db.Close()
		if after := listDir(t, dir); !reflect.DeepEqual(after, before) {
			t.Errorf("files %v, before %v", after, before)
		}
	})
	t.Run("live WAL writer: mode=ro sees its commits", func(t *testing.T) {
		dir := t.TempDir()
		p := filepath.Join(dir, "x.db")
		makeDB(t, p, "WAL")
		w, err := sql.Open("sqlite3", "file:"+p+"?_journal_mode=WAL")
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		w.SetMaxOpenConns(1)
		if _, err := w.Exec("insert into t values(2)"); err != nil {
			t.Fatal(err)
		}
		db, snap, err := OpenReadOnly(p)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if snap.Immutable() || count(t, db) != 2 {
			t.Fatal("the live database was not read through its WAL")
		}
		if _, err := w.Exec("insert into t values(3)"); err != nil {
			t.Fatal(err)
		}
		if count(t, db) != 3 {
			t.Error("a later commit was not seen")
		}
		if _, err := db.Exec("insert into t values(9)"); err == nil {
			t.Error("a read-only connection wrote")
		}
	})
	t.Run("rollback journal: mode=ro, nothing created", func(t *testing.T) {
		dir := t.TempDir()
		p := filepath.Join(dir, "x.db")
		makeDB(t, p, "DELETE")
		db, snap, err := OpenReadOnly(p)
		if err != nil {
			t.Fatal(err)
		}
		if count(t, db) != 1 || snap.Immutable() {
			t.Error("rollback-journal database misread")
		}
		db.Close()
		if got := listDir(t, dir); !reflect.DeepEqual(got, []string{"x.db"}) {
			t.Errorf("files %v", got)
		}
	})
	t.Run("a writer during an immutable read is detected", func(t *testing.T) {
		dir := t.TempDir()
		p := filepath.Join(dir, "x.db")
		makeDB(t, p, "WAL")
		db, snap, err := OpenReadOnly(p)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		w, _ := sql.Open("sqlite3", "file:"+p+"?_journal_mode=WAL")
		defer w.Close()
		if _, err := w.Exec("insert into t values(2)"); err != nil {
			t.Fatal(err)
		}
		if err := snap.Verify(); !errors.Is(err, ErrChangedWhileRead) {
			t.Errorf("Verify = %v", err)
		}
	})
	t.Run("not a database", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "x.db")
		os.WriteFile(p, []byte("hello, this is not sqlite at all"), 0o644)
		if _, _, err := OpenReadOnly(p); !errors.Is(err, ErrNotSQLite) || IsSQLite(p) {
			t.Errorf("err %v", err)
		}
	})
	t.Run("a path with URI characters", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "a?b#c %d")
		os.MkdirAll(dir, 0o755)
		p := filepath.Join(dir, "x.db")
		makeDB(t, strings.NewReplacer("?", "%3F", "#", "%23", "%", "%25").Replace(p), "DELETE")
		if _, err := os.Stat(p); err != nil {
			t.Skip("driver could not create the fixture path")
		}
		db, _, err := OpenReadOnly(p)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if count(t, db) != 1 {
			t.Error("misread")
		}
	})
}

// A file's long lines are read whole into buffers of their own (Owned),
// with the same bytes, offsets and numbers as the stream reader gives;
// short lines come from the shared buffer; the limit ends the read; a file
// reads as any other ReaderAt does.
func TestLineReaderAtLongLines(t *testing.T) {
	long := strings.Repeat("y", 3*bufferSize+17)
	huge := strings.Repeat("z", 16<<20+5)
	in := "a\n" + long + "\r\nb\n" + long + "\n" + huge + "\n" + long
	path := filepath.Join(t.TempDir(), "log.jsonl")
	if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tests := []struct {
		name  string
		off   int64
		limit int64
	}{
		{"whole file", 0, int64(len(in))},
		{"from the second line", 2, int64(len(in))},
		{"limit inside a long last line", 0, int64(len(in)) - 5},
		{"limit inside a 16 MB line", 0, int64(len(in) - len(long) - 100)},
		{"limit at a long line's newline", 0, int64(len("a\n" + long + "\r"))},
	}
	for _, tt := range tests {
		for _, src := range []struct {
			name string
			ra   io.ReaderAt
		}{{"reader", strings.NewReader(in)}, {"file", f}} {
			t.Run(tt.name+"/"+src.name, func(t *testing.T) {
				want := collect(t, NewLineReader(strings.NewReader(in[tt.off:tt.limit]), tt.off, 1))
				got := collect(t, NewLineReaderAt(src.ra, tt.off, 1, tt.limit))
				if len(got) != len(want) {
					t.Fatalf("%d lines, want %d", len(got), len(want))
				}
				for i := range got {
					g, w := got[i], want[i]
					long := len(g.Bytes) >= bufferSize
					if !bytes.Equal(g.Bytes, w.Bytes) || g.Offset != w.Offset || g.Number != w.Number || g.Length != w.Length || g.Complete != w.Complete || g.Owned != long {
						t.Errorf("line %d: got %d bytes at %d (#%d, %d, complete %v, owned %v), want %d bytes at %d (#%d, %d, complete %v, owned %v)",
							i, len(g.Bytes), g.Offset, g.Number, g.Length, g.Complete, g.Owned, len(w.Bytes), w.Offset, w.Number, w.Length, w.Complete, long)
					}
				}
			})
		}
	}
}

// An owned line's buffer is its own: reading on never changes it.
func TestLineReaderAtOwnedBufferIsKept(t *testing.T) {
	a, b := strings.Repeat("a", bufferSize*2), strings.Repeat("b", bufferSize*2)
	lr := NewLineReaderAt(strings.NewReader(a+"\n"+b+"\n"), 0, 1, int64(len(a)+len(b)+2))
	first, err := lr.Next()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lr.Next(); err != nil {
		t.Fatal(err)
	}
	if !first.Owned || string(first.Bytes) != a {
		t.Errorf("the first line changed after the second was read (owned %v)", first.Owned)
	}
}

func collect(t *testing.T, lr *LineReader) []Line {
	t.Helper()
	var out []Line
	for {
		l, err := lr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if !l.Owned {
			l.Bytes = append([]byte(nil), l.Bytes...)
		}
		out = append(out, l)
	}
}

// A file cut short under a reader reads as a reader of the bytes left
// does: a long line ends where the file now ends.
func TestLineReaderAtTruncatedFile(t *testing.T) {
	in := "a\n" + strings.Repeat("y", 3*bufferSize) + "\nb\n"
	path := filepath.Join(t.TempDir(), "log.jsonl")
	if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lr := NewLineReaderAt(f, 0, 1, int64(len(in)))
	cut := 2 + bufferSize + 4096 + 10
	if err := os.Truncate(path, int64(cut)); err != nil {
		t.Fatal(err)
	}
	var got []Line
	for {
		l, err := lr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			got = append(got, Line{Number: -1})
			break
		}
		if !l.Owned {
			l.Bytes = bytes.Clone(l.Bytes)
		}
		got = append(got, l)
	}
	want := collect(t, NewLineReaderAt(strings.NewReader(in[:cut]), 0, 1, int64(len(in))))
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i].Length != want[i].Length || got[i].Complete != want[i].Complete || !bytes.Equal(got[i].Bytes, want[i].Bytes) {
			t.Errorf("line %d: %d bytes (complete %v), want %d (complete %v)", i, got[i].Length, got[i].Complete, want[i].Length, want[i].Complete)
		}
	}
}

// Under Reuse, long lines share one buffer (grown to the longest so far),
// each whole and right when it is returned, and a line longer than
// reuseMax still gets its own.
func TestLineReaderAtReuse(t *testing.T) {
	a, b := strings.Repeat("a", 3*bufferSize), strings.Repeat("b", 2*bufferSize)
	huge := strings.Repeat("h", reuseMax+1)
	in := a + "\n" + b + "\n" + huge + "\n" + a + "\n"
	lr := NewLineReaderAt(strings.NewReader(in), 0, 1, int64(len(in)))
	lr.Reuse()
	defer lr.Release()
	var starts []*byte
	for i, want := range []string{a, b, huge, a} {
		l, err := lr.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !l.Owned || string(l.Bytes) != want {
			t.Fatalf("line %d: owned %v, %d bytes, want %d", i, l.Owned, len(l.Bytes), len(want))
		}
		starts = append(starts, &l.Bytes[0])
	}
	if starts[0] != starts[1] || starts[1] != starts[3] || starts[2] == starts[0] {
		t.Errorf("buffers %p %p %p %p: want the long lines' shared, the huge line's its own", starts[0], starts[1], starts[2], starts[3])
	}
}
