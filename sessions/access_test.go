package sessions

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"spillscope/sessions/copilot"
	"spillscope/sessions/goose"
	"spillscope/sessions/opencode"
)

// hostile is a session root written to be hostile: tool results whose text
// is a forged spill notice naming files the app must never read, beside one
// real spill file of the session's own.
type hostile struct {
	root, home, tmp, outside string
	env                      Env
	// secrets are the bytes of every file that must never come back.
	secrets []string
	// want maps each result's call id to the state its spill file must
	// have.
	want map[string]string
}

func persisted(path string) string {
	return "<persisted-output>\nOutput too large (12KB). Full output saved to: " + path + "\n\nPreview (first 2KB):\nabc\n...\n</persisted-output>"
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
}

func newHostile(t *testing.T) hostile {
	base := t.TempDir()
	h := hostile{root: filepath.Join(base, "root"), home: filepath.Join(base, "home"), tmp: filepath.Join(base, "tmp"),
		outside: filepath.Join(base, "outside"), want: map[string]string{}}
	h.env = Env{Getenv: func(k string) string {
		switch k {
		case "HOME":
			return h.home
		case "TMPDIR":
			return h.tmp
		}
		return ""
	}}
	secret := func(path, text string) {
		writeFile(t, path, text)
		h.secrets = append(h.secrets, text)
	}
	secret(filepath.Join(h.home, ".aws", "credentials"), "[default]\naws_secret_access_key=HOME-AWS-SECRET")
	secret(filepath.Join(h.outside, "secret.txt"), "OUTSIDE-SECRET")
	proj := filepath.Join(h.root, "-w")
	own := filepath.Join(proj, "s1", "tool-results")
	writeFile(t, filepath.Join(own, "toolu_ok.txt"), "LEGIT-SPILL")
	writeFile(t, filepath.Join(h.tmp, "claude-tool-results", "tmpok.txt"), "LEGIT-TMP-SPILL")
	// Files in the root that are not this session's spill files.
	secret(filepath.Join(proj, "s2", "tool-results", "toolu_other.txt"), "OTHER-SESSION-SECRET")
	secret(filepath.Join(own, "notes"), "WRONG-SHAPE-SECRET")
	secret(filepath.Join(proj, "s1", "config.txt"), "BESIDE-SPILLS-SECRET")
	symlink(t, filepath.Join(h.outside, "secret.txt"), filepath.Join(own, "link.txt"))
	symlink(t, filepath.Join(proj, "s2", "tool-results", "toolu_other.txt"), filepath.Join(own, "toolu_cross.txt"))
	symlink(t, h.outside, filepath.Join(proj, "s3", "tool-results"))
	symlink(t, filepath.Join(h.outside, "secret.txt"), filepath.Join(h.tmp, "claude-tool-results", "evil.txt"))
	if err := syscall.Mkfifo(filepath.Join(own, "fifo.txt"), 0o600); err != nil {
		t.Logf("no FIFO case: %v", err)
	}

	cases := []struct{ call, path, state string }{
		{"toolu_ok", filepath.Join(own, "toolu_ok.txt"), FileExists},
		{"toolu_tmp", filepath.Join(h.tmp, "claude-tool-results", "tmpok.txt"), FileExists},
		{"toolu_gone", filepath.Join(own, "toolu_gone.txt"), FileMissing},
		{"shadow", "/etc/shadow", FileOutside},
		{"environ", "/proc/self/environ", FileOutside},
		{"aws", filepath.Join(h.home, ".aws", "credentials"), FileOutside},
		{"dotdot", own + "/../../../outside/secret.txt", FileOutside},
		{"relative", "../../outside/secret.txt", FileOutside},
		{"other session", filepath.Join(proj, "s2", "tool-results", "toolu_other.txt"), FileOutside},
		{"wrong shape", filepath.Join(own, "notes"), FileOutside},
		{"beside the folder", filepath.Join(proj, "s1", "config.txt"), FileOutside},
		{"link out", filepath.Join(own, "link.txt"), FileOutside},
		{"link to other session", filepath.Join(own, "toolu_cross.txt"), FileOutside},
		{"linked folder", filepath.Join(proj, "s3", "tool-results", "secret.txt"), FileOutside},
		{"tmp link out", filepath.Join(h.tmp, "claude-tool-results", "evil.txt"), FileOutside},
	}
	if _, err := os.Stat(filepath.Join(own, "fifo.txt")); err == nil {
		cases = append(cases, struct{ call, path, state string }{"fifo", filepath.Join(own, "fifo.txt"), FileUnreadable})
	}
	var lines strings.Builder
	for _, c := range cases {
		lines.WriteString(cResult("s1", c.call, persisted(c.path)))
		h.want[c.call] = c.state
	}
	writeFile(t, filepath.Join(proj, "s1.jsonl"), lines.String())
	// Session s3's own folder is a link out of the root.
	writeFile(t, filepath.Join(proj, "s3.jsonl"), cResult("s3", "s3 linked folder", persisted(filepath.Join(proj, "s3", "tool-results", "secret.txt"))))
	h.want["s3 linked folder"] = FileOutside
	return h
}

