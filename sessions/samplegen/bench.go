package samplegen

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// BenchOptions controls GenerateBenchCorpus.
type BenchOptions struct {
	// TargetBytes is the corpus size to reach (the last round may pass it).
	TargetBytes int64
	// ReplicateFrom is a folder of Claude Code project folders (for example
	// ../shared/fixtures/real/claude/projects) whose logs are copied with new
	// ids on every round. Empty: generated sessions only.
	ReplicateFrom string
	// Seed makes the corpus reproducible.
	Seed int64
	// ScreenshotBytes is the size of each generated screenshot; 0 means
	// BenchScreenshotBytes.
	ScreenshotBytes int
	// ShotsPerSession is how many screenshots each generated session holds;
	// 0 means 3.
	ShotsPerSession int
	// Progress, when set, is called after each round with the bytes written
	// so far and the target.
	Progress func(written, target int64)
}

// GenerateBenchCorpus builds a benchmark corpus under dir (which must be
// empty): the sample corpus once, then rounds of one copy of every log under
// opts.ReplicateFrom, each with new session, message, request, tool-use ids
// and uuids so nothing dedupes them away, and one generated Claude Code session
// of screenshots, until opts.TargetBytes is reached. Files are streamed line
// by line, so memory stays bounded by the longest line.
func GenerateBenchCorpus(dir string, opts BenchOptions) (Manifest, error) {
	if opts.TargetBytes <= 0 {
		return Manifest{}, fmt.Errorf("%w: target bytes %d must be positive", ErrOptions, opts.TargetBytes)
	}
	if opts.ScreenshotBytes < 0 || opts.ShotsPerSession < 0 {
		return Manifest{}, fmt.Errorf("%w: screenshot bytes and shots per session must not be negative", ErrOptions)
	}
	if opts.ScreenshotBytes == 0 {
		opts.ScreenshotBytes = BenchScreenshotBytes
	}
	if opts.ShotsPerSession == 0 {
		opts.ShotsPerSession = 3
	}
	var sources []string
	if opts.ReplicateFrom != "" {
		var err error
		if sources, err = listFiles(opts.ReplicateFrom); err != nil {
			return Manifest{}, err
		}
	}
	m, err := Generate(dir, Options{Seed: opts.Seed, ScreenshotBytes: opts.ScreenshotBytes})
	if err != nil {
		return m, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return m, fmt.Errorf("samplegen: %w", err)
	}
	g := &gen{root: abs, opts: Options{Seed: opts.Seed, ScreenshotBytes: opts.ScreenshotBytes}, m: m}
	for round := 0; g.m.Bytes < opts.TargetBytes; round++ {
		if len(sources) > 0 {
			salt := roundSalt(opts.Seed, round)
			for _, src := range sources {
				if err := g.replicate(opts.ReplicateFrom, src, round, salt); err != nil {
					return g.m, err
				}
			}
			g.m.Replicated++
			if opts.Progress != nil {
				opts.Progress(g.m.Bytes, opts.TargetBytes)
			}
		}
		if g.m.Bytes >= opts.TargetBytes {
			break
		}
		if err := g.writeClaudeScreens(round, opts.ShotsPerSession); err != nil {
			return g.m, err
		}
		if opts.Progress != nil {
			opts.Progress(g.m.Bytes, opts.TargetBytes)
		}
	}
	g.m.finish()
	return g.m, nil
}

// listFiles lists the regular files under root, sorted, so rounds are
// reproducible.
func listFiles(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("samplegen: list %s: %w", root, err)
	}
	sort.Strings(out)
	return out, nil
}

func roundSalt(seed int64, round int) uint64 {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], uint64(seed))
	binary.LittleEndian.PutUint64(b[8:], uint64(round))
	s := sha256.Sum256(b[:])
	return binary.LittleEndian.Uint64(s[:8])
}

var uuidRe = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// copyPath names a source file's copy: path components that are ids (a
// session folder, a <sessionId>.jsonl) get the copy's ids, other file names
// get a round suffix.
func copyPath(rel string, round int, salt uint64) string {
	parts := strings.Split(filepath.ToSlash(rel), "/")
	for i, p := range parts {
		ext := filepath.Ext(p)
		stem := strings.TrimSuffix(p, ext)
		switch {
		case uuidRe.MatchString(stem):
			parts[i] = string(mapID(salt, stem)) + ext
		case i == len(parts)-1 && !strings.HasPrefix(stem, "agent-"):
			parts[i] = fmt.Sprintf("%s-r%d%s", stem, round, ext)
		}
	}
	return filepath.Join(parts...)
}

