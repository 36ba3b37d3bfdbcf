package sessions

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"spillscope/retention"
)

// benchCorpus copies the real Claude Code logs copies times into a fresh
// folder (as separate projects, so nothing dedupes them away) and returns
// the folder and its size.
func benchCorpus(b *testing.B, copies int) (string, int64) {
	b.Helper()
	src := filepath.Join(realRoot(b), "claude", "projects")
	dst := filepath.Join(b.TempDir(), "projects")
	var total int64
	for i := range copies {
		err := filepath.WalkDir(src, func(p string, de os.DirEntry, err error) error {
			if err != nil || de.IsDir() || !strings.HasSuffix(p, ".jsonl") {
				return err
			}
			rel, _ := filepath.Rel(src, p)
			out := filepath.Join(dst, fmt.Sprintf("copy%03d", i), rel)
			if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
				return err
			}
			in, err := os.Open(p)
			if err != nil {
				return err
			}
			defer in.Close()
			f, err := os.Create(out)
			if err != nil {
				return err
			}
			n, err := io.Copy(f, in)
			total += n
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return dst, total
}

// BenchmarkParseClaude is the reader alone (no SQLite): lines in, results,
// usage and notices out.
func BenchmarkParseClaude(b *testing.B) {
	root, size := benchCorpus(b, 4)
	var files []string
	filepath.WalkDir(root, func(p string, de os.DirEntry, err error) error {
		if err == nil && !de.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, p := range files {
			f, err := os.Open(p)
			if err != nil {
				b.Fatal(err)
			}
			st, _ := f.Stat()
			pr := &Parsed{OnResult: func(r *ToolResult) { r.Blocks = nil }}
			rd := &ClaudeReader{}
			readLines(context.Background(), f, 0, 1, st.Size(), rd.ReadLine, pr, nil)
			f.Close()
		}
	}
}

// BenchmarkStructure is the structure phase into a fresh database.
func BenchmarkStructure(b *testing.B) {
	root, size := benchCorpus(b, 4)
	b.SetBytes(size)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		b.StopTimer()
		d, err := Open(filepath.Join(b.TempDir(), fmt.Sprint(i), "index.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := d.Index(context.Background(), []string{root}, IndexOptions{}); err != nil {
			b.Fatal(err)
		}
		d.Close()
	}
}

// BenchmarkTokens is the token phase over every result (text bytes/s).
func BenchmarkTokens(b *testing.B) {
	root, _ := benchCorpus(b, 1)
	d := openTemp(b)
	index(b, d, root)
	var text int64
	d.db.QueryRow(`SELECT SUM(text_bytes) FROM tool_results`).Scan(&text)
	b.SetBytes(text)
	// The vocabulary loads once per process; that is not the phase's cost.
	if _, err := retention.CountTokens("", "warm up\nab"); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		if _, err := d.db.Exec(`UPDATE tool_results SET est_tokens = NULL`); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := d.EstimateTokens(context.Background(), EnrichOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNoChange is a second pass over an unchanged corpus.
func BenchmarkNoChange(b *testing.B) {
	root, _ := benchCorpus(b, 4)
	d := openTemp(b)
	index(b, d, root)
	if err := d.Enrich(context.Background(), EnrichOptions{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		s, err := d.Index(context.Background(), []string{root}, IndexOptions{})
		if err != nil || s.ChangedFiles != 0 {
			b.Fatalf("%v %+v", err, s)
		}
		if err := d.Enrich(context.Background(), EnrichOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRanking is the "most tokens" lists over an index of many copies
// of the real logs: the global top 50 (index on rank_tokens), sessions by
// their token sums, and a search ordered by tokens.
func BenchmarkRanking(b *testing.B) {
	root, _ := benchCorpus(b, 25)
	d := openTemp(b)
	index(b, d, root)
	if err := d.IndexText(context.Background(), EnrichOptions{}); err != nil {
		b.Fatal(err)
	}
	var n int
	d.db.QueryRow(`SELECT COUNT(*) FROM tool_results`).Scan(&n)
	b.Logf("%d results", n)
	ctx := context.Background()
	b.Run("Largest50", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if rows, err := d.Results(ctx, ResultFilter{Order: OrderTokens, Limit: 50}); err != nil || len(rows) != 50 {
				b.Fatal(len(rows), err)
			}
		}
	})
	b.Run("SessionsByTokens", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := d.BrowseSessions(ctx, SessionFilter{Order: OrderTokens}); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, o := range []Order{OrderRelevance, OrderTokens} {
		b.Run("Search/"+string(o), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if rows, err := d.Search(ctx, `"error"`, o, 200); err != nil || len(rows) == 0 {
					b.Fatal(len(rows), err)
				}
			}
		})
	}
}

// realFiles lists the real fixtures of one harness folder with a suffix,
// and their size.
func realFiles(b *testing.B, dir, suffix string) ([]string, int64) {
	b.Helper()
	var files []string
	var size int64
	filepath.WalkDir(filepath.Join(realRoot(b), dir), func(p string, de os.DirEntry, err error) error {
		if err == nil && !de.IsDir() && strings.HasSuffix(p, suffix) {
			files = append(files, p)
			if st, err := de.Info(); err == nil {
				size += st.Size()
			}
		}
		return nil
	})
	if len(files) == 0 {
		b.Skipf("no %s files under %s", suffix, dir)
	}
	return files, size
}

// BenchmarkParseCodex is the Codex reader alone over the real rollouts.
func BenchmarkParseCodex(b *testing.B) {
	files, size := realFiles(b, "codex", ".jsonl")
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range files {
			f, err := os.Open(p)
			if err != nil {
				b.Fatal(err)
			}
			st, _ := f.Stat()
			pr := &Parsed{OnResult: func(r *ToolResult) { r.Blocks = nil }}
			readLines(context.Background(), f, 0, 1, st.Size(), (&CodexReader{}).ReadLine, pr, nil)
			f.Close()
		}
	}
}

// BenchmarkParseGemini is the Gemini reader alone over the real chats: the
// JSONL recordings and the JSON documents, each read whole as the harness
// reads them.
func BenchmarkParseGemini(b *testing.B) {
	for _, kind := range []struct {
		name, suffix string
		read         func([]byte, *Parsed)
	}{{"jsonl", ".jsonl", ReadGeminiLines}, {"json", ".json", ReadGeminiDoc}} {
		b.Run(kind.name, func(b *testing.B) {
			files, size := realFiles(b, "gemini", kind.suffix)
			docs := make([][]byte, len(files))
			for i, p := range files {
				var err error
				if docs[i], err = os.ReadFile(p); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				for _, doc := range docs {
					kind.read(doc, &Parsed{OnResult: func(r *ToolResult) { r.Blocks = nil }})
				}
			}
		})
	}
}
