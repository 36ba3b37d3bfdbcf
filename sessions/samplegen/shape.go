package samplegen

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"time"
)

// ShapeOptions asks GenerateShape for an index of a given size rather than a
// given variety: so many sessions holding so many tool results between them,
// for measuring the window's lists at the scale a heavy user reaches.
type ShapeOptions struct {
	// Sessions is the number of sessions to write (at least 1).
	Sessions int
	// Results is the number of tool results spread over them (at least
	// Sessions: every session holds one or more).
	Results int
	// Seed makes the corpus reproducible.
	Seed int64
}

// Every shapeSubagentEvery-th session also has a subagent transcript holding
// one of its results, so the lists count transcripts and sessions apart;
// every shapeNoticeEvery-th result is a spill notice whose file is missing.
// Every shapeLinkEvery-th result mentions a plain link and a
// credential-bearing one, so the links list is as long as the others.
const (
	shapeSubagentEvery = 10
	shapeNoticeEvery   = 25
	shapeLinkEvery     = 10
	shapeProjects      = 40
)

// GenerateShape writes opts.Sessions Claude Code sessions holding
// opts.Results tool results between them under dir (which must be empty):
// spread over shapeProjects projects, one a minute apart, with small texts
// of every kind (logs, code, JSON, prose in several scripts) and an
// occasional large one, some subagents and some spill notices. The texts are
// small so a corpus of 100,000 results is written and indexed in seconds.
func GenerateShape(dir string, opts ShapeOptions) (Manifest, error) {
	if opts.Sessions < 1 || opts.Results < opts.Sessions {
		return Manifest{}, fmt.Errorf("%w: want at least 1 session and at least one result per session (sessions %d, results %d)",
			ErrOptions, opts.Sessions, opts.Results)
	}
	if err := prepareDir(dir); err != nil {
		return Manifest{}, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Manifest{}, fmt.Errorf("samplegen: %s: %w", dir, err)
	}
	g := &gen{root: abs, opts: Options{Seed: opts.Seed}}
	written := 0
	for i := 0; i < opts.Sessions; i++ {
		// Spread the results evenly: session i holds results up to the
		// i+1-th share, so the total is exact.
		n := (i+1)*opts.Results/opts.Sessions - written
		if err := g.writeShapeSession(i, n, written); err != nil {
			return g.m, err
		}
		written += n
	}
	g.m.finish()
	return g.m, nil
}

// shapeKinds cycles through the text kinds of a shape corpus.
// (kindMixed writes whole sections and would make every text large).
var shapeKinds = []textKind{kindLog, kindCode, kindJSON, kindProse}

// writeShapeSession writes one session with n tool results; first is the
// corpus-wide number of its first result (for the notice cadence).
func (g *gen) writeShapeSession(index, n, first int) error {
	r := g.rng(9, index)
	var c Counts
	c.Sessions = 1
	cwd := fmt.Sprintf("/home/dev/work/project-%02d", index%shapeProjects)
	projDir := filepath.Join(g.root, "claude", "projects", encodeCwd(cwd))
	sid := newUUID(r)
	ct, err := g.newClaude(r, filepath.Join(projDir, sid+".jsonl"), sid, cwd, &c)
	if err != nil {
		return err
	}
	ct.t = baseTime.Add(time.Duration(index) * time.Minute)
	ct.prompt(fmt.Sprintf("Session %d: look at the logs and fix what broke.", index))
	sub := index%shapeSubagentEvery == 0 && n > 1
	mine := n
	if sub {
		mine = n - 1
	}
	for k := 0; k < mine; k++ {
		size := 100 + r.IntN(1500)
		if r.IntN(100) == 0 {
			size = 8<<10 + r.IntN(40<<10)
		}
		text := shapeText(r, shapeKinds[r.IntN(len(shapeKinds))], size)
		if n := first + k; n%shapeLinkEvery == 0 {
			text += fmt.Sprintf("\nSee %s and the artifact at %s\n", PlainLinks[n/shapeLinkEvery%len(PlainLinks)], CredentialLinks[n/shapeLinkEvery%len(CredentialLinks)])
			c.CredentialLinks++
		}
		tid := newToolUse(r)
		a := ct.respond(toolUse(tid, "Bash", o("command", fmt.Sprintf("./check.sh --step %d", k), "description", "Run a check")))
		if (first+k)%shapeNoticeEvery == shapeNoticeEvery-1 {
			// A spill notice whose file was never copied: a state the
			// lists show, at no cost in bytes.
			text = persistedNotice(text, filepath.Join(projDir, sid, "tool-results", tid+".txt"))
			c.addNotice(NoticeClaude, false)
		}
		// No toolUseResult copy: it would double the bytes and the lists
		// never read it.
		ct.toolResult(tid, a, text, false, nil)
	}
	if sub {
		if err := g.writeShapeSubagent(ct, filepath.Join(projDir, sid)); err != nil {
			return err
		}
		c.Subagents++
	}
	ct.respond(textBlock("Done."))
	if err := ct.finish(false); err != nil {
		return err
	}
	g.m.addHarness(HarnessClaude, c)
	return nil
}

// writeShapeSubagent writes a subagent transcript of the parent's session
// with one tool result (counted in the parent's Counts).
func (g *gen) writeShapeSubagent(parent *claudeTranscript, sessDir string) error {
	r := parent.r
	agentID := "a" + newHex(r, 6)
	sub, err := g.newClaude(r, filepath.Join(sessDir, "subagents", "agent-"+agentID+".jsonl"), parent.sid, parent.cwd, parent.c)
	if err != nil {
		return err
	}
	sub.agentID, sub.model, sub.t = agentID, "claude-haiku-4-5-20251001", parent.t
	sub.prompt("Find where the failing check is defined.")
	tid := newToolUse(r)
	a := sub.respond(toolUse(tid, "Grep", o("pattern", "check", "path", parent.cwd)))
	text := shapeText(r, kindCode, 400+r.IntN(2000))
	sub.toolResult(tid, a, text, false, nil)
	sub.respond(textBlock("Found it."))
	if err := sub.finish(true); err != nil {
		return err
	}
	parent.t = sub.t
	return nil
}

// shapeText is genText cut back to about n bytes at a line end (genText
// writes whole paragraphs and overshoots small sizes by kilobytes).
func shapeText(r *rand.Rand, kind textKind, n int) string {
	s := genText(r, kind, n)
	if len(s) > n {
		if cut := strings.LastIndexByte(s[:n], '\n'); cut > 0 {
			s = s[:cut]
		}
	}
	return s
}
