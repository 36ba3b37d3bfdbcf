package samplegen

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"spillscope/retention"
	"spillscope/retention/imagecost"
	"spillscope/sessions/dsh"
)

// dsh in the sample. The corpus keeps what a dsh user's machine keeps in
// two places side by side under dsh/:
//
//	dsh/home/sessions/--<projectKey(cwd)>--/<encoded id>/session.jsonl           byte era, format v0, raw JSONL
//	dsh/home/sessions/--<projectKey(cwd)>--/<encoded id>/session.v4.jsonl.zstd   token era, format v4, zstd frames
//	dsh/home/sessions/--<projectKey(cwd)>--/<encoded child id>/session.v4.jsonl.zstd   its subagent
//	dsh/home/attachments/v1/objects/<2 hex>/<64 hex>                             image bytes
//	dsh/tmp/dsh-spill-XXXXXX/session-<sha12>/<12 hex>-<tool>.txt                 spill files, 0600 in 0700 folders
//
// dsh/home is the DSH_HOME and dsh/tmp stands for the temp folder of the
// machine the sessions were recorded on (one dsh-spill-XXXXXX root per dsh
// process). The dsh harness finds both from the corpus root: the home is the
// folder above the logs' "sessions" folder, and a dsh-spill-* root under a
// configured root is one of a session's spill locations. Every notice names
// the spill file by its absolute path, as dsh writes it.
//
// The content of every spilled result is what retention's own dsh policies
// (dsh-bytes, dsh-tokens, dsh-pruner) make of the generated original: this
// generator writes what they decide, never a cut of its own.

// Manifest keys of dsh.
const (
	HarnessDsh      = "dsh"
	NoticeDshBytes  = "dsh-bytes"
	NoticeDshTokens = "dsh-tokens"
)

// dshProvider and dshModel are the route the sample's sessions record:
// DeepSeek's own provider, so images price on deepseek-v4.
const (
	dshProvider = "deepseek-official"
	dshModel    = "deepseek-v4-flash"
)

// dshSession writes one dsh log and keeps its counts and usage.
type dshSession struct {
	g      *gen
	r      *rand.Rand
	log    *DshLog
	path   string
	id     string
	parent string
	cwd    string
	spill  string // this process's spill root
	home   string
	route  string
	t      time.Time
	v4     bool
	c      *Counts
	usage  Usage
	turn   int
	msgs   int
}

func (s *dshSession) tick() int64 {
	s.t = s.t.Add(time.Duration(400+s.r.IntN(2600)) * time.Millisecond)
	s.log.At(s.t.UnixMilli())
	return s.t.UnixMilli()
}

func (g *gen) newDsh(r *rand.Rand, home, spillRoot, id, parent, cwd string, v4, compressed bool, start time.Time, c *Counts) (*dshSession, error) {
	name := "session.jsonl"
	version := 0
	if v4 {
		name, version = "session.v4.jsonl", 4
	}
	if compressed {
		name += ".zstd"
	}
	path := filepath.Join(home, dsh.SessionsFolder, dsh.ProjectKey(cwd), dsh.EncodeSegment(id), name)
	h := o("type", "session", "version", version, "id", id, "createdAt", start.UnixMilli(), "cwd", cwd)
	if parent != "" {
		h = h.with("parentSession", parent).with("origin", "subagent").with("delegationDepth", 1)
	} else {
		h = h.with("delegationDepth", 0)
	}
	log, err := NewDshLog(h, compressed)
	if err != nil {
		return nil, err
	}
	s := &dshSession{g: g, r: r, log: log, path: path, id: id, parent: parent, cwd: cwd, spill: spillRoot, home: home,
		route: imagecost.RouteFor(dshProvider, dshModel), t: start, v4: v4, c: c}
	s.tick()
	s.log.Event("request/header", o("header", o("config", o("provider", dshProvider, "model", dshModel, "maxTokens", 32768)), "reason", "initial"))
	s.log.Event("request/context", o("provider", dshProvider, "model", dshModel, "contextWindow", 1000000))
	return s, nil
}

// message ids, call ids and spill file ids are drawn from the session's
// own random source, so the sample is the same for the same seed.
func (s *dshSession) newID(prefix string) string { return prefix + newHex(s.r, 12) }

