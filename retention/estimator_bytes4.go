package retention

import (
	"bytes"
	"encoding/json"
)

// Codex CLI's token approximation (openai/codex
// codex-rs/utils/string/src/truncate.rs, approx_token_count): no tokenizer,
// 4 UTF-8 bytes per token rounded up, and no framing per block. Codex states
// every budget, marker and "original token count" in it, so replaying Codex
// uses it.

// EstimatorBytes4 names Codex's ceil(bytes/4) estimator.
const EstimatorBytes4 = "bytes4"

// bytesPerToken is Codex's APPROX_BYTES_PER_TOKEN.
const bytesPerToken = 4

type bytes4 struct{}

func init() {
	RegisterEstimator(EstimatorBytes4, func() (Estimator, error) { return bytes4{}, nil })
}

func (bytes4) Name() string { return EstimatorBytes4 }

func (bytes4) Count(text string) int { return ceilDiv4(len(sanitize(text))) }

// Structural prices a block's compact JSON the same way: Codex approximates
// whatever it serialises by its length.
func (bytes4) Structural(raw []byte) (int, bool) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return ceilDiv4(len(raw)), true
	}
	return ceilDiv4(buf.Len()), true
}

func (bytes4) Prepare(text string) TextCost { return bytes4Text(text) }

func ceilDiv4(n int) int { return (n + bytesPerToken - 1) / bytesPerToken }

// bytes4Text prices prefixes and suffixes arithmetically: the longest cut
// costing at most b tokens is the longest on a code-point boundary holding
// at most 4b bytes.
type bytes4Text string

func (t bytes4Text) Total() int { return ceilDiv4(len(t)) }

func (t bytes4Text) AtMost(int) (int, bool) { return t.Total(), true }

func (t bytes4Text) Prefix(budget int) (int, int) {
	if budget <= 0 {
		return 0, 0
	}
	end := prefixWithin(string(t), int64(budget)*bytesPerToken)
	return end, ceilDiv4(end)
}

func (t bytes4Text) Suffix(budget, from int) (int, int) {
	if budget <= 0 || from >= len(t) {
		return len(t), 0
	}
	start := suffixWithin(string(t), int64(budget)*bytesPerToken)
	start = max(start, from)
	return start, ceilDiv4(len(t) - start)
}

// prefixWithin is the end of the longest prefix of s of at most n bytes
// that ends on a code-point boundary.
func prefixWithin(s string, n int64) int {
	if n >= int64(len(s)) {
		return len(s)
	}
	if n <= 0 {
		return 0
	}
	end := int(n)
	for end > 0 && !runeStart(s[end]) {
		end--
	}
	return end
}

// suffixWithin is the start of the longest suffix of s of at most n bytes
// that starts on a code-point boundary.
func suffixWithin(s string, n int64) int {
	if n >= int64(len(s)) {
		return 0
	}
	if n <= 0 {
		return len(s)
	}
	start := len(s) - int(n)
	for start < len(s) && !runeStart(s[start]) {
		start++
	}
	return start
}

func runeStart(c byte) bool { return c&0xC0 != 0x80 }