func (h hostile) open(t *testing.T) *DB {
	d := openTemp(t)
	d.SetEnv(h.env)
	return d
}

// TestFileRuleHostile: forged notices never make the index or a read open
// anything but the session's own spill files, and the state the indexer
// stored is the state a read finds.
func TestFileRuleHostile(t *testing.T) {
	h := newHostile(t)
	d := h.open(t)
	index(t, d, h.root)
	rows, err := d.Results(t.Context(), ResultFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(h.want) {
		t.Fatalf("%d results, want %d", len(rows), len(h.want))
	}
	for _, r := range rows {
		t.Run(r.CallID, func(t *testing.T) {
			want := h.want[r.CallID]
			if r.SpillState != want {
				t.Errorf("indexed state %q (%s), want %q", r.SpillState, r.SpillResolved, want)
			}
			sf, err := d.OpenSpill(t.Context(), r.ID, []string{h.root})
			if err != nil {
				t.Fatal(err)
			}
			if sf.State != r.SpillState {
				t.Errorf("read state %q, indexed %q: the header and the pane would disagree", sf.State, r.SpillState)
			}
			if (sf.File != nil) != (want == FileExists) {
				t.Fatalf("file opened: %v, want %v", sf.File != nil, want == FileExists)
			}
			if sf.File == nil {
				if r.SpillExists || r.SpillResolved != "" {
					t.Errorf("a file not opened is recorded as present: %+v", r)
				}
				return
			}
			defer sf.File.Close()
			b, err := io.ReadAll(sf.File)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range h.secrets {
				if strings.Contains(string(b), s) {
					t.Errorf("read %q", s)
				}
			}
			if !strings.HasPrefix(string(b), "LEGIT-") {
				t.Errorf("read %q, want the session's own spill file", b)
			}
		})
	}
}

// TestFileRuleSwappedAfterCheck: a spill file swapped for a link to a
// secret after it was judged is refused when opened, not followed.
func TestFileRuleSwappedAfterCheck(t *testing.T) {
	h := newHostile(t)
	ref := SessionRef{Harness: HarnessClaude, Path: filepath.Join(h.root, "-w", "s1.jsonl"), Root: h.root, SessionID: "s1", Roots: []string{h.root}, Env: h.env}
	rule := RuleFor(ref, NoticeClaudePersisted)
	p := filepath.Join(h.root, "-w", "s1", "tool-results", "toolu_ok.txt")
	if c := rule.Check(p); c.State != FileExists {
		t.Fatalf("before the swap: %+v", c)
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	symlink(t, filepath.Join(h.outside, "secret.txt"), p)
	f, c := rule.Open(p)
	if f != nil {
		f.Close()
		t.Fatalf("opened the swapped link: %+v", c)
	}
	if c.State != FileOutside {
		t.Errorf("state %q, want outside", c.State)
	}
	// The descriptor check: opening the real path the first check saw,
	// now a link, must fail rather than follow it.
	if f, err := openNoFollow(p); err == nil {
		f.Close()
		t.Error("openNoFollow followed a link")
	}
}

// TestFileRuleFolderSwappedAfterCheck: a folder on the way swapped for a
// link between the check and the open leads the open elsewhere; the
// descriptor's own path gives it away (Linux).
func TestFileRuleFolderSwappedAfterCheck(t *testing.T) {
	if _, ok := fdPath(os.Stdin); !ok {
		t.Skip("this OS does not say which path a descriptor opened")
	}
	h := newHostile(t)
	own := filepath.Join(h.root, "-w", "s1", "tool-results")
	writeFile(t, filepath.Join(h.outside, "swap", "toolu_ok.txt"), "SWAPPED-SECRET")
	ref := SessionRef{Harness: HarnessClaude, Path: filepath.Join(h.root, "-w", "s1.jsonl"), Root: h.root, SessionID: "s1", Roots: []string{h.root}, Env: h.env}
	testHookResolved = func(string) {
		testHookResolved = nil
		if err := os.Rename(own, own+".moved"); err != nil {
			t.Error(err)
		}
		symlink(t, filepath.Join(h.outside, "swap"), own)
	}
	defer func() { testHookResolved = nil }()
	f, c := RuleFor(ref, NoticeClaudePersisted).Open(filepath.Join(own, "toolu_ok.txt"))
	if f != nil {
		b, _ := io.ReadAll(f)
		f.Close()
		t.Fatalf("opened %q through a swapped folder: %+v", b, c)
	}
	if c.State != FileOutside {
		t.Errorf("state %q, want outside", c.State)
	}
}

// TestFileRuleOtherHarnesses: each harness's locations, and the pending
// conventions of harnesses not read yet, with their file-name shapes.
func TestFileRuleOtherHarnesses(t *testing.T) {
	base := t.TempDir()
	root, tmp, data := filepath.Join(base, "root"), filepath.Join(base, "tmp"), filepath.Join(base, "xdg")
	dshHome := filepath.Join(base, "dsh")
	env := Env{Getenv: func(k string) string {
		return map[string]string{"HOME": filepath.Join(base, "home"), "TMPDIR": tmp, "XDG_DATA_HOME": data, "DSH_HOME": dshHome}[k]
	}}
	gem := filepath.Join(root, "gemini", "tmp", "abc")
	files := map[string]string{
		"gemini":         filepath.Join(gem, "tool-outputs", "session-g1", "shell_c1.txt"),
		"gemini flat":    filepath.Join(gem, "tool-outputs", "shell_c2.txt"),
		"gemini other":   filepath.Join(gem, "tool-outputs", "session-g2", "shell_c3.txt"),
		"gemini legacy":  filepath.Join(gem, "c4.output"),
		"gemini chat":    filepath.Join(gem, "chats", "session-9.json"),
		"goose":          filepath.Join(tmp, "goose_mcp_responses", "mcp_response_20260101_120000.123456.txt"),
		"goose shape":    filepath.Join(tmp, "goose_mcp_responses", "other.txt"),
		"goose relayed":  filepath.Join(root, "goose", "goose_mcp_responses", "mcp_response_20260101_120000.000001.txt"),
		"opencode":       filepath.Join(data, "opencode", "tool-output", "tool_0195a1b2c3d4AbCdEfGhIjKlMn"),
		"opencode short": filepath.Join(data, "opencode", "tool-output", "tool_01ABCdef"),
		"goose current":  filepath.Join(data, "goose", "mcp_responses", "mcp_response_20260101_120000.123456_aB3x.txt"),
		"goose in tmp":   filepath.Join(tmp, "mcp_responses", "mcp_response_20260101_120000.123456_aB3x.txt"),
		"copilot":        filepath.Join(tmp, "1776964088893-copilot-tool-output-a1b2c3.txt"),
		"copilot copied": filepath.Join(root, "copilot", "1776964088893-copilot-tool-output-d4e5.txt"),
		"copilot shape":  filepath.Join(tmp, "copilot-tool-output-a1b2c3.txt"),
		"opencode shape": filepath.Join(data, "opencode", "tool-output", "tool_x.txt"),
		"dsh":            filepath.Join(tmp, "dsh-spill-a1B2c3", DshSessionFolder("d1"), "0123456789ab-bash.txt"),
		"dsh other":      filepath.Join(tmp, "dsh-spill-a1B2c3", DshSessionFolder("d2"), "0123456789ab-bash.txt"),
		"dsh image":      filepath.Join(dshHome, "attachments", "v1", "objects", "ab", strings.Repeat("ab", 32)),
		"record":         filepath.Join(root, "spill", "0123456789abcdef.txt"),
		"record other":   filepath.Join(root, "spill", "fedcba9876543210.txt"),
		"record image":   filepath.Join(root, "spill", "attachments", "a.png"),
	}
	for _, p := range files {
		writeFile(t, p, "x")
	}
	gemRef := SessionRef{Harness: HarnessGemini, Path: filepath.Join(gem, "chats", "session-1.json"), Root: root, SessionID: "g1", Roots: []string{root}, Env: env}
	recRef := SessionRef{Harness: HarnessSpillscope, Path: filepath.Join(root, "spill", "0123456789abcdef"+RetainedSuffix), Root: root, Roots: []string{root}, Env: env}
	claudeRef := SessionRef{Harness: HarnessClaude, Path: filepath.Join(root, "p", "s.jsonl"), Root: root, SessionID: "s", Roots: []string{root}, Env: env}
	dshRef := SessionRef{Harness: HarnessDsh, SessionID: "d1", Env: env}
	gooseRef := SessionRef{Harness: HarnessGoose, Path: filepath.Join(root, "g", "sessions", "sessions.db"), Root: root, SessionID: "20260101_1", Roots: []string{root}, Env: env}
	copilotRef := SessionRef{Harness: HarnessCopilot, Path: filepath.Join(root, "session-state", "u", "events.jsonl"), Root: root, SessionID: "u", Roots: []string{root}, Env: env}
	tests := []struct {
		name  string
		rule  FileRule
		file  string
		state string
	}{
		{"gemini session folder", RuleFor(gemRef, NoticeGemini), "gemini", FileExists},
		{"gemini without session folder", RuleFor(gemRef, NoticeGemini), "gemini flat", FileExists},
		{"gemini other session", RuleFor(gemRef, NoticeGemini), "gemini other", FileOutside},
		{"gemini legacy output", RuleFor(gemRef, NoticeGeminiLegacy), "gemini legacy", FileExists},
		{"gemini chat is no spill file", RuleFor(gemRef, NoticeGemini), "gemini chat", FileOutside},
		{"goose relayed in claude", RuleFor(claudeRef, goose.NoticeLargeResponse), "goose", FileExists},
		{"goose shape", RuleFor(claudeRef, goose.NoticeLargeResponse), "goose shape", FileOutside},
		{"goose copied under a root", RuleFor(claudeRef, goose.NoticeLargeResponse), "goose relayed", FileExists},
		{"goose file for another kind", RuleFor(claudeRef, NoticeClaudePersisted), "goose", FileOutside},
		{"goose in its data folder", RuleFor(gooseRef, ""), "goose current", FileExists},
		{"goose current name in tmp", RuleFor(gooseRef, ""), "goose in tmp", FileOutside},
		{"goose older spill of its own", RuleFor(gooseRef, ""), "goose", FileExists},
		{"opencode", RuleFor(claudeRef, opencode.NoticeTruncate), "opencode", FileExists},
		{"opencode shell", RuleFor(claudeRef, opencode.NoticeShell), "opencode", FileExists},
		{"opencode shape", RuleFor(claudeRef, opencode.NoticeTruncate), "opencode shape", FileOutside},
		{"opencode id shape", RuleFor(claudeRef, opencode.NoticeTruncate), "opencode short", FileOutside},
		{"copilot temp spill", RuleFor(copilotRef, ""), "copilot", FileExists},
		{"copilot copied under a root", RuleFor(copilotRef, ""), "copilot copied", FileExists},
		{"copilot shape", RuleFor(copilotRef, ""), "copilot shape", FileOutside},
		{"copilot relayed in claude", RuleFor(claudeRef, copilot.NoticeLargeOutput), "copilot", FileExists},
		{"copilot file for claude's own notice", RuleFor(claudeRef, NoticeClaudePersisted), "copilot", FileOutside},
		{"dsh own session", RuleFor(dshRef, ""), "dsh", FileExists},
		{"dsh other session", RuleFor(dshRef, ""), "dsh other", FileOutside},
		{"dsh attachment", RuleFor(dshRef, ""), "dsh image", FileExists},
		{"record's own file", RuleFor(recRef, NoticeSpillscope), "record", FileExists},
		{"another record's file", RuleFor(recRef, NoticeSpillscope), "record other", FileOutside},
		{"record image", RuleFor(recRef, ""), "record image", FileExists},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.rule.Check(files[tt.file]); got.State != tt.state {
				t.Errorf("%s: %+v, want %s", files[tt.file], got, tt.state)
			}
		})
	}
}

