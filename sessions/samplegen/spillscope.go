package samplegen

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"spillscope/retention"
)

// retainedPart is one block of a tool result written to the spillscope
// layout: text, or an image already stored as an attachment.
type retainedPart struct {
	text          string
	png           []byte
	path          string
	width, height int
}

// writeSpillscope writes two records of spillscope's own spill layout
// (DIR/<id>.txt, DIR/attachments/<sha256>.png, DIR/<id>.retained.json) the
// way `spillscope retain --spill-dir` lays them out: a text-only result cut
// at a 2000-token budget, and a result whose two screenshots were omitted.
func (g *gen) writeSpillscope(index int) error {
	r := g.rng(5, index)
	var c Counts
	dir := filepath.Join(g.root, "spillscope")
	created := baseTime.Add(time.Duration(index)*24*time.Hour + 5*time.Hour)

	if err := g.writeRetained(dir, created, "Bash", 2000, []retainedPart{{text: genText(r, kindLog, 60<<10)}}, &c); err != nil {
		return err
	}
	parts := []retainedPart{{text: genText(r, kindProse, 10<<10)}}
	for i := 0; i < 2; i++ {
		png, w, h, err := screenshot(r, g.opts.ScreenshotBytes)
		if err != nil {
			return err
		}
		parts = append(parts, retainedPart{png: png, width: w, height: h})
	}
	parts = append(parts, retainedPart{text: genText(r, kindCode, 15<<10)})
	if err := g.writeRetained(dir, created.Add(time.Minute), "mcp__playwright__browser_snapshot", 3000, parts, &c); err != nil {
		return err
	}
	g.m.addHarness(HarnessSpillscope, c)
	return nil
}

// writeRetained writes one record. The cut follows the retention contract
// in outline (notice and marker reserved, the rest split between a head and a
// tail cut on code points, everything between omitted); the record is test
// data for the indexer, not a second implementation of the policy.
func (g *gen) writeRetained(dir string, created time.Time, tool string, budget int, parts []retainedPart, c *Counts) error {
	const enc = retention.DefaultEncoding
	// The input as stdin carried it (images as base64) names the record.
	var stdin []any
	for _, p := range parts {
		if p.png != nil {
			stdin = append(stdin, o("type", "image", "mimeType", "image/png", "data", base64.StdEncoding.EncodeToString(p.png)))
		} else {
			stdin = append(stdin, o("type", "text", "text", p.text))
		}
	}
	sum := sha256.Sum256(appendJSON(nil, o("content", stdin, "isError", false)))
	id := hex.EncodeToString(sum[:])[:16]
	spillPath := filepath.Join(dir, id+".txt")

	// Attachments first: the complete file and the input name their paths.
	var input []any
	var complete strings.Builder
	var totalText int64
	images := 0
	for i := range parts {
		p := &parts[i]
		if i > 0 {
			// The complete result file joins its blocks with newlines.
			complete.WriteByte('\n')
		}
		if p.png == nil {
			input = append(input, o("type", "text", "text", p.text))
			complete.WriteString(p.text)
			totalText += int64(len(p.text))
			continue
		}
		s := sha256.Sum256(p.png)
		p.path = filepath.Join(dir, "attachments", hex.EncodeToString(s[:])+".png")
		if err := g.writeFile(p.path, p.png); err != nil {
			return err
		}
		images++
		input = append(input, o("type", "image", "mimeType", "image/png", "path", p.path))
		complete.WriteString(retention.LegacyDescriptor("image/png", p.width, p.height, p.path))
	}
	if err := g.writeFile(spillPath, []byte(complete.String())); err != nil {
		return err
	}

	// Head from the first text block, tail from the last; every image sits
	// between them and is omitted.
	first, last := parts[0].text, parts[len(parts)-1].text
	longest := retention.FormatLegacyNotice(totalText, images, spillPath)
	reserve, err := retention.CountTokens(enc, longest+retention.LegacyMarker)
	if err != nil {
		return fmt.Errorf("samplegen: %w", err)
	}
	half := (budget - reserve) / 2
	head, err := fitPrefix(first, half)
	if err != nil {
		return err
	}
	tail, err := fitSuffix(last, budget-reserve-half)
	if err != nil {
		return err
	}
	if len(parts) == 1 && len(head)+len(tail) > len(first) {
		tail = first[len(head):]
	}
	omitted := totalText - int64(len(head)) - int64(len(tail))
	notice := retention.FormatLegacyNotice(omitted, images, spillPath)
	var tk [4]int
	for i, s := range []string{head, tail, retention.LegacyMarker, notice} {
		if tk[i], err = retention.CountTokens(enc, s); err != nil {
			return fmt.Errorf("samplegen: %w", err)
		}
	}
	original, err := retention.CountTokens(enc, complete.String())
	if err != nil {
		return fmt.Errorf("samplegen: %w", err)
	}
	textTokens := tk[0] + tk[1] + tk[2]
	outcome := o("status", "replaced",
		"content", []any{o("type", "text", "text", head), o("type", "text", "text", retention.LegacyMarker), o("type", "text", "text", tail), o("type", "text", "text", notice)},
		"notice", notice, "omittedBytes", omitted, "omittedImages", images,
		"tokens", o("total", textTokens+tk[3], "text", textTokens, "images", 0, "notice", tk[3]),
		"originalTokens", original, "spillPath", spillPath, "diagnostics", []any{})
	rec := o("version", 1, "createdAt", created.Format(time.RFC3339), "toolName", tool, "budget", budget,
		"route", "anthropic", "encoding", enc, "input", o("content", input, "isError", false), "outcome", outcome)
	if err := g.writeFile(filepath.Join(dir, id+".retained.json"), append(appendJSONIndent(nil, rec, "  ", 0), '\n')); err != nil {
		return err
	}
	c.Files++
	c.Sessions++
	c.ToolResults++
	c.ToolResultImages += images
	c.addNotice(NoticeSpillscope, true)
	return nil
}

