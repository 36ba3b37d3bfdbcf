package retention

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Codex CLI's output truncation, as openai/codex implements it in
// codex-rs/utils/output-truncation/src/lib.rs @ 820f85cf (the version that
// writes the "Warning: truncated output" header; 0.142.5 logs carry it) and
// codex-rs/utils/string/src/truncate.rs @ b24d7f3c: a policy is Bytes(n) or
// Tokens(n), a token is ceil(bytes/4), and an oversized text keeps its first
// floor(max/2) and last ceil(max/2) bytes, cut on character boundaries,
// around a marker the budget does not pay for. Nothing is saved: the middle
// is lost. Where the rules come from, parameter by parameter:
//
//   - model: the truncation_policy of the model catalogue
//     (codex-rs/models-manager/models.json @ 069e6b19 and the older
//     codex-rs/core/models.json @ 21dac7d7); a slug the catalogue lacks gets
//     model_info_from_slug's fallback, Bytes(10,000).
//   - tool_output_token_limit: the config override, applied in
//     ModelsManager's config overrides: Tokens(N) on a tokens model,
//     Bytes(4N) on a bytes model.
//   - history: what the context manager records of a tool output,
//     truncate_function_output_payload with with_serialization_allowance
//     (policy x 1.2, rounded up in f64), no header, each item on its own.
//   - mcp: truncate_mcp_tool_result, the serialised CallToolResult previewed
//     as Bytes(max). In the current source (codex-rs/rollout/src/policy.rs)
//     it shapes what a paginated rollout persists of an MCP call, at
//     PERSISTED_MCP_RESULT_MAX_BYTES = 65,536, not what the model sees.

// Codex's marker and omission texts, with U+2026 on both sides of the
// marker.
const (
	codexWarning     = "Warning: truncated output (original token count: "
	codexLines       = "Total output lines: "
	codexOmittedText = "[omitted %d text items ...]"
	codexOmittedAud  = "[omitted %d audio items ...]"
)

// CodexPersistedMCPMaxBytes is PERSISTED_MCP_RESULT_MAX_BYTES: the budget at
// which a paginated rollout stores an MCP result through the mcp rule.
const CodexPersistedMCPMaxBytes = 64 * 1024

// CodexTruncation is one of Codex's truncation policies: Bytes(Limit) or
// Tokens(Limit).
type CodexTruncation struct {
	Tokens bool  `json:"tokens"`
	Limit  int64 `json:"limit"`
}

// ByteBudget is byte_budget: n for Bytes(n), 4n for Tokens(n).
func (p CodexTruncation) ByteBudget() int64 {
	if p.Tokens {
		return p.Limit * bytesPerToken
	}
	return p.Limit
}

// TokenBudget is token_budget: n for Tokens(n), ceil(n/4) for Bytes(n).
func (p CodexTruncation) TokenBudget() int64 {
	if p.Tokens {
		return p.Limit
	}
	return (p.Limit + bytesPerToken - 1) / bytesPerToken
}

// WithSerializationAllowance is with_serialization_allowance: the policy x
// 1.2, the limit rounded up as Rust's f64 arithmetic rounds it.
func (p CodexTruncation) WithSerializationAllowance() CodexTruncation {
	p.Limit = int64(math.Ceil(float64(p.Limit) * 1.2))
	return p
}

// String is the policy as Codex's Debug prints it: Bytes(n) or Tokens(n).
func (p CodexTruncation) String() string {
	if p.Tokens {
		return "Tokens(" + strconv.FormatInt(p.Limit, 10) + ")"
	}
	return "Bytes(" + strconv.FormatInt(p.Limit, 10) + ")"
}

func (p CodexTruncation) unit() string {
	if p.Tokens {
		return "tokens"
	}
	return "bytes"
}

// CodexOtherModel is the model choice for a slug the catalogue lacks.
const CodexOtherModel = "other"

