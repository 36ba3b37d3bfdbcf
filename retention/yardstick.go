package retention

import (
	"sort"
	"strings"
)

// One yardstick. Every policy prices its outcome on its own estimator: what
// the harness believed (dsh's meter, OpenCode's bytes, goose's characters).
// Those figures do not compare across policies, so every outcome is priced
// again on one estimator shared by all of them, the session's route's: what
// the model is charged. Price is the one function that does it; every
// screen, the sweep and the CLI call it.

// Loss is a count of omitted parts: text bytes, the lines any part of which
// is omitted, and whole images.
type Loss struct {
	Bytes  int64 `json:"bytes"`
	Lines  int64 `json:"lines"`
	Images int   `json:"images"`
}

// Priced is one outcome on both yardsticks, with what it leaves out.
type Priced struct {
	// Own is the outcome's own figure: on its policy's estimator.
	Own Tokens `json:"own"`
	// Yardstick is the same content on the yardstick's estimator and route.
	Yardstick Tokens `json:"yardstick"`
	// Omitted is everything the model does not see.
	Omitted Loss `json:"omitted"`
	// Lost is what no file keeps: gone for good.
	Lost Loss `json:"lost"`
	// Recoverable is what a file keeps, at Locator.
	Recoverable Loss   `json:"recoverable"`
	Locator     string `json:"locator,omitempty"`
}

// Price prices o, decided on any Analysis of the result yard was built
// from, on yard's estimator and route, and says what it leaves out and what
// of that a file keeps.
func Price(o Outcome, yard *Analysis) Priced {
	p := Priced{Own: o.Tokens, Yardstick: yard.Reprice(o), Locator: o.Recovery.Locator}
	p.Omitted = Loss{Bytes: o.OmittedBytes, Images: o.OmittedImages}
	if o.OmittedBytes > 0 {
		p.Omitted.Lines = yard.omittedLines(o)
	}
	switch o.Recovery.Kind {
	case RecoverNone:
		p.Lost = p.Omitted
	case RecoverFile:
		// A file keeps everything but what the policy says it lost.
		p.Lost = Loss{Bytes: o.Recovery.LostBytes, Images: o.Recovery.LostImages}
		if p.Lost.Bytes >= p.Omitted.Bytes {
			p.Lost.Lines = p.Omitted.Lines
		}
		p.Recoverable = Loss{Bytes: p.Omitted.Bytes - p.Lost.Bytes, Images: p.Omitted.Images - p.Lost.Images, Lines: p.Omitted.Lines - p.Lost.Lines}
	}
	return p
}

// omittedLines counts the lines of the original text blocks that the
// outcome's kept spans do not show whole.
func (a *Analysis) omittedLines(o Outcome) int64 {
	if a.sketch != nil {
		if o.plan == nil {
			a.sketchFail()
			return 0
		}
		return a.sketchOmittedLines(o.plan)
	}
	kept := map[int][][2]int64{}
	for _, sp := range o.Spans {
		if sp.Kind == SpanKept && sp.Block >= 0 && sp.Block < len(a.blocks) && a.blocks[sp.Block].kind == TypeText {
			kept[sp.Block] = append(kept[sp.Block], [2]int64{sp.Start, sp.End})
		}
	}
	var n int64
	for i, bi := range a.blocks {
		if bi.kind != TypeText || len(bi.text) == 0 {
			continue
		}
		n += linesOutside(bi.text, kept[i])
	}
	return n
}

// linesOutside counts the "\n"-separated lines of text that hold a byte
// outside every kept interval.
func linesOutside(text string, kept [][2]int64) int64 {
	var scanned, breaks int64
	// linesOutsideBy asks in ascending order, so the count goes on from
	// the last answer.
	return linesOutsideBy(int64(len(text)), kept, func(x int64) int64 {
		breaks += int64(strings.Count(text[scanned:x], "\n"))
		scanned = x
		return breaks
	})
}

// linesOutsideBy is linesOutside on a text of size bytes whose line breaks
// before byte x are before(x), asked for ascending x.
func linesOutsideBy(size int64, kept [][2]int64, before func(x int64) int64) int64 {
	sort.Slice(kept, func(i, j int) bool { return kept[i][0] < kept[j][0] })
	var gaps [][2]int64
	var at int64
	for _, k := range kept {
		if k[0] > at {
			gaps = append(gaps, [2]int64{at, k[0]})
		}
		at = max(at, k[1])
	}
	if at < size {
		gaps = append(gaps, [2]int64{at, size})
	}
	var n int64
	last := int64(-1) // last line counted
	for _, g := range gaps {
		first := before(g[0])
		line := before(g[1] - 1)
		if first == last {
			first++
		}
		if line >= first {
			n += line - first + 1
		}
		last = line
	}
	return n
}
