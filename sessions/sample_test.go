package sessions

import (
	"path/filepath"
	"strings"
	"testing"

	"spillscope/sessions/samplegen"
)

func TestIndexSampleCorpus(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "corpus")
	m, err := samplegen.Generate(dir, samplegen.Options{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	d := openTemp(t)
	s := index(t, d, dir)
	checks := []struct {
		name      string
		got, want int
	}{
		{"files", s.Files, m.Files},
		{"sessions", s.Sessions, m.Sessions},
		{"tool results", s.ToolResults, m.ToolResults},
		{"images in tool results", s.ToolResultImages, m.ToolResultImages},
		{"spill notices", s.SpillNotices, m.SpillNotices},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if c.got != c.want {
				t.Errorf("got %d, want %d", c.got, c.want)
			}
		})
	}
	diags, err := d.BrowseDiagnostics(t.Context(), 10000)
	if err != nil {
		t.Fatal(err)
	}
	var bad, unknown, invalid int
	for _, g := range diags {
		switch {
		case strings.HasPrefix(g.Message, "not a JSON object"):
			bad++
		case strings.HasPrefix(g.Message, "unknown line type"):
			unknown++
		case strings.Contains(g.Message, "invalid base64"):
			invalid++
		}
	}
	var wantUnknown, wantInvalid, present, missing int
	for _, c := range m.PerHarness {
		wantUnknown += c.UnknownLines
		wantInvalid += c.InvalidImages
		present += c.SpillFilesPresent
		missing += c.SpillFilesMissing
	}
	t.Run("bad lines", func(t *testing.T) {
		if bad != m.BadLines || unknown != wantUnknown || invalid != wantInvalid {
			t.Errorf("bad %d unknown %d invalid images %d, want %d %d %d", bad, unknown, invalid, m.BadLines, wantUnknown, wantInvalid)
		}
	})
	t.Run("spill files present and missing", func(t *testing.T) {
		rows, err := d.Results(t.Context(), ResultFilter{})
		if err != nil {
			t.Fatal(err)
		}
		var p, q int
		kinds := map[string]int{}
		for _, r := range rows {
			if r.Spill == nil {
				continue
			}
			kinds[r.Spill.Kind]++
			if r.SpillExists {
				p++
			} else {
				q++
			}
		}
		if p != present || q != missing {
			t.Errorf("present %d missing %d, want %d %d (kinds %v)", p, q, present, missing, kinds)
		}
	})
	t.Run("usage per transcript", func(t *testing.T) {
		ss, err := d.BrowseSessions(t.Context(), SessionFilter{Limit: 5000})
		if err != nil {
			t.Fatal(err)
		}
		byPath := map[string]SessionSummary{}
		for _, s := range ss {
			rel, _ := filepath.Rel(dir, s.File)
			byPath[filepath.ToSlash(rel)] = s
			// A database holds many sessions in one file.
			byPath[filepath.ToSlash(rel)+"#"+s.SessionID] = s
		}
		for _, su := range m.SessionUsage {
			s, ok := byPath[su.Path+"#"+su.SessionID]
			if !ok {
				s, ok = byPath[su.Path]
			}
			if !ok {
				t.Errorf("%s not indexed", su.Path)
				continue
			}
			u := su.Usage
			var want Usage
			switch su.Harness {
			case "dsh":
				// dsh's buckets are disjoint, as the index keeps them.
				want = Usage{Input: u.InputTokens, CacheRead: u.CacheReadInputTokens, CacheWrite: u.CacheCreationInputTokens, Output: u.OutputTokens, Reasoning: u.ReasoningOutputTokens}
			case "claude", HarnessClaude:
				want = Usage{Input: u.InputTokens, CacheRead: u.CacheReadInputTokens, CacheWrite: u.CacheCreationInputTokens, Output: u.OutputTokens}
			case samplegen.HarnessOpenCode:
				// OpenCode records input without the cache already, and
				// output without the reasoning, which is output too.
				want = Usage{Input: u.InputTokens, CacheRead: u.CacheReadInputTokens, CacheWrite: u.CacheCreationInputTokens,
					Output: u.OutputTokens + u.ReasoningOutputTokens, Reasoning: u.ReasoningOutputTokens}
			case samplegen.HarnessCopilot, samplegen.HarnessGoose:
				// Their input counts hold the cache reads and writes.
				want = Usage{Input: u.InputTokens - u.CacheReadInputTokens - u.CacheCreationInputTokens, CacheRead: u.CacheReadInputTokens,
					CacheWrite: u.CacheCreationInputTokens, Output: u.OutputTokens, Reasoning: u.ReasoningOutputTokens}
			case "gemini", HarnessGemini:
				// The tool-use prompt is input beside promptTokenCount;
				// candidates leave out the thoughts, which are output too.
				want = Usage{Input: u.InputTokens - u.CachedInputTokens + u.ToolTokens, CacheRead: u.CachedInputTokens,
					Output: u.OutputTokens + u.ReasoningOutputTokens, Reasoning: u.ReasoningOutputTokens}
			default:
				want = Usage{Input: u.InputTokens - u.CachedInputTokens, CacheRead: u.CachedInputTokens, Output: u.OutputTokens, Reasoning: u.ReasoningOutputTokens}
			}
			got := Usage{Input: s.Input, CacheRead: s.CacheRead, CacheWrite: s.CacheWrite, Output: s.Output, Reasoning: s.Reasoning}
			if got != want {
				t.Errorf("%s (%s): usage %+v, want %+v", su.Path, su.Harness, got, want)
			}
			if su.Model != "" && s.Model != su.Model {
				t.Errorf("%s: model %q, want %q", su.Path, s.Model, su.Model)
			}
		}
	})
}
