package retention

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Claude Code's large tool result persistence. Claude Code is closed
// source; this follows what its behaviour shows and third-party readings of
// its 2.1.x bundle ([D]/[R] in spec/POLICIES.md; utils/toolResultStorage,
// utils/format, utils/mcpValidation, constants/toolLimits), checked against
// the shared fixtures' notices (2.1.39 and 2.1.85, reproduced byte for byte
// in policy_claudecode_real_test.go):
//
//   - A result longer than its tool's threshold, in characters (UTF-16
//     units, JavaScript's length), is saved whole to
//     <project>/<session>/tool-results/<tool_use_id>.txt (.json, the
//     blocks as JSON.stringify(content, null, 2), for an array of content
//     blocks) and replaced by the <persisted-output> wrapper with a 2,000
//     unit preview. The threshold is min(the tool's declared limit,
//     DEFAULT_MAX_RESULT_SIZE_CHARS = 50,000; 100,000 before 2.1.51); Bash
//     declares 30,000, Grep 20,000, MCP tools 100,000; Read never persists.
//   - Results holding an image are never persisted; an array holding other
//     non-text blocks cannot be, and stays as it is.
//   - The preview is the first 2,000 units, cut back to the last newline
//     when that lies past unit 1,000; "\n...\n" follows when more did.
//   - MCP: a response over MAX_MCP_OUTPUT_TOKENS (25,000) tokens either
//     failed with an error naming the count (older builds) or is cut to
//     4 x MAX characters with a truncation notice (2.1.x). The count is
//     Anthropic's token-counting API's, after a pre-check of
//     round(length/4) per text and 1,600 per image that skips the count
//     when it is at most half the limit. Spillscope has no Claude
//     tokenizer: the count is the Analysis's estimator's, and the outcome
//     says so.
//   - Per message: the 200,000-character budget over one user message's
//     results is ClaudeMessageBudget, a function over several results.

// Claude Code's limits, in UTF-16 units unless they say tokens.
const (
	ClaudeMaxResultChars     = 50000
	ClaudeBashResultChars    = 30000
	ClaudeGrepResultChars    = 20000
	ClaudeMCPResultChars     = 100000
	ClaudePreviewChars       = 2000
	ClaudeMessageBudgetChars = 200000
	ClaudeMCPMaxTokens       = 25000
	claudeMCPImageTokens     = 1600
)

// Claude Code's wrapper texts.
const (
	ClaudePersistedOpen  = "<persisted-output>"
	ClaudePersistedClose = "</persisted-output>"
	claudeTooLarge       = "Output too large ("
	claudeSavedTo        = "). Full output saved to: "
	claudePreviewLine    = "\n\nPreview (first "
	claudeMore           = "\n...\n"
)

// ClaudeMCPTruncationNotice is what 2.1.x appends to an MCP response it
// cut to 4 x max characters.
func ClaudeMCPTruncationNotice(max int64) string {
	return "\n\n[OUTPUT TRUNCATED - exceeded " + strconv.FormatInt(max, 10) + " token limit]\n\n" +
		"The tool output was truncated. If this MCP server provides pagination or filtering tools, use them to retrieve specific portions of the data. If pagination is not available, inform the user that you are working with truncated output and results may be incomplete."
}

// ClaudeMCPError is the older builds' failure for an MCP response over the
// limit; name is the server's own tool name.
func ClaudeMCPError(name string, tokens, max int64) string {
	return "MCP tool \"" + name + "\" response (" + strconv.FormatInt(tokens, 10) + " tokens) exceeds maximum allowed tokens (" +
		strconv.FormatInt(max, 10) + "). Please use pagination, filtering, or limit parameters to reduce the response size."
}