// replicate copies one source file into the corpus with new ids, counting
// what it holds as the Claude Code reader would.
func (g *gen) replicate(root, rel string, round int, salt uint64) error {
	dst := filepath.Join(g.root, "claude", "projects", copyPath(rel, round, salt))
	in, err := os.Open(filepath.Join(root, rel))
	if err != nil {
		return fmt.Errorf("samplegen: %w", err)
	}
	defer in.Close()
	if !strings.HasSuffix(rel, ".jsonl") {
		lf, err := g.createLines(dst)
		if err != nil {
			return err
		}
		if _, err := io.Copy(writerFunc(lf.raw), in); err != nil {
			lf.close()
			return fmt.Errorf("samplegen: copy %s: %w", rel, err)
		}
		return lf.close()
	}
	lf, err := g.createLines(dst)
	if err != nil {
		return err
	}
	var c Counts
	subagent := strings.Contains(filepath.ToSlash(rel), "/subagents/")
	if subagent {
		c.Subagents++
	} else {
		c.Sessions++
	}
	c.Files++
	cnt := claudeCounter{c: &c, usage: map[string]Usage{}}
	br := bufio.NewReaderSize(in, 1<<20)
	for {
		line, rerr := br.ReadBytes('\n')
		if len(line) > 0 {
			body := bytes.TrimSuffix(line, []byte("\n"))
			out, v, ok := rewriteLine(body, salt)
			if ok {
				cnt.count(v, dst)
				if cnt.sid == "" {
					if s, _ := v["sessionId"].(string); s != "" {
						cnt.sid = string(mapID(salt, s))
					}
				}
			} else if len(bytes.TrimSpace(body)) > 0 {
				c.BadLines++
			}
			lf.raw(out)
			if bytes.HasSuffix(line, []byte("\n")) {
				lf.raw([]byte("\n"))
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			lf.close()
			return fmt.Errorf("samplegen: read %s: %w", rel, rerr)
		}
	}
	if err := lf.close(); err != nil {
		return err
	}
	u := cnt.total()
	c.Usage = u
	g.m.SessionUsage = append(g.m.SessionUsage, SessionUsage{Harness: HarnessClaude, SessionID: cnt.sid, Path: g.rel(dst),
		Subagent: subagent, Model: cnt.model, Usage: u})
	g.m.addHarness(HarnessClaude, c)
	return nil
}

type writerFunc func([]byte)

func (f writerFunc) Write(b []byte) (int, error) { f(b); return len(b), nil }

// claudeCounter counts one replicated transcript by the rules of Counts.
type claudeCounter struct {
	c     *Counts
	usage map[string]Usage
	order []string
	sid   string
	model string
}

var claudeLineTypes = map[string]bool{"user": true, "assistant": true, "system": true, "summary": true, "progress": true,
	"file-history-snapshot": true, "queue-operation": true, "attachment": true, "permission-mode": true, "custom-title": true,
	"ai-title": true, "agent-name": true, "last-prompt": true, "pr-link": true, "agent-setting": true, "bridge-session": true,
	"worktree-state": true}

var persistedRe = regexp.MustCompile(`<persisted-output>[\s\S]*?(?:Full output saved to|Tool result saved to):[ \t]*([^\n]+?)[ \t]*(?:\n|</persisted-output>|$)`)

func (cc *claudeCounter) count(v map[string]any, dst string) {
	typ, _ := v["type"].(string)
	if !claudeLineTypes[typ] {
		cc.c.UnknownLines++
		return
	}
	msg, _ := v["message"].(map[string]any)
	switch typ {
	case "assistant":
		id, _ := msg["id"].(string)
		u, _ := msg["usage"].(map[string]any)
		if id == "" || u == nil {
			return
		}
		if m, _ := msg["model"].(string); m != "" {
			cc.model = m
		}
		if _, seen := cc.usage[id]; !seen {
			cc.order = append(cc.order, id)
		}
		num := func(k string) int64 { f, _ := u[k].(float64); return int64(f) }
		cc.usage[id] = Usage{InputTokens: num("input_tokens"), OutputTokens: num("output_tokens"),
			CacheCreationInputTokens: num("cache_creation_input_tokens"), CacheReadInputTokens: num("cache_read_input_tokens")}
	case "user":
		blocks, _ := msg["content"].([]any)
		for _, b := range blocks {
			bm, _ := b.(map[string]any)
			if t, _ := bm["type"].(string); t != "tool_result" {
				continue
			}
			cc.c.ToolResults++
			var text strings.Builder
			switch content := bm["content"].(type) {
			case string:
				text.WriteString(content)
			case []any:
				for _, e := range content {
					em, _ := e.(map[string]any)
					switch em["type"] {
					case "text":
						s, _ := em["text"].(string)
						text.WriteString(s)
					case "image":
						src, _ := em["source"].(map[string]any)
						data, _ := src["data"].(string)
						if _, err := base64.StdEncoding.DecodeString(data); err == nil && data != "" {
							cc.c.ToolResultImages++
						} else {
							cc.c.InvalidImages++
						}
					}
				}
			}
			if m := persistedRe.FindStringSubmatch(text.String()); m != nil {
				_, err := os.Stat(m[1])
				cc.c.addNotice(NoticeClaude, err == nil)
			}
		}
	}
}

func (cc *claudeCounter) total() Usage {
	var u Usage
	for _, id := range cc.order {
		u.add(cc.usage[id])
	}
	return u
}

// idKeys are the members whose string values are ids to renew in a copy.
var idKeys = map[string]bool{"uuid": true, "parentUuid": true, "logicalParentUuid": true, "sessionId": true, "leafUuid": true,
	"requestId": true, "messageId": true, "sourceToolAssistantUUID": true, "tool_use_id": true, "toolUseID": true,
	"parentToolUseID": true}

// idPrefixes mark an "id" member as an id to renew.
var idPrefixes = []string{"msg_", "toolu_", "req_"}

// RewriteIDs returns line with every session id, uuid, message id, request
// id and tool-use id replaced, wherever it occurs in the line, by the id a
// copy salted with salt gets (the same old id always maps to the same new
// one, so parent links and spill paths stay consistent within a copy). Other
// bytes are kept. A line that is not a JSON object comes back unchanged.
func RewriteIDs(line []byte, salt uint64) []byte {
	out, _, _ := rewriteLine(line, salt)
	return out
}

// rewriteLine is RewriteIDs that also returns the decoded line.
func rewriteLine(line []byte, salt uint64) ([]byte, map[string]any, bool) {
	var v map[string]any
	if err := json.Unmarshal(line, &v); err != nil || v == nil {
		return line, nil, false
	}
	ids := map[string]bool{}
	collectIDs(v, ids)
	if len(ids) == 0 {
		return line, v, true
	}
	// Longest first, so an id that contains another is replaced whole.
	list := make([]string, 0, len(ids))
	for id := range ids {
		list = append(list, id)
	}
	sort.Slice(list, func(i, j int) bool {
		if len(list[i]) != len(list[j]) {
			return len(list[i]) > len(list[j])
		}
		return list[i] < list[j]
	})
	out := line
	for _, id := range list {
		out = bytes.ReplaceAll(out, []byte(id), mapID(salt, id))
	}
	// The ids are plain ASCII words of the same length as their
	// replacements, so the structure cannot change; a line crafted so that
	// an id also spells part of a number or an escape would, and keeps its
	// old ids rather than becoming invalid.
	if !json.Valid(out) {
		return line, v, true
	}
	return out, v, true
}

func collectIDs(v any, ids map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok {
				if idKeys[k] || k == "id" && hasIDPrefix(s) || k == "agentId" && len(s) >= 8 {
					if plainID(s) {
						ids[s] = true
					}
				}
				continue
			}
			collectIDs(e, ids)
		}
	case []any:
		for _, e := range x {
			collectIDs(e, ids)
		}
	}
}

