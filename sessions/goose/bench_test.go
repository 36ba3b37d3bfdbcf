package goose

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"spillscope/sessions/internal/testkit"
)

func BenchmarkReadDB(b *testing.B) {
	g := newGooseDBB(b)
	out := strings.Repeat("src/main.rs:10: fn main() { println!(\"hello\"); }\n", 60)
	tx, _ := g.db.Begin()
	var size int64
	for i := 0; i < 2000; i++ {
		req := testkit.MustJSON(b, []any{toolRequest(fmt.Sprintf("c%d", i), "developer__shell", map[string]any{"command": "grep -rn main src"})})
		resp := testkit.MustJSON(b, []any{toolResponse(fmt.Sprintf("c%d", i), text(out))})
		size += int64(len(req) + len(resp))
		tx.Exec("INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, metadata_json) VALUES (?, 's1', 'assistant', ?, ?, '{}')", fmt.Sprintf("a%d", i), req, 2*i)
		tx.Exec("INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, metadata_json) VALUES (?, 's1', 'user', ?, ?, '{}')", fmt.Sprintf("u%d", i), resp, 2*i+1)
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	g.db.Close()
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		if _, err := ReadDB(context.Background(), g.path, DBCursor{}, Handler{Result: func(Result) error { n++; return nil }}); err != nil {
			b.Fatal(err)
		}
		if n != 2000 {
			b.Fatalf("%d results", n)
		}
	}
}