// ClaudeFormatSize is Claude Code's formatFileSize: bytes under 1 KiB,
// else KB, MB or GB (powers of 1024) to one decimal, a trailing ".0"
// dropped, rounded as JavaScript's toFixed rounds the exact quotient (half
// up). It is applied to lengths in UTF-16 units, as Claude Code applies it.
// The fixtures' 144,356 and 33,643 print as 141KB and 32.9KB.
func ClaudeFormatSize(n int64) string {
	if n < 1024 {
		return strconv.FormatInt(n, 10) + " bytes"
	}
	unit, div := "KB", int64(1024)
	switch {
	case n >= 1<<30:
		unit, div = "GB", 1<<30
	case n >= 1<<20:
		unit, div = "MB", 1<<20
	}
	// tenths = round half up of 10n/div, exact in integers.
	tenths := (20*n + div) / (2 * div)
	s := strconv.FormatInt(tenths/10, 10)
	if d := tenths % 10; d != 0 {
		s += "." + strconv.FormatInt(d, 10)
	}
	return s + unit
}

// ClaudePersistedMessage is buildLargeToolResultMessage: the wrapper for a
// result of originalSize units saved at path, with its preview.
func ClaudePersistedMessage(originalSize int64, path, preview string, hasMore bool) string {
	end := "\n"
	if hasMore {
		end = claudeMore
	}
	return ClaudePersistedOpen + "\n" + claudeTooLarge + ClaudeFormatSize(originalSize) + claudeSavedTo + path +
		claudePreviewLine + ClaudeFormatSize(ClaudePreviewChars) + "):\n" + preview + end + ClaudePersistedClose
}

// ClaudePreview is generatePreview(content, 2000) on UTF-8 text: the bytes
// of the preview, whether more followed, and whether the cut fell between
// the halves of a surrogate pair. Claude Code then keeps the lone first
// half, which its log records as an escape that a JSON reader reads as
// U+FFFD; the caller appends that.
func ClaudePreview(s string) (end int, hasMore, splitPair bool) {
	end, splitPair = utf16Prefix(s, ClaudePreviewChars)
	if end == len(s) {
		return len(s), false, false
	}
	if nl := strings.LastIndexByte(s[:end], '\n'); nl >= 0 && utf16Len(s[:nl]) > ClaudePreviewChars/2 {
		return nl, true, false
	}
	return end, true, splitPair
}

// utf16Prefix is the byte end of the first n UTF-16 units of s; split says
// the nth unit is the first half of a surrogate pair, left out here.
func utf16Prefix(s string, n int) (end int, split bool) {
	u := 0
	for i := 0; i < len(s); {
		c := s[i]
		w, units := 1, 1
		switch {
		case c >= 0xF0:
			w, units = 4, 2
		case c >= 0xE0:
			w = 3
		case c >= 0xC0:
			w = 2
		}
		if u+units > n {
			return i, u < n
		}
		u += units
		i += w
	}
	return len(s), false
}

// ClaudeToolResultPath is where Claude Code saves a persisted result:
// <project dir>/<session id>/tool-results/<tool_use_id>.txt, or .json for
// an array of content blocks.
func ClaudeToolResultPath(projectDir, sessionID, toolUseID string, isJSON bool) string {
	ext := ".txt"
	if isJSON {
		ext = ".json"
	}
	return filepath.Join(projectDir, sessionID, "tool-results", toolUseID+ext)
}

// claudeDefaultSpill is the locator named when the call gives none.
const claudeDefaultProject = "~/.claude/projects/<project>"

type claudeCode struct{}

func init() { RegisterPolicy(claudeCode{}) }