// codexCatalogue is each model's truncation_policy. The entries are those
// read in the sources named at the top of this file, or recorded in real
// rollouts' turn_context (gpt-5.5, gpt-5.3-codex: {"mode":"tokens",
// "limit":10000}).
var codexCatalogue = map[string]CodexTruncation{
	"gpt-5.6-sol":       {Tokens: true, Limit: 10000},
	"gpt-5.5":           {Tokens: true, Limit: 10000},
	"gpt-5.3-codex":     {Tokens: true, Limit: 10000},
	"gpt-5.2-codex":     {Tokens: true, Limit: 10000},
	"gpt-5.1-codex-max": {Tokens: true, Limit: 10000},
	"gpt-5.1-codex":     {Tokens: true, Limit: 10000},
	"gpt-5.2":           {Tokens: false, Limit: 10000},
	CodexOtherModel:     {Tokens: false, Limit: 10000},
}

// CodexDefaultModel is the model whose catalogue entry the policy uses when
// none is named.
const CodexDefaultModel = "gpt-5.2-codex"

// CodexModelPolicy is the catalogue's truncation policy for a model slug,
// the fallback's for a slug it lacks.
func CodexModelPolicy(slug string) CodexTruncation {
	if p, ok := codexCatalogue[slug]; ok {
		return p
	}
	return codexCatalogue[CodexOtherModel]
}

type codex struct{}

func init() { RegisterPolicy(codex{}) }

func (codex) Info() PolicyInfo {
	models := []string{CodexDefaultModel}
	for m := range codexCatalogue {
		if m != CodexDefaultModel {
			models = append(models, m)
		}
	}
	sort.Strings(models[1:])
	return PolicyInfo{
		Name: "codex", Harness: "Codex CLI", Version: "0.142 (output-truncation with the Warning header)",
		Summary:   "Bytes(n) or Tokens(n) (a token is ceil(bytes/4)); an oversized text keeps its first and last halves of the budget on character boundaries around a …N tokens/chars truncated… marker, under a Warning/Total output lines header; nothing saved",
		Source:    "openai/codex @ 820f85cf: codex-rs/utils/output-truncation/src/lib.rs; @ b24d7f3c: codex-rs/utils/string/src/truncate.rs; models-manager/models.json @ 069e6b19; rollout/src/policy.rs",
		Estimator: EstimatorBytes4, Budget: "limit", Unit: "tokens",
		Params: []Param{
			{Name: "limit", Kind: ParamInt, Unit: "tokens or bytes (per mode)", Default: "10000", Min: 0, Max: MaxBudget, Off: true,
				Doc: "the policy's limit, in its mode's unit; off takes the model's catalogue limit"},
			{Name: "mode", Kind: ParamChoice, Choices: []string{"bytes", "tokens"}, Default: ParamOff, Off: true,
				Doc: "Bytes(n) or Tokens(n); off takes the model's catalogue mode"},
			{Name: "model", Kind: ParamChoice, Choices: models, Default: CodexDefaultModel,
				Doc: "the model whose catalogue truncation_policy applies (" + CodexOtherModel + ": a slug the catalogue lacks, Bytes(10000))"},
			{Name: "tool_output_token_limit", Kind: ParamInt, Unit: "tokens", Default: ParamOff, Min: 0, Max: MaxBudget / bytesPerToken, Off: true,
				Doc: "config.toml's override: Tokens(N) on a tokens model, Bytes(4N) on a bytes model"},
			{Name: "history", Kind: ParamBool, Default: "false",
				Doc: "true: what history records (policy x 1.2, no header, each item on its own budget)"},
			{Name: "mcp", Kind: ParamBool, Default: "false",
				Doc: "true: the MCP rule, the serialised result previewed as Bytes(byte budget); isError kept"},
		},
		Recoverable: RecoverNone,
		Check: func(s Settings) error {
			if !s.Off("limit") && !s.Off("tool_output_token_limit") {
				return errors.New("limit and tool_output_token_limit both set; give one")
			}
			return nil
		},
	}
}

