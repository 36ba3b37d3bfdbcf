package samplegen

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"spillscope/retention"
)

// treeHashes maps each file under dir (relative path) to the sha256 of its
// bytes, with the folder's own absolute path replaced by a placeholder so two
// folders can be compared.
func treeHashes(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][32]byte{}
	err = filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.HasSuffix(p, ".zstd") {
			// dsh's zstd logs: the paths they name are inside the frames.
			b = bytes.Join(dshLines(t, p), []byte("\n"))
		}
		b = bytes.ReplaceAll(b, []byte(abs), []byte("$CORPUS"))
		rel, _ := filepath.Rel(abs, p)
		out[filepath.ToSlash(rel)] = sha256.Sum256(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// zstdBytes is the size on disk of the zstd files under dir.
func zstdBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".zstd") {
			st, err := os.Stat(p)
			if err != nil {
				return err
			}
			n += st.Size()
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestGenerateIsDeterministic(t *testing.T) {
	base := t.TempDir()
	gen := func(name string, seed int64) (Manifest, map[string][32]byte) {
		dir := filepath.Join(base, name)
		m, err := Generate(dir, Options{Seed: seed})
		if err != nil {
			t.Fatalf("Generate(%s, seed %d): %v", name, seed, err)
		}
		return m, treeHashes(t, dir)
	}
	m1, h1 := gen("a", 7)

	t.Run("same seed same folder", func(t *testing.T) {
		dir := filepath.Join(base, "a")
		before := treeHashes(t, dir)
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if _, err := Generate(dir, Options{Seed: 7}); err != nil {
			t.Fatal(err)
		}
		if got := treeHashes(t, dir); !reflect.DeepEqual(got, before) {
			t.Errorf("second run differs: %d files vs %d", len(got), len(before))
		}
	})
	t.Run("same seed other folder", func(t *testing.T) {
		m2, h2 := gen("b", 7)
		if !reflect.DeepEqual(h1, h2) {
			for k, v := range h1 {
				if h2[k] != v {
					t.Errorf("file %s differs between folders", k)
				}
			}
			t.Fatalf("trees differ (%d vs %d files)", len(h1), len(h2))
		}
		m1.SessionUsage, m2.SessionUsage = nil, nil
		// zstd frames compress the paths they name, so their sizes follow
		// the folder's name; their content is compared decoded above.
		m1.Bytes -= zstdBytes(t, filepath.Join(base, "a"))
		m2.Bytes -= zstdBytes(t, filepath.Join(base, "b"))
		if !reflect.DeepEqual(m1, m2) {
			t.Errorf("manifests differ:\n%+v\n%+v", m1, m2)
		}
	})
	t.Run("other seed", func(t *testing.T) {
		_, h3 := gen("c", 8)
		same := 0
		for k, v := range h3 {
			if h1[k] == v {
				same++
			}
		}
		if same > 0 {
			t.Errorf("%d files identical under another seed", same)
		}
	})
}

func TestGenerateRefusesNonEmptyFolder(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Generate(dir, Options{Seed: 1})
	if !errors.Is(err, ErrNotEmpty) {
		t.Fatalf("Generate into a non-empty folder: err = %v, want ErrNotEmpty", err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "notes.txt"))
	if string(b) != "mine" {
		t.Errorf("existing file changed to %q", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("folder holds %d entries after refusal, want 1", len(entries))
	}
}

func TestGenerateRejectsNegativeOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"negative scale", Options{Scale: -1}},
		{"negative screenshot", Options{ScreenshotBytes: -5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Generate(filepath.Join(t.TempDir(), "out"), tc.opts); !errors.Is(err, ErrOptions) {
				t.Errorf("err = %v, want ErrOptions", err)
			}
		})
	}
}

// --- An independent reader: counts what the files hold, by its own rules
// written from FORMATS.md, without the generator's bookkeeping.

// knownClaudeTypes are the line types FORMATS.md section 1 lists for Claude
// Code (2.1.114 added attachment, permission-mode and last-prompt).
var knownClaudeTypes = map[string]bool{"user": true, "assistant": true, "system": true, "summary": true, "progress": true,
	"file-history-snapshot": true, "queue-operation": true, "attachment": true, "permission-mode": true, "custom-title": true,
	"ai-title": true, "agent-name": true, "last-prompt": true, "pr-link": true, "agent-setting": true, "bridge-session": true,
	"worktree-state": true}