func (claudeCode) Info() PolicyInfo {
	return PolicyInfo{
		Name: "claude-code", Harness: "Claude Code", Version: "2.1.x",
		Summary:   "a result over its tool's character threshold (50,000; Bash 30,000; Read never) is saved whole under tool-results/ and replaced by a <persisted-output> wrapper with a 2,000-character preview; MCP responses over 25,000 tokens fail or are cut",
		Source:    "closed source: Claude Code 2.1.x behaviour ([D]/[R] readings of toolResultStorage, format, mcpValidation, toolLimits), checked against the fixtures' 2.1.39 and 2.1.85 notices",
		Estimator: DefaultEncoding, Budget: "threshold", Unit: "chars",
		Params: []Param{
			{Name: "threshold", Kind: ParamInt, Unit: "chars", Default: strconv.Itoa(ClaudeMaxResultChars), Min: 0, Max: MaxBudget, Off: true,
				Doc: "DEFAULT_MAX_RESULT_SIZE_CHARS, the ceiling each tool's own limit is clamped to (100000 before 2.1.51); off is the shipped 50000"},
			{Name: "tool", Kind: ParamChoice, Choices: []string{"auto", "Bash", "Grep", "Read", "mcp", "other"}, Default: "auto",
				Doc: "whose declared limit applies: Bash 30000, Grep 20000, Read never, mcp 100000, other the ceiling; auto reads the call's tool name"},
			{Name: "content", Kind: ParamChoice, Choices: []string{"auto", "string", "array"}, Default: "auto",
				Doc: "the tool_result content as a string (.txt file) or an array of blocks (.json file); auto: a string for one text block"},
			{Name: "mcp", Kind: ParamChoice, Choices: []string{"off", "error", "truncate"}, Default: "off",
				Doc: "the MCP token limit: error (older builds: the call fails), truncate (2.1.x: cut to 4 x max characters), off (not an MCP call)"},
			{Name: "MAX_MCP_OUTPUT_TOKENS", Kind: ParamInt, Unit: "tokens", Default: strconv.Itoa(ClaudeMCPMaxTokens), Min: 1, Max: MaxBudget / 8,
				Doc: "the MCP response limit, counted on the Analysis's estimator (Claude Code counts with Anthropic's API)"},
		},
		Recoverable: RecoverFile,
	}
}

// claudePiece is part of the content being built: original text of a block
// (block >= 0), text the harness wrote (block -1, kind), or an image.
type claudePiece struct {
	kind  string
	block int
	start int64
	text  string
	image bool
	other *Block
}

// claudeContent is the tool_result content in Claude Code's shape: one
// string, or an array of blocks (each a list of pieces).
type claudeContent struct {
	array  bool
	blocks [][]claudePiece
}

func (c claudeContent) text(i int) string {
	if len(c.blocks[i]) == 1 {
		return c.blocks[i][0].text
	}
	var sb strings.Builder
	for _, p := range c.blocks[i] {
		sb.WriteString(p.text)
	}
	return sb.String()
}

// size is contentSize: the string's length, or the text blocks' summed
// lengths, in UTF-16 units.
func (c claudeContent) size() int64 {
	var n int64
	for _, b := range c.blocks {
		for _, p := range b {
			if !p.image && p.other == nil {
				n += int64(utf16Len(p.text))
			}
		}
	}
	return n
}