// CodexPolicyFor resolves settings to the policy Codex would apply, and
// says how it got there.
func CodexPolicyFor(s Settings) (CodexTruncation, string) {
	model := s.String("model")
	p := CodexModelPolicy(model)
	how := "model " + model + ": " + p.String()
	if !s.Off("mode") {
		p.Tokens = s.String("mode") == "tokens"
	}
	if !s.Off("limit") {
		p.Limit = s.Int("limit")
	}
	if !s.Off("tool_output_token_limit") {
		n := s.Int("tool_output_token_limit")
		p.Limit = n
		if !p.Tokens {
			p.Limit = n * bytesPerToken
		}
		how += "; tool_output_token_limit " + strconv.FormatInt(n, 10)
	}
	if s.Bool("history") {
		h := p.WithSerializationAllowance()
		how += "; history: " + p.String() + " x 1.2 = " + h.String()
		p = h
	}
	return p, how + "; applied: " + p.String()
}

func (codex) Decide(a *Analysis, s Settings) Outcome {
	p, how := CodexPolicyFor(s)
	var o Outcome
	switch {
	case s.Bool("mcp"):
		o = a.codexMCP(p)
	case s.Bool("history"):
		o = a.codexItems(p, codexAudioTokens)
	default:
		o = a.codexFormatted(p)
	}
	limit := p.Limit
	o.Budget, o.BudgetUnit = &limit, p.unit()
	o.Diagnostics = append(o.Diagnostics, how)
	return o
}

// codexCut is where truncate_with_byte_estimate cuts s: the kept prefix
// s[:PrefixEnd], the kept suffix s[SuffixStart:] and the marker between
// them. Whole is set when s is returned unchanged.
type codexCut struct {
	Whole       bool
	PrefixEnd   int
	SuffixStart int
	Marker      string
}

// codexTruncate is truncate_with_byte_estimate(s, maxBytes, tokens) for a
// non-empty s holding chars characters. split_string's walk is reproduced
// by its boundaries (the prefix is the longest run of whole characters
// within floor(max/2) bytes, the suffix starts at the first character at or
// after len - ceil(max/2), never before the prefix ends), so only the kept
// ends are read.
func codexTruncate(s string, chars, maxBytes int64, tokens bool) codexCut {
	n := int64(len(s))
	if maxBytes == 0 {
		count := chars
		if tokens {
			count = (n + bytesPerToken - 1) / bytesPerToken
		}
		return codexCut{PrefixEnd: 0, SuffixStart: len(s), Marker: codexMarker(tokens, count)}
	}
	if n <= maxBytes {
		return codexCut{Whole: true, PrefixEnd: len(s), SuffixStart: len(s)}
	}
	left := maxBytes / 2
	pe, ss, count := codexSplit(s, chars, left, maxBytes-left)
	if tokens {
		count = (n - maxBytes + bytesPerToken - 1) / bytesPerToken
	}
	return codexCut{PrefixEnd: pe, SuffixStart: ss, Marker: codexMarker(tokens, count)}
}

// codexSplit is split_string(s, head, tail): the prefix end, the suffix
// start and the characters in neither, for s holding chars characters.
func codexSplit(s string, chars, head, tail int64) (prefixEnd, suffixStart int, removed int64) {
	if s == "" {
		return 0, 0, 0
	}
	pe := prefixWithin(s, head)
	ss := max(suffixWithin(s, tail), pe)
	return pe, ss, chars - int64(utf8.RuneCountInString(s[:pe])) - int64(utf8.RuneCountInString(s[ss:]))
}

func codexMarker(tokens bool, n int64) string {
	unit := " chars truncated…"
	if tokens {
		unit = " tokens truncated…"
	}
	return "…" + strconv.FormatInt(n, 10) + unit
}

// CodexTruncateText is truncate_text(s, p): the middle cut with its marker
// and no header.
func CodexTruncateText(s string, p CodexTruncation) string {
	if s == "" {
		return ""
	}
	max := p.Limit
	if p.Tokens {
		max = p.ByteBudget()
	}
	c := codexTruncate(s, int64(utf8.RuneCountInString(s)), max, p.Tokens)
	if c.Whole {
		return s
	}
	return s[:c.PrefixEnd] + c.Marker + s[c.SuffixStart:]
}

// CodexHeader is formatted_truncate_text's header for an original of n
// bytes and the given line count, blank line included.
func CodexHeader(n, lines int64) string {
	return codexWarning + strconv.FormatInt((n+bytesPerToken-1)/bytesPerToken, 10) + ")\n" +
		codexLines + strconv.FormatInt(lines, 10) + "\n\n"
}

