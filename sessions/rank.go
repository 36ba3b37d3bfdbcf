package sessions

import (
	"spillscope/retention"
	"spillscope/retention/imagecost"
)

// Ranking results by tokens. The structure pass cannot afford a tokenizer
// (it runs at hundreds of MB/s; tiktoken counts tens), so it stores an
// approximation; the token phase later stores the exact count and every
// ranking (the column rank_tokens) switches to it.

// approxBytesPerToken is the ratio the approximation divides text bytes by,
// as a fraction (7/2 = 3.5 bytes per token). Measured on the real fixtures
// in ../shared/fixtures/real with o200k_base: Claude Code tool results
// average 3.32 bytes per token, Codex 3.70, Gemini CLI 4.38 (code, logs and
// JSON tokenize denser than prose).
const (
	approxBytesNum = 7
	approxBytesDen = 2
)

// approxTextTokens estimates a text's token count from its size alone,
// rounding up so that non-empty text never ranks as free.
func approxTextTokens(textBytes int64) int64 {
	if textBytes <= 0 {
		return 0
	}
	return (textBytes*approxBytesDen + approxBytesNum - 1) / approxBytesNum
}

// routeFor resolves a session's route for pricing: its calculator (nil for
// a route without one, such as deepseek) and its text encoding. An empty or
// unknown route prices like Anthropic, the harness most sessions come from.
func routeFor(route string) (calc imagecost.Calculator, encoding string) {
	if route == "" {
		route = imagecost.RouteAnthropic
	}
	rt, err := imagecost.Lookup(route)
	if err != nil {
		return nil, retention.DefaultEncoding
	}
	encoding = rt.Encoding
	if encoding == "" {
		encoding = retention.DefaultEncoding
	}
	return rt.Calc, encoding
}

// approxTokens is what a result ranks by until the token phase has counted
// it: text from its size, images exactly from their stored dimensions on
// the session's route.
func approxTokens(textBytes int64, images []attachRef, route string) int64 {
	n := approxTextTokens(textBytes)
	calc, _ := routeFor(route)
	if calc == nil {
		return n
	}
	for _, a := range images {
		if t, err := calc(a.att.Width, a.att.Height); err == nil {
			n += int64(t)
		}
	}
	return n
}