func (claudeCode) Decide(a *Analysis, s Settings) Outcome {
	ceiling, on := s.Budget()
	if !on {
		ceiling = ClaudeMaxResultChars
	}
	bp := &ceiling
	tool := s.String("tool")
	if tool == "auto" {
		tool = claudeToolKind(a)
	}
	if tool == "Read" {
		return a.keep(StatusPassThrough, bp, "Read never persists its results (maxResultSizeChars is Infinity)")
	}
	threshold := ceiling
	switch tool {
	case "Bash":
		threshold = min(ClaudeBashResultChars, ceiling)
	case "Grep":
		threshold = min(ClaudeGrepResultChars, ceiling)
	case "mcp":
		threshold = min(ClaudeMCPResultChars, ceiling)
	}
	cc, diags := a.claudeContent(s.String("content"))
	var lostBytes int64
	var lostImages int
	mcpDone := false
	if mode := s.String("mcp"); mode != "off" {
		max := s.Int("MAX_MCP_OUTPUT_TOKENS")
		if tokens, over := a.claudeMCPOver(cc, max); over {
			if mode == "error" {
				return a.claudeMCPFailure(bp, max, tokens, diags)
			}
			var d []string
			cc, lostBytes, lostImages, d = a.claudeMCPTruncate(cc, max)
			diags = append(diags, fmt.Sprintf("MCP response of %d tokens on %s is over MAX_MCP_OUTPUT_TOKENS %d; cut to %d characters", tokens, a.est.Name(), max, 4*max))
			diags = append(diags, d...)
			mcpDone = true
		}
	}
	diags = append(diags, fmt.Sprintf("threshold %d characters (%s)", threshold, tool))
	o, persisted := a.claudePersist(cc, threshold, !mcpDone, diags)
	if !persisted && !mcpDone {
		o.Budget = bp
		return o
	}
	if !persisted {
		o = a.claudeBuilt(cc, "", diags)
	}
	o.Budget = bp
	o.Recovery.LostBytes += lostBytes
	o.Recovery.LostImages += lostImages
	if o.Recovery.Kind == "" && (lostBytes > 0 || lostImages > 0) {
		o.Recovery.Kind = RecoverNone
	}
	o.OmittedImages += lostImages
	return o
}

// claudeToolKind reads the call's tool name.
func claudeToolKind(a *Analysis) string {
	name := a.call.ToolName
	switch {
	case a.isReadTool() || name == "Read":
		return "Read"
	case name == "Bash" || name == "Grep":
		return name
	case strings.HasPrefix(name, "mcp__"):
		return "mcp"
	}
	return "other"
}

// claudeContent is the result in Claude Code's shape.
func (a *Analysis) claudeContent(mode string) (claudeContent, []string) {
	var diags []string
	texts, others := 0, 0
	for _, bi := range a.blocks {
		if bi.kind == TypeText {
			texts++
		} else {
			others++
		}
	}
	array := mode == "array" || (mode == "auto" && (texts != 1 || others > 0))
	if mode == "string" && others > 0 {
		diags = append(diags, "content=string cannot hold non-text blocks; read as an array")
		array = true
	}
	var c claudeContent
	c.array = array
	if !array {
		var one []claudePiece
		for i, bi := range a.blocks {
			one = append(one, claudePiece{kind: SpanKept, block: i, text: bi.text})
		}
		if texts > 1 {
			diags = append(diags, fmt.Sprintf("content=string: %d text blocks read as one string, joined with nothing between them", texts))
		}
		c.blocks = [][]claudePiece{one}
		return c, diags
	}
	for i, bi := range a.blocks {
		switch bi.kind {
		case TypeText:
			c.blocks = append(c.blocks, []claudePiece{{kind: SpanKept, block: i, text: bi.text}})
		case TypeImage:
			c.blocks = append(c.blocks, []claudePiece{{kind: SpanKept, block: i, image: true}})
		default:
			b := a.res.Content[i]
			c.blocks = append(c.blocks, []claudePiece{{kind: SpanKept, block: i, other: &b}})
		}
	}
	return c, diags
}

// claudeMCPOver is mcpContentNeedsTruncation: the pre-check, then the
// count on the Analysis's estimator (text totals, images at their route
// price or 1,600 when unpriced).
func (a *Analysis) claudeMCPOver(c claudeContent, max int64) (int64, bool) {
	var rough int64
	for _, b := range c.blocks {
		for _, p := range b {
			switch {
			case p.image:
				rough += claudeMCPImageTokens
			case p.other == nil:
				rough += (int64(utf16Len(p.text)) + 2) / 4
			}
		}
	}
	if rough*2 <= max {
		return rough, false
	}
	var count int64
	for i, bi := range a.blocks {
		switch {
		case bi.kind == TypeText:
			count += int64(bi.cost.Total())
		case bi.kind == TypeImage && bi.priced:
			count += int64(bi.price.Total())
		case bi.kind == TypeImage:
			count += claudeMCPImageTokens
		default:
			if n, ok := a.est.Structural(a.res.Content[i].Raw); ok {
				count += int64(n)
			}
		}
	}
	return count, count > max
}

