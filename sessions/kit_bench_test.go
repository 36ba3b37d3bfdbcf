package sessions

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"spillscope/sessions/samplegen"
)

// BenchmarkStructureKit is the structure pass over each of the OpenCode,
// Copilot CLI and goose parts of a generated corpus (samplegen at scale 40:
// one OpenCode database of 80 sessions and 40 exports, 40 Copilot logs, one
// goose database of 80 sessions), into a fresh index each time: MB/s of
// the sources read (databases, documents and logs; not spill files).
func BenchmarkStructureKit(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "corpus")
	if _, err := samplegen.Generate(dir, samplegen.Options{Seed: 1, Scale: 40, ScreenshotBytes: 8 << 10}); err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		harness, folder string
	}{{HarnessOpenCode, "opencode"}, {HarnessCopilot, "copilot"}, {HarnessGoose, "goose"}} {
		b.Run(tc.harness, func(b *testing.B) {
			root := filepath.Join(dir, tc.folder)
			var size int64
			filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
				if err == nil && !e.IsDir() && (strings.HasSuffix(p, ".db") || strings.HasSuffix(p, ".json") || strings.HasSuffix(p, ".jsonl")) {
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
				if err != nil || s.PerHarness[tc.harness].ToolResults == 0 {
					b.Fatalf("%+v %v", s, err)
				}
				d.Close()
				b.StartTimer()
			}
		})
	}
}