// fitPrefix is a long prefix of s, cut on a code point, whose estimate is
// at most budget tokens. It tokenizes a window once and walks its tokens
// rather than searching: the sample needs a plausible cut, fast.
func fitPrefix(s string, budget int) (string, error) {
	enc, err := retention.Encoder(retention.DefaultEncoding)
	if err != nil {
		return "", fmt.Errorf("samplegen: %w", err)
	}
	window := s[:runeStartBefore(s, min(len(s), budget*12+64))]
	toks := enc.EncodeOrdinary(window)
	n := 0
	for i := 0; i < len(toks) && i < budget; i++ {
		n += len(enc.Decode(toks[i : i+1]))
	}
	cut := runeStartBefore(s, min(n, len(window)))
	for cut > 0 {
		if t, err := retention.CountTokens(retention.DefaultEncoding, s[:cut]); err != nil || t <= budget {
			return s[:cut], err
		}
		cut = runeStartBefore(s, cut-16)
	}
	return "", nil
}

// fitSuffix is fitPrefix from the end.
func fitSuffix(s string, budget int) (string, error) {
	enc, err := retention.Encoder(retention.DefaultEncoding)
	if err != nil {
		return "", fmt.Errorf("samplegen: %w", err)
	}
	from := runeStartBefore(s, max(0, len(s)-budget*12-64))
	toks := enc.EncodeOrdinary(s[from:])
	n := 0
	for i := len(toks) - 1; i >= 0 && i >= len(toks)-budget; i-- {
		n += len(enc.Decode(toks[i : i+1]))
	}
	cut := runeStartAfter(s, len(s)-n)
	for cut < len(s) {
		if t, err := retention.CountTokens(retention.DefaultEncoding, s[cut:]); err != nil || t <= budget {
			return s[cut:], err
		}
		cut = runeStartAfter(s, cut+16)
	}
	return "", nil
}

// runeStartBefore is the largest code-point boundary <= i.
func runeStartBefore(s string, i int) int {
	if i <= 0 {
		return 0
	}
	if i >= len(s) {
		return len(s)
	}
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// runeStartAfter is the smallest code-point boundary >= i.
func runeStartAfter(s string, i int) int {
	if i <= 0 {
		return 0
	}
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return min(i, len(s))
}