var noticePatterns = []struct {
	kind string
	re   *regexp.Regexp
}{
	// Sizes are whole KB up to 2.1.39 and decimal from 2.1.85 ("32.9KB").
	{NoticeClaude, regexp.MustCompile(`<persisted-output>\nOutput too large \([\d.]+KB\)\. Full output saved to: ([^\n]+)\n`)},
	{NoticeClaudeMCP, regexp.MustCompile(`exceeds maximum allowed tokens\. Output has been saved to ([^\n]+?)\.\nFormat: `)},
	{NoticeOpenCode, regexp.MustCompile(`The tool call succeeded but the output was truncated\. Full output saved to: ([^\n]+)\n`)},
	{NoticeGoose, regexp.MustCompile(`is stored in the file which you can use other tools to examine or search in: ([^\n]+)$`)},
	{NoticeGoose, regexp.MustCompile(`^The response returned from the tool call was larger \(\d+ characters\) and is stored in the file: ([^\n]+)\n`)},
	{NoticeOpenCodeShell, regexp.MustCompile(`^\.\.\.output truncated\.\.\.\n\nFull output saved to: ([^\n]+)\n`)},
	{NoticeCopilot, regexp.MustCompile(`^Output too large to read at once \([^)\n]*\)\. Saved to: ([^\n]+)\n`)},
	{NoticeGemini, regexp.MustCompile(`^Output too large\. Showing first \d+ and last \d+ characters\. For full output see: ([^\n]+)\n`)},
	{NoticeSpillscope, regexp.MustCompile(`\(Omitted \d+ bytes[^\n]*\. Full formatted result stored at: ([^\n]+?)\. Use read`)},
}

func countNotice(c *Counts, text string) {
	for _, l := range CredentialLinks {
		c.CredentialLinks += strings.Count(text, l)
	}
	for _, p := range noticePatterns {
		if m := p.re.FindStringSubmatch(text); m != nil {
			_, err := os.Stat(m[1])
			c.addNotice(p.kind, err == nil)
			return
		}
	}
}

func validPNGBase64(s string) bool {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return false
	}
	_, err = png.DecodeConfig(bytes.NewReader(b))
	return err == nil
}

// readLines calls fn with each line of a file (no newline), however long.
func readLines(t *testing.T, path string, fn func(line []byte)) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			fn(bytes.TrimSuffix(line, []byte("\n")))
		}
		if err != nil {
			return
		}
	}
}

func asString(v any) string { s, _ := v.(string); return s }
func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}
func asInt(v any) int64 { f, _ := v.(float64); return int64(f) }