// CodexFormattedTruncateText is formatted_truncate_text(s, p): s when it
// fits the byte budget, else the header and the middle cut.
func CodexFormattedTruncateText(s string, p CodexTruncation) string {
	if int64(len(s)) <= p.ByteBudget() {
		return s
	}
	return CodexHeader(int64(len(s)), rustLines(s)) + CodexTruncateText(s, p)
}

// rustLines is Rust's str::lines().count(): lines end at \n, and a final
// \n does not start another.
func rustLines(s string) int64 {
	if s == "" {
		return 0
	}
	n := int64(strings.Count(s, "\n"))
	if s[len(s)-1] != '\n' {
		n++
	}
	return n
}

// codexFormatted is the tool's own output: every text item joined and cut
// under formatted_truncate_text's header, non-text items after it in their
// order (formatted_truncate_text_content_items_with_policy; for one text it
// is formatted_truncate_text).
func (a *Analysis) codexFormatted(p CodexTruncation) Outcome {
	texts := 0
	for _, bi := range a.blocks {
		if bi.kind == TypeText {
			texts++
		}
	}
	if texts == 0 {
		return a.keep(StatusWithinBudget, nil, "no text items: Codex passes media through")
	}
	// formatted_truncate_text_content_items_with_policy joins the text
	// items with a \n before each once the join so far is non-empty.
	j := a.joined("\n", joinAfterText)
	n := int64(len(j.text))
	if n <= p.ByteBudget() {
		return a.keep(StatusWithinBudget, nil)
	}
	cut := codexTruncate(j.text, j.chars(a.codePoints()), p.ByteBudget(), p.Tokens)
	var c contentBuilder
	c.text(SpanHeader, -1, 0, CodexHeader(n, rustLines(j.text)))
	kept := j.add(&c, 0, int64(cut.PrefixEnd))
	c.text(SpanMarker, -1, 0, cut.Marker)
	kept += j.add(&c, int64(cut.SuffixStart), n)
	c.end()
	for i, bi := range a.blocks {
		switch bi.kind {
		case TypeText:
		case TypeImage:
			c.image(i, a.imageBlock(i))
		default:
			c.other(i, a.res.Content[i])
		}
	}
	headEnd := j.position(int64(cut.PrefixEnd), len(a.blocks))
	tailStart := j.position(int64(cut.SuffixStart), len(a.blocks))
	return a.codexOutcome(c, kept, cut.Marker, &headEnd, &tailStart, p)
}

func (a *Analysis) codexOutcome(c contentBuilder, kept int64, notice string, headEnd, tailStart *Position, p CodexTruncation) Outcome {
	omitted := a.textBytes - kept
	o := Outcome{
		Status: StatusReplaced, Content: c.blocks, Spans: c.spans, Notice: notice, OmittedBytes: omitted,
		Recovery:    Recovery{Kind: RecoverNone, LostBytes: omitted},
		Diagnostics: append([]string{}, a.notes...), HeadEnd: headEnd, TailStart: tailStart,
		Route: a.route.Name, Estimator: a.est.Name(),
	}
	if omitted == 0 {
		o.Recovery.Kind = ""
	}
	orig, exact := a.original(int(min(p.TokenBudget(), math.MaxInt32)))
	o.OriginalTokens, o.OriginalTokensExact = orig.Total, exact
	o.Tokens = a.priceBuilt(c)
	return o
}