// claudeMCPFailure is the older builds' answer: the call fails with an
// error naming the count; nothing of the response reaches the model.
func (a *Analysis) claudeMCPFailure(bp *int64, max, tokens int64, diags []string) Outcome {
	name := a.call.ToolName
	if rest, ok := strings.CutPrefix(name, "mcp__"); ok {
		if _, tool, ok := strings.Cut(rest, "__"); ok {
			name = tool
		}
	}
	if name == "" {
		name = "tool"
	}
	msg := ClaudeMCPError(name, tokens, max)
	var c contentBuilder
	c.text(SpanNotice, -1, 0, msg)
	o := Outcome{
		Status: StatusNoticeOnly, Content: c.blocks, Spans: c.spans, Notice: msg,
		OmittedBytes: a.textBytes, OmittedImages: a.images,
		Recovery: Recovery{Kind: RecoverNone, LostBytes: a.textBytes, LostImages: a.images}, Budget: bp,
		Diagnostics: append(append(append([]string{}, a.notes...), diags...),
			fmt.Sprintf("the count is %s's (Claude Code counts with Anthropic's token-counting API); the call is reported as an error", a.est.Name())),
		Route: a.route.Name, Estimator: a.est.Name(),
	}
	orig, exact := a.original(int(max))
	o.OriginalTokens, o.OriginalTokensExact = orig.Total, exact
	o.Tokens = a.priceBuilt(c)
	return o
}

// claudeMCPTruncate is truncateMcpContent: a string keeps its first 4 x max
// units; an array keeps text blocks while they fit (the first that does not
// is cut to what remains, and the walk stops), images at 6,400 characters
// each while they fit, other blocks; then the notice. Claude Code
// re-encodes an image that does not fit smaller; Spillscope re-encodes
// nothing, so such an image is dropped and counted lost.
func (a *Analysis) claudeMCPTruncate(c claudeContent, max int64) (claudeContent, int64, int, []string) {
	maxChars := 4 * max
	notice := ClaudeMCPTruncationNotice(max)
	var lost int64
	var lostImages int
	var diags []string
	if !c.array {
		var kept []claudePiece
		left := maxChars
		for _, p := range c.blocks[0] {
			n := int64(utf16Len(p.text))
			if n <= left {
				kept = append(kept, p)
				left -= n
				continue
			}
			end, split := utf16Prefix(p.text, int(left))
			if end > 0 {
				kept = append(kept, claudePiece{kind: SpanKept, block: p.block, start: p.start, text: p.text[:end]})
			}
			if split {
				kept = append(kept, claudePiece{kind: SpanWrapper, block: -1, text: string(utf8.RuneError)})
			}
			lost += int64(len(p.text) - end)
			left = 0
		}
		kept = append(kept, claudePiece{kind: SpanNotice, block: -1, text: notice})
		c.blocks = [][]claudePiece{kept}
		return c, lost, 0, diags
	}
	var out [][]claudePiece
	var current int64
	stopped := false
	for _, b := range c.blocks {
		p := b[0]
		if stopped {
			lost += int64(len(p.text))
			if p.image {
				lostImages++
			}
			continue
		}
		switch {
		case p.image:
			if current+4*claudeMCPImageTokens <= maxChars {
				out = append(out, b)
				current += 4 * claudeMCPImageTokens
				continue
			}
			lostImages++
			diags = append(diags, fmt.Sprintf("image block %d does not fit what remains; Claude Code would re-encode it smaller, Spillscope drops it", p.block))
		case p.other != nil:
			out = append(out, b)
		default:
			left := maxChars - current
			if left <= 0 {
				stopped = true
				lost += int64(len(p.text))
				continue
			}
			n := int64(utf16Len(p.text))
			if n <= left {
				out = append(out, b)
				current += n
				continue
			}
			end, split := utf16Prefix(p.text, int(left))
			cut := []claudePiece{{kind: SpanKept, block: p.block, text: p.text[:end]}}
			if split {
				cut = append(cut, claudePiece{kind: SpanWrapper, block: -1, text: string(utf8.RuneError)})
			}
			out = append(out, cut)
			lost += int64(len(p.text) - end)
			stopped = true
		}
	}
	out = append(out, []claudePiece{{kind: SpanNotice, block: -1, text: notice}})
	c.blocks = out
	return c, lost, lostImages, diags
}