func recount(t *testing.T, dir string) (map[string]Counts, map[string]Usage) {
	t.Helper()
	per := map[string]Counts{}
	usage := map[string]Usage{}
	abs, _ := filepath.Abs(dir)
	err := filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(abs, p)
		rel = filepath.ToSlash(rel)
		switch {
		case strings.HasPrefix(rel, "claude/") && strings.HasSuffix(rel, ".jsonl"):
			c := per[HarnessClaude]
			recountClaude(t, p, &c, usage, rel)
			per[HarnessClaude] = c
		case strings.HasPrefix(rel, "codex/") && strings.HasSuffix(rel, ".jsonl"):
			c := per[HarnessCodex]
			recountCodex(t, p, &c, usage, rel)
			per[HarnessCodex] = c
		case strings.HasPrefix(rel, "gemini/") && strings.Contains(rel, "/chats/"):
			c := per[HarnessGemini]
			recountGemini(t, p, &c, usage, rel)
			per[HarnessGemini] = c
		case strings.HasPrefix(rel, "dsh/home/sessions/"):
			c := per[HarnessDsh]
			recountDsh(t, p, &c, usage, rel)
			per[HarnessDsh] = c
		case strings.HasPrefix(rel, "spillscope/") && strings.HasSuffix(rel, ".retained.json"):
			c := per[HarnessSpillscope]
			recountRetained(t, p, &c)
			per[HarnessSpillscope] = c
		case rel == "opencode/opencode.db":
			c := per[HarnessOpenCode]
			recountOpenCodeDB(t, p, &c, usage, rel)
			per[HarnessOpenCode] = c
		case strings.HasPrefix(rel, "opencode/export/"):
			c := per[HarnessOpenCode]
			recountOpenCodeExport(t, p, &c, usage, rel)
			per[HarnessOpenCode] = c
		case strings.HasPrefix(rel, "copilot/session-state/"):
			c := per[HarnessCopilot]
			recountCopilot(t, p, &c, usage, rel)
			per[HarnessCopilot] = c
		case rel == "goose/sessions/sessions.db":
			c := per[HarnessGoose]
			recountGoose(t, p, &c, usage, rel)
			per[HarnessGoose] = c
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return per, usage
}

func recountClaude(t *testing.T, path string, c *Counts, usage map[string]Usage, rel string) {
	c.Files++
	if strings.Contains(rel, "/subagents/") {
		c.Subagents++
	} else {
		c.Sessions++
	}
	last := map[string]Usage{}
	readLines(t, path, func(line []byte) {
		var v map[string]any
		if err := json.Unmarshal(line, &v); err != nil {
			c.BadLines++
			return
		}
		typ := asString(v["type"])
		if !knownClaudeTypes[typ] {
			c.UnknownLines++
			return
		}
		msg := asMap(v["message"])
		switch typ {
		case "assistant":
			u := asMap(msg["usage"])
			last[asString(msg["id"])] = Usage{InputTokens: asInt(u["input_tokens"]), OutputTokens: asInt(u["output_tokens"]),
				CacheCreationInputTokens: asInt(u["cache_creation_input_tokens"]), CacheReadInputTokens: asInt(u["cache_read_input_tokens"])}
		case "user":
			blocks, _ := msg["content"].([]any)
			for _, b := range blocks {
				bm := asMap(b)
				if asString(bm["type"]) != "tool_result" {
					continue
				}
				c.ToolResults++
				var text strings.Builder
				switch content := bm["content"].(type) {
				case string:
					text.WriteString(content)
				case []any:
					for _, e := range content {
						em := asMap(e)
						switch asString(em["type"]) {
						case "text":
							text.WriteString(asString(em["text"]))
						case "resource_link":
							for _, l := range CredentialLinks {
								if asString(em["uri"]) == l {
									c.CredentialLinks++
								}
							}
						case "image":
							if validPNGBase64(asString(asMap(em["source"])["data"])) {
								c.ToolResultImages++
							} else {
								c.InvalidImages++
							}
						}
					}
				}
				countNotice(c, text.String())
			}
		}
	})
	var u Usage
	for _, x := range last {
		u.add(x)
	}
	c.Usage.add(u)
	usage[rel] = u
}

func recountCodex(t *testing.T, path string, c *Counts, usage map[string]Usage, rel string) {
	c.Files++
	c.Sessions++
	var total Usage
	readLines(t, path, func(line []byte) {
		var v map[string]any
		if err := json.Unmarshal(line, &v); err != nil {
			c.BadLines++
			return
		}
		p := asMap(v["payload"])
		switch asString(p["type"]) {
		case "function_call_output", "custom_tool_call_output":
			c.ToolResults++
			switch out := p["output"].(type) {
			case string:
				countNotice(c, out)
			case []any:
				for _, e := range out {
					em := asMap(e)
					if asString(em["type"]) == "input_image" {
						url := asString(em["image_url"])
						if i := strings.Index(url, ";base64,"); i >= 0 && validPNGBase64(url[i+8:]) {
							c.ToolResultImages++
						} else {
							c.InvalidImages++
						}
					}
				}
			}
		case "token_count":
			if info := asMap(p["info"]); info != nil {
				tu := asMap(info["total_token_usage"])
				total = Usage{InputTokens: asInt(tu["input_tokens"]), CachedInputTokens: asInt(tu["cached_input_tokens"]),
					OutputTokens: asInt(tu["output_tokens"]), ReasoningOutputTokens: asInt(tu["reasoning_output_tokens"]), TotalTokens: asInt(tu["total_tokens"])}
			}
		}
	})
	c.Usage.add(total)
	usage[rel] = total
}

func recountGemini(t *testing.T, path string, c *Counts, usage map[string]Usage, rel string) {
	c.Files++
	c.Sessions++
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Messages []struct {
			Tokens    map[string]int64 `json:"tokens"`
			ToolCalls []struct {
				Result []map[string]any `json:"result"`
			} `json:"toolCalls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	var u Usage
	for _, m := range doc.Messages {
		u.add(Usage{InputTokens: m.Tokens["input"], OutputTokens: m.Tokens["output"], CachedInputTokens: m.Tokens["cached"],
			ReasoningOutputTokens: m.Tokens["thoughts"], ToolTokens: m.Tokens["tool"], TotalTokens: m.Tokens["total"]})
		for _, tc := range m.ToolCalls {
			c.ToolResults++
			for _, part := range tc.Result {
				if fr := asMap(part["functionResponse"]); fr != nil {
					countNotice(c, asString(asMap(fr["response"])["output"]))
				}
				if id := asMap(part["inlineData"]); id != nil {
					if validPNGBase64(asString(id["data"])) {
						c.ToolResultImages++
					} else {
						c.InvalidImages++
					}
				}
			}
		}
	}
	c.Usage.add(u)
	usage[rel] = u
}

func recountRetained(t *testing.T, path string, c *Counts) {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Version int `json:"version"`
		Input   struct {
			Content []struct {
				Type string `json:"type"`
				Path string `json:"path"`
			} `json:"content"`
		} `json:"input"`
		Outcome struct {
			Notice    string `json:"notice"`
			SpillPath string `json:"spillPath"`
		} `json:"outcome"`
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if rec.Version != 1 {
		t.Errorf("%s: version %d, want 1", path, rec.Version)
	}
	c.Files++
	c.Sessions++
	c.ToolResults++
	for _, blk := range rec.Input.Content {
		if blk.Type == "image" {
			f, err := os.Open(blk.Path)
			if err != nil {
				t.Errorf("%s: attachment: %v", path, err)
				continue
			}
			_, err = png.DecodeConfig(f)
			f.Close()
			if err != nil {
				t.Errorf("%s: attachment %s: %v", path, blk.Path, err)
				continue
			}
			c.ToolResultImages++
		}
	}
	countNotice(c, rec.Outcome.Notice)
	// The notice must be the one this project's recogniser reads.
	if m, ok := retention.RecogniseNotice(rec.Outcome.Notice); !ok || m.Path != rec.Outcome.SpillPath {
		t.Errorf("%s: retention.RecogniseNotice(%q) = %+v, %v", path, rec.Outcome.Notice, m, ok)
	}
	if want := strings.TrimSuffix(path, ".retained.json") + ".txt"; rec.Outcome.SpillPath != want {
		t.Errorf("%s: spillPath %q, want %q", path, rec.Outcome.SpillPath, want)
	}
}

func TestManifestMatchesFiles(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"default", Options{Seed: 1}},
		{"scale 2", Options{Seed: 99, Scale: 2, ScreenshotBytes: 8 << 10}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			m, err := Generate(dir, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			per, usage := recount(t, dir)
			for _, h := range []string{HarnessClaude, HarnessCodex, HarnessGemini, HarnessSpillscope, HarnessDsh, HarnessOpenCode, HarnessCopilot, HarnessGoose} {
				got, want := per[h], m.PerHarness[h]
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: files say\n  %+v\nmanifest says\n  %+v", h, got, want)
				}
			}
			var total Counts
			for _, c := range per {
				total.add(c)
			}
			gotTop := [6]int{total.Files, total.Sessions, total.ToolResults, total.ToolResultImages, total.SpillNotices, total.BadLines}
			wantTop := [6]int{m.Files, m.Sessions, m.ToolResults, m.ToolResultImages, m.SpillNotices, m.BadLines}
			if gotTop != wantTop {
				t.Errorf("totals (files, sessions, results, images, notices, bad lines): files say %v, manifest %v", gotTop, wantTop)
			}
			if len(m.SessionUsage) != len(usage) {
				t.Errorf("manifest has usage for %d transcripts, files hold %d", len(m.SessionUsage), len(usage))
			}
			for _, su := range m.SessionUsage {
				if got, ok := usage[usageKey(su.Harness, su.Path, su.SessionID)]; !ok || got != su.Usage {
					t.Errorf("usage of %s: files say %+v, manifest %+v", su.Path, got, su.Usage)
				}
			}
			scale := max(tc.opts.Scale, 1)
			if want := 14 * scale; m.Sessions != want {
				t.Errorf("sessions = %d, want %d at scale %d", m.Sessions, want, scale)
			}
			// Every case the brief names is present at least once per scale.
			c := m.PerHarness[HarnessClaude]
			for what, n := range map[string]int{"spill file missing": c.SpillFilesMissing, "invalid image": c.InvalidImages,
				"unknown line": c.UnknownLines, "subagent": c.Subagents, "image": c.ToolResultImages} {
				if n < scale {
					t.Errorf("claude %s: %d, want at least %d", what, n, scale)
				}
			}
			kinds := map[string]int{}
			for _, c := range m.PerHarness {
				for k, n := range c.NoticeKinds {
					kinds[k] += n
				}
			}
			for _, k := range []string{NoticeClaude, NoticeClaudeMCP, NoticeOpenCode, NoticeOpenCodeShell, NoticeGoose, NoticeGemini, NoticeSpillscope, NoticeCopilot} {
				if kinds[k] < scale {
					t.Errorf("notice kind %s: %d, want at least %d", k, kinds[k], scale)
				}
			}
		})
	}
}

// TestLinesParse checks every JSONL line parses except the bad ones the
// manifest announces, and that those are the comment and truncated kinds.
func TestLinesParse(t *testing.T) {
	dir := t.TempDir()
	m, err := Generate(dir, Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	bad := 0
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		switch {
		case strings.HasSuffix(p, ".jsonl"):
			n := 0
			readLines(t, p, func(line []byte) {
				n++
				if json.Valid(line) {
					return
				}
				bad++
				if !bytes.HasPrefix(line, []byte("//")) && !bytes.HasPrefix(line, []byte("{")) {
					t.Errorf("%s:%d: bad line of an unplanned kind: %.60q", p, n, line)
				}
			})
		case strings.HasSuffix(p, ".json"):
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if !json.Valid(b) {
				t.Errorf("%s: not valid JSON", p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if bad != m.BadLines {
		t.Errorf("bad lines: files hold %d, manifest says %d", bad, m.BadLines)
	}
}

func TestScreenshotsDecodeNearTarget(t *testing.T) {
	for _, target := range []int{4 << 10, 24 << 10, 200 << 10, BenchScreenshotBytes} {
		t.Run(fmt.Sprintf("%dKiB", target>>10), func(t *testing.T) {
			b, w, h, err := screenshot(rand.New(rand.NewPCG(1, 1)), target)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := png.DecodeConfig(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("PNG does not decode: %v", err)
			}
			if cfg.Width != w || cfg.Height != h {
				t.Errorf("size %dx%d, reported %dx%d", cfg.Width, cfg.Height, w, h)
			}
			if _, err := png.Decode(bytes.NewReader(b)); err != nil {
				t.Errorf("PNG pixels do not decode: %v", err)
			}
			if len(b) < target*7/10 || len(b) > target*13/10 {
				t.Errorf("PNG is %d bytes, want within 30%% of %d", len(b), target)
			}
		})
	}
}

func TestGeneratedFilesListed(t *testing.T) {
	dir := t.TempDir()
	m, err := Generate(dir, Options{Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	var files int
	var size int64
	var names []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			info, _ := d.Info()
			files++
			size += info.Size()
			names = append(names, p)
		}
		return nil
	})
	sort.Strings(names)
	if files != m.AllFiles || size != m.Bytes {
		t.Errorf("folder holds %d files, %d bytes; manifest says %d, %d", files, size, m.AllFiles, m.Bytes)
	}
}

func BenchmarkGenerate(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		m, err := Generate(filepath.Join(b.TempDir(), "out"), Options{Seed: int64(i)})
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(m.Bytes)
	}
}

// realClaudeProjects is the shared folder of real Claude Code logs, found
// relative to the repository (../shared from the repo root).
func realClaudeProjects(t testing.TB) string {
	dir := filepath.Join("..", "..", "..", "shared", "fixtures", "real", "claude", "projects")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("real fixtures not found at %s: %v", dir, err)
	}
	return dir
}

// lineIDs collects the ids a copy must renew, by the reader's own walk.
func lineIDs(t *testing.T, path string) map[string]bool {
	ids := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				s, ok := e.(string)
				if ok && len(s) >= 8 && (k == "uuid" || k == "parentUuid" || k == "leafUuid" || k == "sessionId" || k == "requestId" || k == "tool_use_id" ||
					k == "id" && (strings.HasPrefix(s, "msg_") || strings.HasPrefix(s, "toolu_"))) {
					ids[s] = true
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	readLines(t, path, func(line []byte) {
		var v any
		if json.Unmarshal(line, &v) == nil {
			walk(v)
		}
	})
	return ids
}

func TestBenchCorpus(t *testing.T) {
	real := realClaudeProjects(t)
	dir := filepath.Join(t.TempDir(), "bench")
	sources, err := listFiles(real)
	if err != nil {
		t.Fatal(err)
	}
	// The target asks for two rounds of copies whatever the size of the real
	// corpus: the sample corpus, one copy of every source, the round's
	// screenshot session (far smaller than the sources), and a second copy.
	var sourceBytes int64
	for _, rel := range sources {
		sourceBytes += mustSize(t, filepath.Join(real, rel))
	}
	opts := BenchOptions{ReplicateFrom: real, Seed: 11, ScreenshotBytes: 16 << 10, ShotsPerSession: 2}
	sample, err := GenerateBenchCorpus(filepath.Join(t.TempDir(), "sample"), BenchOptions{TargetBytes: 1, Seed: opts.Seed, ScreenshotBytes: opts.ScreenshotBytes})
	if err != nil {
		t.Fatal(err)
	}
	if sample.Replicated != 0 {
		t.Fatalf("a 1-byte target replicated %d rounds", sample.Replicated)
	}
	target := sample.Bytes + 2*sourceBytes
	opts.TargetBytes = target
	m, err := GenerateBenchCorpus(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if m.Bytes < target {
		t.Errorf("corpus is %d bytes, want at least %d", m.Bytes, target)
	}
	if m.Replicated != 2 {
		t.Fatalf("replicated %d rounds, want 2 for a target of the sample and two copies", m.Replicated)
	}

	t.Run("copies keep bytes and shape", func(t *testing.T) {
		for _, rel := range sources {
			src := filepath.Join(real, rel)
			cp := filepath.Join(dir, "claude", "projects", copyPath(rel, 0, roundSalt(11, 0)))
			a, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(cp)
			if err != nil {
				t.Fatalf("copy of %s: %v", rel, err)
			}
			if len(a) != len(b) || bytes.Count(a, []byte("\n")) != bytes.Count(b, []byte("\n")) {
				t.Errorf("%s: copy is %d bytes/%d lines, source %d/%d", rel, len(b), bytes.Count(b, []byte("\n")), len(a), bytes.Count(a, []byte("\n")))
			}
			if bytes.Equal(a, b) && strings.HasSuffix(rel, ".jsonl") && len(a) > 0 {
				t.Errorf("%s: copy is identical to the source", rel)
			}
		}
	})
	t.Run("ids unique across copies", func(t *testing.T) {
		for _, rel := range sources {
			if !strings.HasSuffix(rel, ".jsonl") {
				continue
			}
			seen := lineIDs(t, filepath.Join(real, rel))
			if len(seen) == 0 {
				if mustSize(t, filepath.Join(real, rel)) == 0 {
					continue // an empty transcript has nothing to renew
				}
				t.Fatalf("%s: reader found no ids", rel)
			}
			for round := 0; round < m.Replicated; round++ {
				ids := lineIDs(t, filepath.Join(dir, "claude", "projects", copyPath(rel, round, roundSalt(11, round))))
				if len(ids) != len(seen) && round == 0 {
					// The number of distinct ids is kept by a one-to-one renaming.
					t.Errorf("%s round %d: %d distinct ids, source has %d", rel, round, len(ids), len(seen))
				}
				for id := range ids {
					if seen[id] {
						t.Errorf("%s round %d: id %s also in the source or an earlier copy", rel, round, id)
						break
					}
				}
				for id := range ids {
					seen[id] = true
				}
			}
		}
	})
	t.Run("manifest matches files", func(t *testing.T) {
		per, _ := recount(t, dir)
		for _, h := range []string{HarnessClaude, HarnessCodex, HarnessGemini, HarnessSpillscope, HarnessOpenCode, HarnessCopilot, HarnessGoose} {
			if got, want := per[h], m.PerHarness[h]; !reflect.DeepEqual(got, want) {
				t.Errorf("%s: files say\n  %+v\nmanifest says\n  %+v", h, got, want)
			}
		}
	})
}

func mustSize(t testing.TB, p string) int64 {
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

func BenchmarkBenchCorpus(b *testing.B) {
	real := realClaudeProjects(b)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		m, err := GenerateBenchCorpus(filepath.Join(b.TempDir(), "bench"), BenchOptions{TargetBytes: 40 << 20, ReplicateFrom: real, Seed: int64(i)})
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(m.Bytes)
	}
}

func BenchmarkRewriteIDs(b *testing.B) {
	real := realClaudeProjects(b)
	data, err := os.ReadFile(filepath.Join(real, "-home-marco-projects-spotter", "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	lines := bytes.Split(data, []byte("\n"))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		for _, l := range lines {
			RewriteIDs(l, uint64(i))
		}
	}
}

func BenchmarkScreenshot(b *testing.B) {
	b.ReportAllocs()
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < b.N; i++ {
		png, _, _, err := screenshot(r, BenchScreenshotBytes)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(png)))
	}
}