// codexItems is what history records: truncate_function_output_payload
// with the allowance already in p. Each item spends one budget in order:
// empty texts are dropped, texts are kept while they fit, the first that
// does not is cut to what remains, later texts are omitted and counted;
// images and other items are kept and free; audio is priced and omitted
// when it does not fit. Omissions are counted in closing text items.
func (a *Analysis) codexItems(p CodexTruncation, audioTokens func(Block) int64) Outcome {
	remaining := p.TokenBudget()
	if !p.Tokens {
		remaining = p.ByteBudget()
	}
	points := a.codePoints()
	var c contentBuilder
	var kept int64
	var omittedText, omittedAudio, dropped int
	var headEnd, tailStart *Position
	changed := false
	var diags []string
	for i, bi := range a.blocks {
		switch bi.kind {
		case TypeText:
			t := bi.text
			if t == "" {
				dropped++
				changed = true
				continue
			}
			if remaining == 0 {
				omittedText++
				changed = true
				continue
			}
			cost := int64(len(t))
			if p.Tokens {
				cost = (cost + bytesPerToken - 1) / bytesPerToken
			}
			if cost <= remaining {
				c.text(SpanKept, i, 0, t)
				c.end()
				kept += int64(len(t))
				remaining -= cost
				continue
			}
			maxBytes := remaining
			if p.Tokens {
				maxBytes = remaining * bytesPerToken
			}
			cut := codexTruncate(t, points[i], maxBytes, p.Tokens)
			if cut.PrefixEnd > 0 {
				c.text(SpanKept, i, 0, t[:cut.PrefixEnd])
			}
			c.text(SpanMarker, -1, 0, cut.Marker)
			if cut.SuffixStart < len(t) {
				c.text(SpanKept, i, int64(cut.SuffixStart), t[cut.SuffixStart:])
			}
			c.end()
			kept += int64(cut.PrefixEnd + len(t) - cut.SuffixStart)
			headEnd = &Position{Block: i, Offset: int64(cut.PrefixEnd)}
			tailStart = &Position{Block: i, Offset: int64(cut.SuffixStart)}
			remaining = 0
			changed = true
		case TypeImage:
			c.image(i, a.imageBlock(i))
		case "":
			b := a.res.Content[i]
			if b.Type != TypeAudio {
				if b.Type != TypeResource && b.Type != TypeResourceLink {
					diags = append(diags, fmt.Sprintf("block %d has type %q; kept in place and free, as Codex keeps encrypted content", i, b.Type))
				}
				c.other(i, b)
				continue
			}
			cost := audioTokens(b)
			if !p.Tokens {
				cost *= bytesPerToken
			}
			if cost <= remaining {
				c.other(i, b)
				remaining -= cost
				continue
			}
			omittedAudio++
			changed = true
		}
	}
	if !changed {
		return a.keep(StatusWithinBudget, nil, diags...)
	}
	var notice string
	if omittedText > 0 {
		notice = fmt.Sprintf(codexOmittedText, omittedText)
		c.text(SpanNotice, -1, 0, notice)
		c.end()
	}
	if omittedAudio > 0 {
		n := fmt.Sprintf(codexOmittedAud, omittedAudio)
		c.text(SpanNotice, -1, 0, n)
		c.end()
		notice = strings.TrimSpace(notice + " " + n)
	}
	if dropped > 0 {
		diags = append(diags, fmt.Sprintf("%d empty text items dropped", dropped))
	}
	if headEnd != nil && notice == "" {
		for _, sp := range c.spans {
			if sp.Kind == SpanMarker {
				notice = c.blocks[sp.Out].Text[sp.OutStart:sp.OutEnd]
			}
		}
	}
	o := a.codexOutcome(c, kept, notice, headEnd, tailStart, p)
	o.Diagnostics = append(o.Diagnostics, diags...)
	if len(o.Content) == 0 {
		o.Content = []Block{}
	}
	return o
}

// codexAudioTokens is estimate_audio_token_count of an audio item's data
// URL. Codex measures decoded duration at 10 tokens a second where it can
// decode the clip and falls back to ceil(len(url)/4); Spillscope decodes no
// audio, so the fallback is what it reproduces.
func codexAudioTokens(b Block) int64 {
	url := b.URI
	if b.Data != "" {
		url = "data:" + b.MimeType + ";base64," + b.Data
	}
	return int64(ceilDiv4(len(url)))
}