// prompt starts a turn with the user's message.
func (s *dshSession) prompt(text string) {
	s.turn++
	s.tick()
	s.log.Event("turn/start", o("turn", s.turn))
	s.log.Event("user/message", o("id", newUUID(s.r), "role", "user", "source", o("kind", "user"),
		"content", []any{textBlock(text)}), "surfaceOp", "append")
	s.log.Event("step/start", o("turn", s.turn, "step", 1))
}

// call writes the model's message advertising a tool call, with its usage,
// and the tool/call event; it returns the call's seq.
func (s *dshSession) call(callID, tool, args string) int64 {
	s.tick()
	s.msgs++
	u := o("inputTokens", int64(800+s.r.IntN(4000)), "outputTokens", int64(60+s.r.IntN(400)),
		"cacheReadTokens", int64(4000+s.r.IntN(40000)), "cacheWriteTokens", int64(s.r.IntN(2)*s.r.IntN(3000)),
		"reasoningTokens", int64(s.r.IntN(200)))
	s.addUsage(u)
	msg := o("id", newUUID(s.r), "role", "assistant", "source", o("kind", "model", "provider", dshProvider, "model", dshModel),
		"content", []any{o("type", "tool-call", "id", callID, "name", tool, "arguments", args)})
	if !s.v4 {
		// Format 0 streams usage as a chunk; the message's own replaces it.
		s.log.Event("assistant/chunk", o("turn", s.turn, "step", 1, "chunk", o("type", "usage", "usage", u)))
	}
	s.log.Event("assistant/message", o("turn", s.turn, "step", 1, "message", msg, "usage", u), "surfaceOp", "append")
	return s.log.Event("tool/call", o("turn", s.turn, "step", 1, "callId", callID, "name", tool, "arguments", args))
}

func (s *dshSession) addUsage(u obj) {
	get := func(k string) int64 {
		for _, m := range u {
			if m.K == k {
				return m.V.(int64)
			}
		}
		return 0
	}
	s.usage.add(Usage{InputTokens: get("inputTokens"), OutputTokens: get("outputTokens"), CacheReadInputTokens: get("cacheReadTokens"),
		CacheCreationInputTokens: get("cacheWriteTokens"), ReasoningOutputTokens: get("reasoningTokens")})
}

// result writes a tool/result in the session's format (the tool-result
// wrapper up to v3; a role "tool" message from v4) and returns its seq.
func (s *dshSession) result(msgID, callID string, callSeq int64, blocks []any, surfaceOp any) int64 {
	var msg obj
	if s.v4 {
		msg = o("id", msgID, "role", "tool", "source", o("kind", "tool", "callId", callID), "toolCallId", callID,
			"content", blocks, "isError", false)
	} else {
		msg = o("id", msgID, "role", "user", "source", o("kind", "tool", "callId", callID),
			"content", []any{o("type", "tool-result", "toolCallId", callID, "content", blocks, "isError", false)})
	}
	return s.log.Event("tool/result", o("turn", s.turn, "step", 1, "message", msg), "surfaceOp", surfaceOp, "sourceEventSeqs", []any{callSeq})
}

func (s *dshSession) endTurn() {
	s.tick()
	s.log.Event("step/end", o("turn", s.turn, "step", 1))
	s.log.Event("turn/end", o("turn", s.turn, "reason", o("kind", "completed")))
	s.log.EndBatch()
}

// dshPart is one block of a generated original: text, or an image already
// in the attachment store.
type dshPart struct {
	text   string
	image  string // the object's path in dsh's attachment store
	id     string // sha256:<hex>
	media  string
	size   int64
	width  int
	height int
}

// storeImage writes a PNG into the dsh home's attachment store, named by
// its SHA-256 as dsh's local attachment store names objects.
func (s *dshSession) storeImage(png []byte, w, h int) (dshPart, error) {
	sum := sha256.Sum256(png)
	hx := hex.EncodeToString(sum[:])
	p, _ := dsh.AttachmentPath(s.home, "sha256:"+hx)
	if _, err := os.Stat(p); err != nil {
		if err := s.g.writeFile(p, png); err != nil {
			return dshPart{}, err
		}
	}
	return dshPart{image: p, id: "sha256:" + hx, media: "image/png", size: int64(len(png)), width: w, height: h}, nil
}

// dshCall is one logged tool call and its result.
type dshCall struct {
	tool, callID, msgID string
	callSeq, seq        int64
	logged              []retention.Block
}