// claudeFile is the text of the file a persisted result is saved to: the
// string, or JSON.stringify(blocks, null, 2) of an array of text blocks.
func claudeFile(c claudeContent) string {
	if !c.array {
		return c.text(0)
	}
	if len(c.blocks) == 0 {
		return "[]"
	}
	var sb strings.Builder
	sb.WriteString("[\n")
	for i := range c.blocks {
		if i > 0 {
			sb.WriteString(",\n")
		}
		sb.WriteString("  {\n    \"type\": \"text\",\n    \"text\": ")
		sb.WriteString(jsString(c.text(i)))
		sb.WriteString("\n  }")
	}
	sb.WriteString("\n]")
	return sb.String()
}

// claudePersist is maybePersistLargeToolResult on built content: the
// outcome and whether the content was persisted.
func (a *Analysis) claudePersist(c claudeContent, threshold int64, pristine bool, diags []string) (Outcome, bool) {
	// Sizes depend on the result alone unless an MCP cut changed it:
	// then they are kept on the Analysis.
	size := func() int64 {
		if !pristine {
			return c.size()
		}
		return a.derive("claude-code/size/"+strconv.FormatBool(c.array), func() any { return c.size() }).(int64)
	}
	if c.array {
		for _, b := range c.blocks {
			if b[0].image {
				return a.keep(StatusWithinBudget, nil, append(diags, "results holding an image are never persisted")...), false
			}
		}
		for _, b := range c.blocks {
			if b[0].other != nil {
				if size() <= threshold {
					return a.keep(StatusWithinBudget, nil, diags...), false
				}
				return a.keep(StatusPreserved, nil, append(diags, fmt.Sprintf("block %d has type %q: Claude Code cannot persist non-text content and keeps the result", b[0].block, b[0].other.Type))...), false
			}
		}
	}
	if size() <= threshold {
		return a.keep(StatusWithinBudget, nil, diags...), false
	}
	ff := func() any {
		f := claudeFile(c)
		n := size()
		if c.array {
			n = int64(utf16Len(f))
		}
		return claudeSaved{f, n}
	}
	var saved claudeSaved
	if pristine {
		saved = a.derive("claude-code/file/"+strconv.FormatBool(c.array), ff).(claudeSaved)
	} else {
		saved = ff().(claudeSaved)
	}
	file, original := saved.text, saved.units
	ref := a.call.Spill
	if ref.Locator == "" {
		ref.Locator = ClaudeToolResultPath(claudeDefaultProject, "<session>", "<tool_use_id>", c.array)
	}
	end, more, split := ClaudePreview(file)
	notice := claudeTooLarge + ClaudeFormatSize(original) + claudeSavedTo + ref.Locator
	var b contentBuilder
	b.text(SpanWrapper, -1, 0, ClaudePersistedOpen+"\n")
	b.text(SpanNotice, -1, 0, notice+claudePreviewLine+ClaudeFormatSize(ClaudePreviewChars)+"):\n")
	var kept int64
	if c.array {
		// A preview of the .json file: kept spans with block -1 are byte
		// ranges of that file (Outcome.CompleteFile).
		if end > 0 {
			b.text(SpanKept, -1, 0, file[:end])
		}
	} else {
		kept = claudeAddPrefix(&b, c.blocks[0], int64(end))
	}
	if split {
		b.text(SpanWrapper, -1, 0, string(utf8.RuneError))
		diags = append(diags, "the preview's last unit is the first half of a surrogate pair: Claude Code keeps it alone, which its log records as an escape read back as U+FFFD")
	}
	if more {
		b.text(SpanMarker, -1, 0, claudeMore)
	} else {
		b.text(SpanWrapper, -1, 0, "\n")
	}
	b.text(SpanWrapper, -1, 0, ClaudePersistedClose)
	// Omitted bytes are the original text's not shown, or for an array the
	// .json file's.
	omitted := a.textBytes - kept
	if c.array {
		omitted = int64(len(file) - end)
	}
	o := Outcome{
		Status: StatusReplaced, Content: b.blocks, Spans: b.spans, Notice: notice, OmittedBytes: omitted,
		Recovery: Recovery{Kind: RecoverFile, Locator: ref.Locator}, CompleteFile: file,
		Diagnostics: append(append([]string{}, a.notes...), diags...),
		Route:       a.route.Name, Estimator: a.est.Name(),
	}
	if !c.array {
		headEnd := claudePosition(c.blocks[0], int64(end), len(a.blocks))
		o.HeadEnd = &headEnd
	}
	orig, exact := a.original(int(min(threshold, 1<<31-1)))
	o.OriginalTokens, o.OriginalTokensExact = orig.Total, exact
	o.Tokens = a.priceBuilt(b)
	return o, true
}