// TestImagePathsFollowTheRule: a retained record naming an image outside
// its folder stores nothing from it, and reading the result back drops the
// path, so nothing downstream (the retention core's header read, the
// window) ever opens it.
func TestImagePathsFollowTheRule(t *testing.T) {
	h := newHostile(t)
	dir := filepath.Join(h.root, "spill")
	rec := map[string]any{"createdAt": "2026-01-01T00:00:00Z", "toolName": "shot",
		"input": map[string]any{"content": []any{
			map[string]any{"type": "image", "mimeType": "image/png", "path": filepath.Join(h.outside, "secret.txt")},
			map[string]any{"type": "image", "mimeType": "image/png", "path": "../../outside/secret.txt"},
			map[string]any{"type": "image", "mimeType": "image/png", "path": "/proc/self/environ"},
		}}}
	writeFile(t, filepath.Join(dir, "0123456789abcdef"+RetainedSuffix), mustJSON(rec))
	d := h.open(t)
	s := index(t, d, h.root)
	if s.ToolResultImages != 0 {
		t.Errorf("%d images stored from paths outside the record's folder", s.ToolResultImages)
	}
	entries, _ := os.ReadDir(d.AttachmentDir())
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(d.AttachmentDir(), e.Name()))
		for _, sec := range h.secrets {
			if strings.Contains(string(b), sec) {
				t.Errorf("attachment %s holds %q", e.Name(), sec)
			}
		}
	}
	rows, err := d.Results(t.Context(), ResultFilter{SessionID: "0123456789abcdef"})
	if err != nil || len(rows) != 1 {
		t.Fatalf("%v %v", rows, err)
	}
	_, res, err := d.LoadResult(t.Context(), rows[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range res.Content {
		if b.Path != "" {
			t.Errorf("block %d keeps the path %s", i, b.Path)
		}
	}
}

func TestNormalizeRoot(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	env := Env{Getenv: func(k string) string { return map[string]string{"HOME": "/home/u"}[k] }}
	tests := []struct{ in, want, err string }{
		{"/a/b/", "/a/b", ""},
		{"/a//b/./c/../d", "/a/b/d", ""},
		{"~", "/home/u", ""},
		{"~/", "/home/u", ""},
		{"~/x/", "/home/u/x", ""},
		{" ~/x ", "/home/u/x", ""},
		{"~other/x", filepath.Join(wd, "~other/x"), ""},
		{"rel/dir/", filepath.Join(wd, "rel", "dir"), ""},
		{".", wd, ""},
		{"", "", "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := NormalizeRoot(tt.in, env)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("got %q, %v; want an error naming %q", got, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// A location pattern is compiled once and shared, and the cache of them
// stays bounded.
func TestLocationPatternCache(t *testing.T) {
	a, b := locationPattern(`^x/[0-9]+\.txt$`), locationPattern(`^x/[0-9]+\.txt$`)
	if a != b || !a.MatchString("x/12.txt") || a.MatchString("x/y.txt") {
		t.Fatalf("pattern %v %v", a, b)
	}
	for i := range locationPatternsMax + 10 {
		locationPattern(fmt.Sprintf("^p%d$", i))
	}
	locationPatterns.Lock()
	n := len(locationPatterns.m)
	locationPatterns.Unlock()
	if n > locationPatternsMax {
		t.Fatalf("%d patterns cached, at most %d", n, locationPatternsMax)
	}
}