// tool runs one tool call: the original parts, cut by the named retention
// policy at budget when given (its notice naming a spill file in this
// process's root), logged as dsh logs what the model saw. spill says
// whether the complete file is written (false: dsh swept it since).
func (s *dshSession) tool(tool, args string, parts []dshPart, policy string, budget int64, spill bool) (dshCall, error) {
	callID := s.newID("call_")
	callSeq := s.call(callID, tool, args)
	content := make([]retention.Block, len(parts))
	handles := map[int]string{}
	facts := map[string]dshPart{}
	for i, p := range parts {
		if p.image == "" {
			content[i] = retention.Block{Type: retention.TypeText, Text: p.text}
			continue
		}
		content[i] = retention.Block{Type: retention.TypeImage, MimeType: p.media, Path: p.image}
		handles[i] = p.image
		facts[p.image] = p
	}
	logged := content
	var notice *retention.Outcome
	var spillPath string
	if policy != "" {
		spillPath = filepath.Join(s.spill, retention.DshSessionFolder(s.id), retention.DshSpillName(newHex(s.r, 12), tool))
		out, err := retention.Retain(retention.Result{Content: content}, retention.Options{Policy: policy, Budget: &budget, Route: s.route,
			ToolName: tool, SpillPath: spillPath, HandlePaths: handles})
		if err != nil {
			return dshCall{}, fmt.Errorf("samplegen: dsh %s: %w", policy, err)
		}
		if out.Status != retention.StatusReplaced && out.Status != retention.StatusNoticeOnly {
			return dshCall{}, fmt.Errorf("samplegen: dsh %s at %d kept %s whole (%s): the sample expects a spill", policy, budget, tool, out.Status)
		}
		logged, notice = out.Content, &out
	}
	blocks := make([]any, len(logged))
	for i, b := range logged {
		switch b.Type {
		case retention.TypeImage:
			p := facts[b.Path]
			blocks[i] = o("type", "image", "attachment", o("attachmentId", p.id, "mediaType", p.media, "bytes", p.size,
				"width", p.width, "height", p.height))
			if _, err := os.Stat(p.image); err == nil {
				s.c.ToolResultImages++
			}
		default:
			blocks[i] = textBlock(b.Text)
		}
	}
	s.tick()
	msgID := newUUID(s.r)
	seq := s.result(msgID, callID, callSeq, blocks, "append")
	s.c.ToolResults++
	if notice != nil {
		kind := NoticeDshBytes
		if policy == "dsh-tokens" {
			kind = NoticeDshTokens
		}
		if spill {
			if err := s.writeSpill(spillPath, notice.CompleteFile); err != nil {
				return dshCall{}, err
			}
		}
		s.c.addNotice(kind, spill)
	}
	return dshCall{tool: tool, callID: callID, msgID: msgID, callSeq: callSeq, seq: seq, logged: logged}, nil
}