// claudeSaved is the text of a persisted result's file and its length in
// UTF-16 units.
type claudeSaved struct {
	text  string
	units int64
}

// claudeAddPrefix adds the first n bytes of a string's pieces, and returns
// the original bytes among them.
func claudeAddPrefix(b *contentBuilder, pieces []claudePiece, n int64) int64 {
	var at, kept int64
	for _, p := range pieces {
		if at >= n {
			break
		}
		take := min(int64(len(p.text)), n-at)
		if take > 0 {
			b.text(p.kind, p.block, p.start, p.text[:take])
			if p.block >= 0 {
				kept += take
			}
		}
		at += int64(len(p.text))
	}
	return kept
}

// claudePosition maps a byte offset of a string's pieces to the original.
func claudePosition(pieces []claudePiece, off int64, blocks int) Position {
	var at int64
	for _, p := range pieces {
		if p.block >= 0 && off >= at && off <= at+int64(len(p.text)) {
			return Position{Block: p.block, Offset: p.start + off - at}
		}
		at += int64(len(p.text))
	}
	return Position{Block: blocks}
}

// claudeBuilt is content that changed without being persisted (an MCP cut
// that kept an image or stayed under the threshold).
func (a *Analysis) claudeBuilt(c claudeContent, notice string, diags []string) Outcome {
	var b contentBuilder
	var kept int64
	for _, blk := range c.blocks {
		for _, p := range blk {
			switch {
			case p.image:
				b.image(p.block, a.imageBlock(p.block))
			case p.other != nil:
				b.other(p.block, *p.other)
			default:
				b.text(p.kind, p.block, p.start, p.text)
				if p.block >= 0 {
					kept += int64(len(p.text))
				}
				if p.kind == SpanNotice {
					notice = p.text
				}
			}
		}
		b.end()
	}
	o := Outcome{
		Status: StatusReplaced, Content: b.blocks, Spans: b.spans, Notice: notice, OmittedBytes: a.textBytes - kept,
		Diagnostics: append(append([]string{}, a.notes...), diags...),
		Route:       a.route.Name, Estimator: a.est.Name(),
	}
	orig, exact := a.original(1<<31 - 1)
	o.OriginalTokens, o.OriginalTokensExact = orig.Total, exact
	o.Tokens = a.priceBuilt(b)
	return o
}
