package opencode

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"spillscope/sessions/internal/testkit"
)

func benchExport(b *testing.B, n int) string {
	out := strings.Repeat("  42: func main() { fmt.Println(\"hello\") }\n", 60)
	var msgs []map[string]any
	for i := 0; i < n; i++ {
		msgs = append(msgs, msg(assistantInfo(fmt.Sprintf("msg_%05d", i), int64(i)),
			map[string]any{"type": "step-start"},
			toolPart(fmt.Sprintf("c%d", i), "read", "completed", out, map[string]any{"metadata": map[string]any{"preview": out[:200], "truncated": false}}),
			stepFinish(1, 200, 30000, 500)))
	}
	return exportDoc(b, msgs...)
}

func BenchmarkReadExport(b *testing.B) {
	doc := benchExport(b, 2000)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		if err := ReadExport(context.Background(), strings.NewReader(doc), Handler{Result: func(Result) error { n++; return nil }}); err != nil {
			b.Fatal(err)
		}
		if n != 2000 {
			b.Fatalf("%d results", n)
		}
	}
}

func BenchmarkReadDB(b *testing.B) {
	path := filepath.Join(b.TempDir(), "opencode.db")
	db := openWriter(b, path)
	for _, q := range splitSQL(schema) {
		exec(b, db, q)
	}
	exec(b, db, "INSERT INTO project VALUES ('p', '/w', 1, 1)")
	exec(b, db, "INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) VALUES ('ses_1','p','s','/w','t','1',1,1)")
	out := strings.Repeat("  42: func main() { fmt.Println(\"hello\") }\n", 60)
	tx, _ := db.Begin()
	var size int64
	for i := 0; i < 2000; i++ {
		mid := fmt.Sprintf("msg_%05d", i)
		info := assistantInfo(mid, int64(i))
		delete(info, "id")
		delete(info, "sessionID")
		tx.Exec("INSERT INTO message VALUES (?, 'ses_1', ?, ?, ?)", mid, i, i, testkit.MustJSON(b, info))
		for j, p := range []map[string]any{toolPart(fmt.Sprintf("c%d", i), "read", "completed", out, nil), stepFinish(1, 2, 3, 4)} {
			d := testkit.MustJSON(b, p)
			size += int64(len(d))
			tx.Exec("INSERT INTO part VALUES (?, ?, 'ses_1', ?, ?, ?)", fmt.Sprintf("prt_%05d_%d", i, j), mid, i, i, d)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	db.Close()
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		if _, err := ReadDB(context.Background(), path, DBCursor{}, Handler{Result: func(Result) error { n++; return nil }}); err != nil {
			b.Fatal(err)
		}
		if n != 2000 {
			b.Fatalf("%d results", n)
		}
	}
}
