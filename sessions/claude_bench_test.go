package sessions

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"spillscope/sessions/samplegen"
)

// BenchmarkStructureClaude is the structure pass over the Claude Code part
// of a generated corpus (samplegen at scale 10: transcripts with text,
// array and image results, spill notices, subagents and compactions), into
// a fresh index each time: MB/s of the transcripts read. It needs no real
// logs; BenchmarkStructure reads copies of the real ones where present.
func BenchmarkStructureClaude(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "corpus")
	if _, err := samplegen.Generate(dir, samplegen.Options{Seed: 1, Scale: 10}); err != nil {
		b.Fatal(err)
	}
	root := filepath.Join(dir, "claude", "projects")
	var size int64
	filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() && strings.HasSuffix(p, ".jsonl") {
			fi, _ := e.Info()
			size += fi.Size()
		}
		return err
	})
	b.SetBytes(size)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		d, err := Open(filepath.Join(b.TempDir(), "index.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		s, err := d.Index(context.Background(), []string{root}, IndexOptions{})
		b.StopTimer()
		if err != nil || s.PerHarness[HarnessClaude].ToolResults == 0 {
			b.Fatalf("%+v %v", s, err)
		}
		d.Close()
		b.StartTimer()
	}
}