// codexMCP is truncate_mcp_tool_result: the result serialised as
// {"content":[...],"isError":...} and, when longer than the byte budget,
// replaced by one text block cut from that JSON as Bytes(budget), with
// isError kept and structuredContent and _meta dropped. Spillscope's Result
// holds neither of those two, so the serialisation has content and isError
// only.
func (a *Analysis) codexMCP(p CodexTruncation) Outcome {
	ser := a.derive("codex/mcp", func() any {
		js, err := codexSerialise(a.res)
		return codexSerialised{js, int64(utf8.RuneCountInString(js)), err}
	}).(codexSerialised)
	js, err := ser.json, ser.err
	if err != nil {
		return a.keep(StatusWithinBudget, nil, "the result does not serialise: "+err.Error()+"; Codex keeps it")
	}
	max := p.ByteBudget()
	if int64(len(js)) <= max {
		return a.keep(StatusWithinBudget, nil)
	}
	cut := codexTruncate(js, ser.chars, max, false)
	var c contentBuilder
	// Kept spans with block -1 are bytes of the serialised result.
	if cut.PrefixEnd > 0 {
		c.text(SpanKept, -1, 0, js[:cut.PrefixEnd])
	}
	c.text(SpanMarker, -1, 0, cut.Marker)
	if cut.SuffixStart < len(js) {
		c.text(SpanKept, -1, int64(cut.SuffixStart), js[cut.SuffixStart:])
	}
	c.end()
	kept := int64(cut.PrefixEnd + len(js) - cut.SuffixStart)
	omitted := int64(len(js)) - kept
	o := Outcome{
		Status: StatusReplaced, Content: c.blocks, Spans: c.spans, Notice: cut.Marker, OmittedBytes: omitted,
		Recovery:    Recovery{Kind: RecoverNone, LostBytes: omitted, LostImages: a.images},
		Diagnostics: append(append([]string{}, a.notes...), fmt.Sprintf("MCP rule: the serialised result (%d bytes) previewed as Bytes(%d); isError %v kept", len(js), max, a.res.IsError)),
		Route:       a.route.Name, Estimator: a.est.Name(),
	}
	orig, exact := a.original(int(min(p.TokenBudget(), math.MaxInt32)))
	o.OriginalTokens, o.OriginalTokensExact = orig.Total, exact
	o.Tokens = a.priceBuilt(c)
	return o
}

// codexSerialised is a result's serialisation, kept on the Analysis.
type codexSerialised struct {
	json  string
	chars int64
	err   error
}

// codexSerialise writes a result as serde_json writes a CallToolResult:
// fields in declaration order, no spaces, each content block's keys in the
// order recorded (serde_json's preserve_order), strings escaped as serde
// escapes them (quote, backslash and control characters only).
func codexSerialise(res Result) (string, error) {
	var b strings.Builder
	b.WriteString(`{"content":[`)
	for i, blk := range res.Content {
		if i > 0 {
			b.WriteByte(',')
		}
		raw := []byte(blk.Raw)
		if len(raw) == 0 && blk.Type == TypeText && blk.Annotations == nil {
			// A text block parsed without its raw JSON (the fast parser
			// keeps none for text): written in mcp-types' TextContent field
			// order (annotations, text, type), as serde writes that struct.
			b.WriteString(`{"text":`)
			b.WriteString(jsString(blk.Text))
			b.WriteString(`,"type":"text"}`)
			continue
		}
		if len(raw) == 0 {
			var err error
			if raw, err = json.Marshal(blk); err != nil {
				return "", err
			}
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := serdeValue(&b, dec); err != nil {
			return "", fmt.Errorf("block %d: %w", i, err)
		}
	}
	b.WriteString(`],"isError":`)
	b.WriteString(strconv.FormatBool(res.IsError))
	b.WriteByte('}')
	return b.String(), nil
}

func serdeValue(b *strings.Builder, dec *json.Decoder) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch v := tok.(type) {
	case json.Delim:
		closing := byte(']')
		if v == '{' {
			closing = '}'
		}
		b.WriteByte(byte(v))
		for first := true; dec.More(); first = false {
			if !first {
				b.WriteByte(',')
			}
			if v == '{' {
				key, err := dec.Token()
				if err != nil {
					return err
				}
				k, _ := key.(string)
				b.WriteString(jsString(k))
				b.WriteByte(':')
			}
			if err := serdeValue(b, dec); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil {
			return err
		}
		b.WriteByte(closing)
	case string:
		b.WriteString(jsString(v))
	case json.Number:
		b.WriteString(v.String())
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case nil:
		b.WriteString("null")
	}
	return nil
}
