package retention

import (
	"bytes"
	"encoding/json"
	"math/bits"
)

// dsh's token meter (deepseek-harness packages/llm/token-meter/src/estimate.ts):
// no tokenizer, 4 characters per token, where a character is a UTF-16 code
// unit (JavaScript's string.length), and 4 tokens of framing per block. A
// text block costs ceil(units/4) + 4; any block of another type
// 4 + ceil(units(JSON)/4). Both of dsh's spill-policy eras state their token
// figures in it, so replaying dsh uses it.
const (
	meterCharsPerToken = 4
	meterOverhead      = 4
)

type meter struct{}

func init() {
	RegisterEstimator(EstimatorMeter, func() (Estimator, error) { return meter{}, nil })
}

func (meter) Name() string { return EstimatorMeter }

func (meter) Count(text string) int { return meterPrice(utf16Len(sanitize(text))) }

// Structural prices the block's compact JSON; it stands in for dsh's
// JSON.stringify of the same block, which writes the same characters save
// for escapes a recorder chose differently.
func (meter) Structural(raw []byte) (int, bool) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return meterPrice(utf16Len(string(raw))), true
	}
	return meterPrice(utf16Len(buf.String())), true
}

func (meter) Prepare(text string) TextCost {
	return &meterText{s: text, units: -1, per: meterCharsPerToken, overhead: meterOverhead}
}

func meterPrice(units int) int {
	return (units+meterCharsPerToken-1)/meterCharsPerToken + meterOverhead
}

// utf16Len is JavaScript's string.length of valid UTF-8 text: one unit per
// code point, two for those above U+FFFF (4-byte sequences).
func utf16Len(s string) int {
	// Eight bytes at a time: each byte that is not a continuation byte
	// (10xxxxxx) starts a code point, one unit, and a lead of 11110xxx
	// starts one of two units.
	const hi = 0x8080808080808080
	n, i := 0, 0
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if w&hi == 0 {
			n += 8
			continue
		}
		cont := w &^ (w << 1) & hi                      // bit 7 set, bit 6 clear
		four := w & (w << 1) & (w << 2) & (w << 3) & hi // top four bits set
		n += 8 - bits.OnesCount64(cont) + bits.OnesCount64(four)
	}
	for ; i < len(s); i++ {
		c := s[i]
		if c&0xC0 != 0x80 {
			n++
			if c >= 0xF0 {
				n++
			}
		}
	}
	return n
}

// meterUnits is the UTF-16 units one code point starting with lead byte c
// takes.
func meterUnits(c byte) int {
	if c >= 0xF0 {
		return 2
	}
	return 1
}

// meterText prices prefixes and suffixes arithmetically: the longest cut
// costing at most b tokens is the longest on a code-point boundary holding at
// most 4(b-4) units. That is what dsh's binary search over UTF-16 lengths
// finds, since it moves a cut that splits a surrogate pair onto the pair's
// boundary. Finding it walks only the kept part of the text.
type meterText struct {
	s     string
	units int // -1 until counted
	// per and overhead are the meter's constants (4 and 4); dsh's own tests
	// price by length, which is per 1 and overhead 0.
	per, overhead int
}

func (m *meterText) price(units int) int { return (units+m.per-1)/m.per + m.overhead }

func (m *meterText) Total() int {
	if m.units < 0 {
		m.units = utf16Len(m.s)
	}
	return m.price(m.units)
}

func (m *meterText) AtMost(int) (int, bool) { return m.Total(), true }

func (m *meterText) maxUnits(budget int) int {
	return (budget - m.overhead) * m.per
}

func (m *meterText) Prefix(budget int) (int, int) {
	limit := m.maxUnits(budget)
	if limit <= 0 {
		return 0, 0
	}
	u := 0
	for i := 0; i < len(m.s); i++ {
		c := m.s[i]
		if c&0xC0 == 0x80 {
			continue
		}
		w := meterUnits(c)
		if u+w > limit {
			if i == 0 {
				return 0, 0
			}
			return i, m.price(u)
		}
		u += w
	}
	if len(m.s) == 0 {
		return 0, 0
	}
	return len(m.s), m.price(u)
}

func (m *meterText) Suffix(budget, from int) (int, int) {
	limit := m.maxUnits(budget)
	if limit <= 0 || from >= len(m.s) {
		return len(m.s), 0
	}
	start, u := len(m.s), 0
	for i := len(m.s) - 1; i >= from; i-- {
		c := m.s[i]
		if c&0xC0 == 0x80 {
			continue
		}
		w := meterUnits(c)
		if u+w > limit {
			break
		}
		u += w
		start = i
	}
	if start == len(m.s) {
		return start, 0
	}
	return start, m.price(u)
}
