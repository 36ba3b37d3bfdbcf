package samplegen

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"spillscope/sessions/dsh"
)

// dshNoticeRe is dsh's spill notice of both eras with the local backend's
// hint (FORMATS.md section 5), closing the last text block.
var dshNoticeRe = regexp.MustCompile(`\(Omitted \d+ bytes\.(?: Omitted \d+ images\.)? Full formatted result stored at: ([^\n]+?)\. Use read with offset/limit, or grep this path to search within it\.\)$`)

// dshLines returns a log's lines, decoding every zstd frame in turn.
func dshLines(t *testing.T, path string) [][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".zstd") {
		dec, err := zstd.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		defer dec.Close()
		r = dec
	}
	var out [][]byte
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		out = append(out, append([]byte(nil), sc.Bytes()...))
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return out
}

// recountDsh counts a dsh log by FORMATS.md's rules alone: one result per
// call id, images whose attachment object exists, notices whose file
// exists in the session's own spill folder, usage from the messages.
func recountDsh(t *testing.T, path string, c *Counts, usage map[string]Usage, rel string) {
	lines := dshLines(t, path)
	var head map[string]any
	if err := json.Unmarshal(lines[0], &head); err != nil || head["type"] != "session" {
		t.Fatalf("%s: header %s", path, lines[0])
	}
	c.Files++
	if head["origin"] == "subagent" {
		c.Subagents++
	} else {
		c.Sessions++
	}
	sum := sha256.Sum256([]byte(asString(head["id"])))
	own := "/session-" + hex.EncodeToString(sum[:])[:12] + "/"
	homeAt := strings.Index(path, "/sessions/")
	home := path[:homeAt]
	seen := map[string]bool{}
	var u Usage
	for _, l := range lines[1:] {
		var ev map[string]any
		if err := json.Unmarshal(l, &ev); err != nil {
			c.BadLines++
			continue
		}
		d := asMap(ev["data"])
		switch ev["type"] {
		case "assistant/message":
			m := asMap(d["usage"])
			u.add(Usage{InputTokens: asInt(m["inputTokens"]), OutputTokens: asInt(m["outputTokens"]), CacheReadInputTokens: asInt(m["cacheReadTokens"]),
				CacheCreationInputTokens: asInt(m["cacheWriteTokens"]), ReasoningOutputTokens: asInt(m["reasoningTokens"])})
		case "tool/result":
			msg := asMap(d["message"])
			call := asString(asMap(msg["source"])["callId"])
			blocks, _ := msg["content"].([]any)
			if msg["role"] != "tool" {
				blocks, _ = asMap(blocks[0])["content"].([]any)
			}
			if seen[call] {
				continue
			}
			seen[call] = true
			c.ToolResults++
			tokens := false
			for _, b := range blocks {
				bm := asMap(b)
				if bm["type"] != "image" {
					continue
				}
				tokens = true
				id := strings.TrimPrefix(asString(asMap(bm["attachment"])["attachmentId"]), "sha256:")
				if _, err := os.Stat(filepath.Join(home, "attachments", "v1", "objects", id[:2], id)); err == nil {
					c.ToolResultImages++
				}
			}
			last := asMap(blocks[len(blocks)-1])
			text := asString(last["text"])
			m := dshNoticeRe.FindStringSubmatch(text)
			if m == nil {
				continue
			}
			if strings.Contains(text, "\n\n[...]\n\n") || strings.Contains(m[0], " images.") {
				tokens = true
			}
			kind := NoticeDshBytes
			if tokens {
				kind = NoticeDshTokens
			}
			_, err := os.Stat(m[1])
			c.addNotice(kind, err == nil && strings.Contains(m[1], own))
		}
	}
	c.Usage.add(u)
	usage[rel] = u
}

// TestDshLogReadsBack: the sample's dsh logs read with the dsh reader
// without a diagnostic, zstd ones frame by frame, and every spilled
// result's notice names a file in its own session's folder, 0600 in 0700.
func TestDshLogReadsBack(t *testing.T) {
	dir := t.TempDir()
	if _, err := Generate(dir, Options{Seed: 3}); err != nil {
		t.Fatal(err)
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "dsh", "home", "sessions", "*", "*", "session*"))
	if len(logs) != 3 {
		t.Fatalf("logs %v", logs)
	}
	eras := map[string]int{}
	for _, p := range logs {
		lg, err := dsh.ReadAll(p, dsh.Options{Home: filepath.Join(dir, "dsh", "home")})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range lg.Diagnostics {
			t.Errorf("%s: %s", p, d)
		}
		if lg.Zstd != strings.HasSuffix(p, ".zstd") || lg.Zstd && lg.Stats.Frames < 2 {
			t.Errorf("%s: zstd %v in %d frames", p, lg.Zstd, lg.Stats.Frames)
		}
		for _, r := range lg.Results {
			if r.Notice == nil {
				continue
			}
			eras[r.Notice.Policy]++
			st, err := os.Stat(r.Notice.Path)
			if r.Notice.Spill.Owner != dsh.SpillOwnSession {
				if err == nil {
					t.Errorf("%s: a notice into another session's folder names a file", r.CallID)
				}
				continue
			}
			if err != nil {
				continue // the swept one
			}
			dirSt, _ := os.Stat(filepath.Dir(r.Notice.Path))
			if st.Mode().Perm() != 0o600 || dirSt.Mode().Perm() != 0o700 || !r.Notice.Spill.DshLayout || !r.Notice.Spill.ToolMatches {
				t.Errorf("%s: %s mode %v in %v, link %+v", r.CallID, r.Notice.Path, st.Mode(), dirSt.Mode(), r.Notice.Spill)
			}
		}
	}
	if eras[dsh.PolicyBytes] < 3 || eras[dsh.PolicyTokens] < 3 {
		t.Errorf("notices by era %v", eras)
	}
}