func hasIDPrefix(s string) bool {
	for _, p := range idPrefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// plainID accepts the ids worth renewing: at least 8 characters of
// letters, digits, '-' and '_'. Anything else (short values, text) stays.
func plainID(s string) bool {
	if len(s) < 8 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// mapID derives a copy's id from an old one: the prefix up to the last '_'
// and every '-' stay; other characters are redrawn from the same class
// (lowercase hex stays lowercase hex), so the new id has the old one's shape.
func mapID(salt uint64, old string) []byte {
	var seed [8]byte
	binary.LittleEndian.PutUint64(seed[:], salt)
	h := sha256.New()
	h.Write(seed[:])
	h.Write([]byte(old))
	stream := h.Sum(nil)
	out := []byte(old)
	start := strings.LastIndexByte(old, '_') + 1
	hexOnly := true
	for i := start; i < len(old); i++ {
		c := old[i]
		if c != '-' && !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			hexOnly = false
			break
		}
	}
	k := 0
	for i := start; i < len(out); i++ {
		if out[i] == '-' {
			continue
		}
		if k == len(stream) {
			next := sha256.Sum256(stream)
			stream, k = next[:], 0
		}
		r := stream[k]
		k++
		if hexOnly {
			out[i] = hexLow[r&0xf]
		} else {
			out[i] = base58[int(r)%len(base58)]
		}
	}
	return out
}

// writeClaudeScreens writes a browser-testing session whose tool results
// are screenshots (the benchmark corpus's image-heavy part).
func (g *gen) writeClaudeScreens(round, shots int) error {
	r := g.rng(6, round)
	var c Counts
	c.Sessions = 1
	cwd := "/home/dev/work/storefront-e2e"
	projDir := filepath.Join(g.root, "claude", "projects", encodeCwd(cwd))
	sid := newUUID(r)
	ct, err := g.newClaude(r, filepath.Join(projDir, sid+".jsonl"), sid, cwd, &c)
	if err != nil {
		return err
	}
	ct.t = baseTime.Add(time.Duration(round) * time.Hour)
	ct.prompt("Walk through checkout on the staging site and screenshot every step.")
	for i := 0; i < shots; i++ {
		png, _, _, err := screenshot(r, g.opts.ScreenshotBytes)
		if err != nil {
			ct.lf.close()
			return err
		}
		tid := newToolUse(r)
		a := ct.respond(textBlock(fmt.Sprintf("Step %d: taking a screenshot.", i+1)),
			toolUse(tid, "mcp__playwright__browser_take_screenshot", o("type", "png", "filename", fmt.Sprintf("step-%d.png", i+1))))
		blocks := []any{textBlock(fmt.Sprintf("### Result\n- [Screenshot of viewport](.playwright-mcp/step-%d.png)", i+1)),
			claudeImage(base64.StdEncoding.EncodeToString(png))}
		ct.toolResult(tid, a, blocks, false, blocks)
		c.ToolResultImages++
	}
	ct.respond(textBlock("Checkout works end to end; the coupon field overlaps the total on narrow screens."))
	if err := ct.finish(false); err != nil {
		return err
	}
	g.m.addHarness(HarnessClaude, c)
	return nil
}

// sizeUnits are the units ParseSize accepts, lowercase.
var sizeUnits = map[string]int64{"": 1, "b": 1, "k": 1 << 10, "kib": 1 << 10, "kb": 1e3, "m": 1 << 20, "mib": 1 << 20,
	"mb": 1e6, "g": 1 << 30, "gib": 1 << 30, "gb": 1e9}

// ParseSize reads a byte size such as 1GB, 500MB, 64KiB or 1048576:
// decimal units (KB, MB, GB), binary ones (KiB, MiB, GiB, or K, M, G).
func ParseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	end := 0
	for end < len(t) && t[end] >= '0' && t[end] <= '9' {
		end++
	}
	mult, ok := sizeUnits[strings.TrimSpace(t[end:])]
	if end == 0 || !ok {
		return 0, fmt.Errorf("%w: size %q (want a whole number with an optional unit such as MB or GiB)", ErrOptions, s)
	}
	var n int64
	for _, c := range t[:end] {
		n = n*10 + int64(c-'0')
		if n > (1<<62)/mult {
			return 0, fmt.Errorf("%w: size %q is too large", ErrOptions, s)
		}
	}
	return n * mult, nil
}