// writeSpill writes a complete result file as dsh's local spill store
// does: opened exclusively, mode 0600, in 0700 folders.
func (s *dshSession) writeSpill(path, text string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("samplegen: %w", err)
	}
	for _, d := range []string{filepath.Dir(path), filepath.Dir(filepath.Dir(path))} {
		if err := os.Chmod(d, 0o700); err != nil {
			return fmt.Errorf("samplegen: %w", err)
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("samplegen: %w", err)
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return fmt.Errorf("samplegen: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("samplegen: %w", err)
	}
	s.g.m.AllFiles++
	s.g.m.Bytes += int64(len(text))
	return nil
}

// finish writes the log file and records its usage.
func (s *dshSession) finish() error {
	defer s.log.Close()
	s.log.EndBatch()
	if err := s.g.writeFile(s.path, s.log.Take()); err != nil {
		return err
	}
	s.c.Files++
	if s.parent != "" {
		s.c.Subagents++
	} else {
		s.c.Sessions++
	}
	s.c.Usage.add(s.usage)
	s.g.m.SessionUsage = append(s.g.m.SessionUsage, SessionUsage{Harness: HarnessDsh, SessionID: s.id, Path: s.g.rel(s.path),
		Subagent: s.parent != "", Model: dshModel, Usage: s.usage})
	return nil
}

// writeDsh writes one byte-era session (format 0, raw JSONL) and one
// token-era session (format 4, zstd) with a subagent, each in its own dsh
// process's spill root.
func (g *gen) writeDsh(index int) error {
	r := g.rng(6, index)
	var c Counts
	home := filepath.Join(g.root, "dsh", "home")
	tmp := filepath.Join(g.root, "dsh", "tmp")
	start := baseTime.Add(time.Duration(index)*24*time.Hour + 6*time.Hour)
	if err := g.writeDshBytes(r, home, filepath.Join(tmp, dsh.SpillRootPrefix+randFrom(r, alnum, 6)), start, &c); err != nil {
		return err
	}
	if err := g.writeDshTokens(r, home, filepath.Join(tmp, dsh.SpillRootPrefix+randFrom(r, alnum, 6)), start.Add(2*time.Hour), &c); err != nil {
		return err
	}
	g.m.addHarness(HarnessDsh, c)
	return nil
}

// writeDshBytes: dsh 0.1.x (maxInlineBytes). A small result passes
// through; a 60 KB build log is cut at the shipped 50,000 bytes; a grep at
// a configured 8,000 (a replay finds that budget's range); a result whose
// spill file dsh has since swept; and the compaction pruner's replacement
// of the build log's logged copy.
func (g *gen) writeDshBytes(r *rand.Rand, home, spill string, start time.Time, c *Counts) error {
	cwd := "/home/dev/work/ledger-api"
	s, err := g.newDsh(r, home, spill, newUUID(r), "", cwd, false, false, start, c)
	if err != nil {
		return err
	}
	s.prompt("The integration tests fail on CI; find out why.")
	if _, err := s.tool("bash", `{"command":"git status --short"}`, []dshPart{{text: " M internal/ledger/post.go\n?? tmp/\n"}}, "", 0, false); err != nil {
		return err
	}
	s.endTurn()
	s.prompt("Run the whole suite with verbose output.")
	build, err := s.tool("bash", `{"command":"go test -v ./... 2>&1"}`, []dshPart{{text: genText(r, kindLog, 60<<10)}}, "dsh-bytes", 50000, true)
	if err != nil {
		return err
	}
	s.endTurn()
	s.prompt("Where is the retry budget configured?")
	if _, err := s.tool("grep", `{"pattern":"retryBudget","path":"."}`, []dshPart{{text: genText(r, kindCode, 12<<10)}}, "dsh-bytes", 8000, true); err != nil {
		return err
	}
	s.endTurn()
	s.prompt("Show the service logs from last night.")
	if _, err := s.tool("bash", `{"command":"journalctl -u ledger --since yesterday"}`, []dshPart{{text: genText(r, kindLog, 20<<10)}}, "dsh-bytes", 6000, false); err != nil {
		return err
	}
	s.endTurn()
	// Compaction prunes the build log's logged copy: compaction/prune,
	// then the replacing tool/result (same message and call id) with
	// dsh-pruner's cut of the logged text.
	if err := s.prune(build); err != nil {
		return err
	}
	return s.finish()
}

// prune replaces a logged tool/result with the compaction pruner's cut
// of what was logged.
func (s *dshSession) prune(c dshCall) error {
	threshold := int64(8192)
	out, err := retention.Retain(retention.Result{Content: c.logged}, retention.Options{Policy: "dsh-pruner", Budget: &threshold, Route: s.route, ToolName: c.tool})
	if err != nil {
		return fmt.Errorf("samplegen: dsh-pruner: %w", err)
	}
	if out.Status != retention.StatusReplaced {
		return fmt.Errorf("samplegen: dsh-pruner kept the build log whole (%s)", out.Status)
	}
	blocks := make([]any, len(out.Content))
	for i, b := range out.Content {
		blocks[i] = textBlock(b.Text)
	}
	s.turn++
	s.tick()
	s.log.Event("turn/start", o("turn", s.turn))
	s.log.Event("compaction/prune", o("shadowedRange", o("start", c.seq, "end", c.seq), "shadowedSeqs", []any{c.seq},
		"shadowedTokenCount", int64(len(c.logged[0].Text)/4+4)))
	op := o("op", "replace", "start", c.seq, "end", c.seq)
	if s.v4 {
		op = o("op", "replace", "startSeq", c.seq, "endSeq", c.seq)
	}
	s.result(c.msgID, c.callID, c.callSeq, blocks, op)
	s.log.Event("turn/end", o("turn", s.turn, "reason", o("kind", "completed")))
	s.log.EndBatch()
	return nil
}

// writeDshTokens: dsh 0.1.7+ (maxInlineTokens). An 80 KB log cut at the
// shipped 12,500 tokens; a page inspection of text and two screenshots cut
// at 4,000 (one screenshot kept, one omitted and named in the spill file);
// a read_image result kept whole; a web page whose notice names another
// session's spill folder; and a subagent whose grep is cut at 2,000.
func (g *gen) writeDshTokens(r *rand.Rand, home, spill string, start time.Time, c *Counts) error {
	cwd := "/home/dev/work/ledger-web"
	id := newUUID(r)
	s, err := g.newDsh(r, home, spill, id, "", cwd, true, true, start, c)
	if err != nil {
		return err
	}
	s.prompt("Tail the dev server's log and tell me what breaks the page.")
	if _, err := s.tool("bash", `{"command":"tail -n 4000 logs/dev.log"}`, []dshPart{{text: genText(r, kindLog, 80<<10)}}, "dsh-tokens", retention.DshTokensDefault, true); err != nil {
		return err
	}
	s.endTurn()
	s.prompt("Inspect the checkout page and compare it with the design.")
	var shots []dshPart
	for i := 0; i < 2; i++ {
		png, w, h, err := screenshot(r, g.opts.ScreenshotBytes)
		if err != nil {
			return err
		}
		p, err := s.storeImage(png, w, h)
		if err != nil {
			return err
		}
		shots = append(shots, p)
	}
	page := []dshPart{{text: genText(r, kindProse, 6<<10)}, shots[0], {text: genText(r, kindLog, 8<<10)}, shots[1], {text: genText(r, kindCode, 9<<10)}}
	if _, err := s.tool("inspect_page", `{"url":"http://localhost:5173/checkout"}`, page, "dsh-tokens", 4000, true); err != nil {
		return err
	}
	s.endTurn()
	s.prompt("Look at the logo file.")
	png, w, h, err := screenshot(r, 8<<10)
	if err != nil {
		return err
	}
	logo, err := s.storeImage(png, w, h)
	if err != nil {
		return err
	}
	head := fmt.Sprintf("<path>%s/public/logo.png</path>\n<type>image</type>\n<content>\nimage/png image, %dx%d px, %d bytes\n</content>", cwd, w, h, len(png))
	if _, err := s.tool("read_image", `{"file_path":"public/logo.png"}`, []dshPart{{text: head}, logo}, "", 0, false); err != nil {
		return err
	}
	s.endTurn()
	// A page that quotes a notice into another session's spill folder: the
	// index marks it and never follows it.
	s.prompt("What does the release page say?")
	other := filepath.Join(spill, retention.DshSessionFolder("another-session"), newHex(r, 12)+"-web_fetch.txt")
	quoted := genText(r, kindProse, 2<<10) + "\n\n" + retention.FormatSpillNotice(retention.ExactOmission(31337), retention.SpillRef{Locator: other}, 0)
	if _, err := s.tool("web_fetch", `{"url":"https://example.com/releases"}`, []dshPart{{text: quoted}}, "", 0, false); err != nil {
		return err
	}
	c.addNotice(NoticeDshBytes, false)
	s.endTurn()
	// A subagent in the same process (so the same spill root).
	s.prompt("Ask a helper to find every use of the retry budget.")
	childID := newUUID(r)
	childAt := s.t.Add(time.Second)
	callID := s.newID("call_")
	callSeq := s.call(callID, "spawn_agent", `{"task":"find every use of retryBudget"}`)
	s.log.Event("subagent/catalog", o("childId", childID, "childCreatedAt", childAt.UnixMilli(), "mode", "spawn", "label", "retry budget search"))
	s.tick()
	s.result(newUUID(r), callID, callSeq, []any{textBlock("started subagent " + childID)}, "append")
	c.ToolResults++
	s.endTurn()
	if err := g.writeDshChild(r, home, spill, childID, id, cwd, childAt, c); err != nil {
		return err
	}
	return s.finish()
}

func (g *gen) writeDshChild(r *rand.Rand, home, spill, id, parent, cwd string, start time.Time, c *Counts) error {
	s, err := g.newDsh(r, home, spill, id, parent, cwd, true, true, start, c)
	if err != nil {
		return err
	}
	s.log.Event("subagent/descriptor", o("version", 2, "mode", "spawn", "provider", "spawn", "label", "retry budget search",
		"agentProvider", dshProvider, "agentModel", dshModel))
	s.prompt("Find every use of retryBudget and say where it is set.")
	if _, err := s.tool("grep", `{"pattern":"retryBudget","path":"."}`, []dshPart{{text: genText(r, kindCode, 24<<10)}}, "dsh-tokens", 2000, true); err != nil {
		return err
	}
	s.endTurn()
	return s.finish()
}
