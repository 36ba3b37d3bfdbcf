package retention

import (
	"bytes"
	"encoding/json"
)

// Estimators that count what a harness measures instead of tokens: several
// harnesses decide on a length, never on a token count, so "what the harness
// believed" an output costs is that length. OpenCode counts UTF-8 bytes
// (Buffer.byteLength), goose Unicode scalar values (Rust's chars().count()),
// Gemini CLI and Claude Code JavaScript string lengths (UTF-16 code units).
// A figure on one of them is in its unit, which its name says; none adds
// framing per block.
const (
	EstimatorUTF8Bytes  = "utf8-bytes"
	EstimatorCodePoints = "code-points"
	EstimatorUTF16Units = "utf16-units"
)

// CountsTokens reports whether an estimator's figures are tokens: every
// registered estimator but the length counters above, whose figures no
// provider's token count can be compared with.
func CountsTokens(name string) bool {
	switch name {
	case EstimatorUTF8Bytes, EstimatorCodePoints, EstimatorUTF16Units:
		return false
	}
	return true
}

// unitWidth is how many units the code point led by byte c takes.
type unitWidth func(c byte) int

func utf8Width(c byte) int {
	switch {
	case c < 0x80:
		return 1
	case c < 0xE0:
		return 2
	case c < 0xF0:
		return 3
	}
	return 4
}

func oneWidth(byte) int { return 1 }

// utf16Width is meterUnits: two units for a code point above U+FFFF.
func utf16Width(c byte) int { return meterUnits(c) }

type unitEstimator struct {
	name  string
	width unitWidth
}

func init() {
	for _, e := range []unitEstimator{
		{EstimatorUTF8Bytes, utf8Width},
		{EstimatorCodePoints, oneWidth},
		{EstimatorUTF16Units, utf16Width},
	} {
		e := e
		RegisterEstimator(e.name, func() (Estimator, error) { return e, nil })
	}
}

func (e unitEstimator) Name() string { return e.name }

func (e unitEstimator) Count(text string) int { return e.units(sanitize(text)) }

// units counts s (valid UTF-8) in the estimator's unit.
func (e unitEstimator) units(s string) int {
	switch e.name {
	case EstimatorUTF8Bytes:
		return len(s)
	case EstimatorUTF16Units:
		return utf16Len(s)
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i]&0xC0 != 0x80 {
			n++
		}
	}
	return n
}

// Structural measures the block's compact JSON, as a harness that
// serialises a block it cannot read would.
func (e unitEstimator) Structural(raw []byte) (int, bool) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return e.units(sanitize(string(raw))), true
	}
	return e.units(sanitize(buf.String())), true
}

func (e unitEstimator) Prepare(text string) TextCost {
	return &unitText{s: text, e: e, total: -1}
}

// unitText finds the longest prefix or suffix within a length by walking
// only the part it keeps, cutting on code points.
type unitText struct {
	s     string
	e     unitEstimator
	total int // -1 until counted
}

func (u *unitText) Total() int {
	if u.total < 0 {
		u.total = u.e.units(u.s)
	}
	return u.total
}

func (u *unitText) AtMost(int) (int, bool) { return u.Total(), true }

func (u *unitText) Prefix(budget int) (int, int) {
	if budget <= 0 {
		return 0, 0
	}
	n := 0
	for i := 0; i < len(u.s); i++ {
		c := u.s[i]
		if c&0xC0 == 0x80 {
			continue
		}
		w := u.e.width(c)
		if n+w > budget {
			return i, n
		}
		n += w
	}
	return len(u.s), n
}

func (u *unitText) Suffix(budget, from int) (int, int) {
	if budget <= 0 || from >= len(u.s) {
		return len(u.s), 0
	}
	start, n := len(u.s), 0
	for i := len(u.s) - 1; i >= from; i-- {
		c := u.s[i]
		if c&0xC0 == 0x80 {
			continue
		}
		w := u.e.width(c)
		if n+w > budget {
			break
		}
		n += w
		start = i
	}
	return start, n
}
