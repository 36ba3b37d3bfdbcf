package retention

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Gemini CLI's tool-output truncation.
//
// Current (google-gemini/gemini-cli @ 017967b3,
// packages/core/src/utils/fileUtils.ts formatTruncatedToolOutput and
// saveTruncatedToolOutput; the threshold from config.ts @ 0027ff71,
// DEFAULT_TRUNCATE_TOOL_OUTPUT_THRESHOLD = 40,000): a tool result that is one
// text (a tool's string output, or an MCP tool's single text part) longer
// than tools.truncateToolOutputThreshold JavaScript characters (UTF-16 code
// units) keeps its first 20% and last 80% of the threshold, after the line
// "Output too large. Showing first X and last Y characters. For full output
// see: <file>" and around "... [N characters omitted] ...", the counts
// written with en-US digit grouping; the whole text goes to
// <project temp>/tool-outputs/[session-<id>/]<tool>_<call id>.txt. Some
// releases lower the threshold to 4 × the context tokens left; a recorded
// notice states the threshold used (X + Y).
//
// Older (packages/core/src/core/coreToolScheduler.ts truncateAndSaveToFile,
// the releases with tools.truncateToolOutputLines; shipped 4,000,000
// characters and 1,000 lines; the shell tool only): over the threshold, the
// output's lines (lines longer than 120 characters first wrapped, when there
// are no more lines than the limit) keep the first fifth of the line limit
// and the rest from the end around "... [CONTENT TRUNCATED] ...", after a
// paragraph naming <project temp>/<call id>.output, which holds the (wrapped)
// output.
//
// Where JavaScript would cut a surrogate pair (a character above U+FFFF),
// the cut moves to the pair's edge, keeping less: JavaScript's lone half
// would reach the model as U+FFFD. The notice's figures stay the harness's.

// GeminiThreshold is the current DEFAULT_TRUNCATE_TOOL_OUTPUT_THRESHOLD.
const GeminiThreshold = 40_000

// GeminiOlderLines is the older DEFAULT_TRUNCATE_TOOL_OUTPUT_LINES.
const GeminiOlderLines = 1000

// geminiShellTool is Gemini CLI's SHELL_TOOL_NAME.
const geminiShellTool = "run_shell_command"

// GeminiUnsavedPath is the file a notice names when the call names none:
// the shape of Gemini CLI's current location.
const GeminiUnsavedPath = "~/.gemini/tmp/project/tool-outputs/tool_unsaved.txt"

const (
	geminiLead        = "Output too large. Showing first "
	geminiSee         = " characters. For full output see: "
	geminiOlderLead   = "Tool output was too large and has been truncated.\nThe full output has been saved to: "
	geminiOlderMarker = "\n... [CONTENT TRUNCATED] ...\n"
	geminiOlderWrap   = 120
)

// geminiOlderGuide is what the older notice says after the file's line.
const geminiOlderGuide = "\nTo read the complete output, use the read_file tool with the absolute file path above. For large files, you can use the offset and limit parameters to read specific sections:\n" +
	"- read_file tool with offset=0, limit=100 to see the first 100 lines\n" +
	"- read_file tool with offset=N to skip N lines from the beginning\n" +
	"- read_file tool with limit=M to read only M lines at a time\n" +
	"The truncated output below shows the beginning and end of the content. The marker '... [CONTENT TRUNCATED] ...' indicates where content was removed.\n" +
	"This allows you to efficiently examine different parts of the output without loading the entire file.\n" +
	"Truncated part of the output:\n"

// FormatGeminiNotice is the current notice's first line, its newline
// included.
func FormatGeminiNotice(first, last int64, file string) string {
	return geminiLead + GroupDigits(first) + " and last " + GroupDigits(last) + geminiSee + file + "\n"
}

// FormatGeminiMarker is the current marker between head and tail.
func FormatGeminiMarker(omitted int64) string {
	return "\n\n... [" + GroupDigits(omitted) + " characters omitted] ...\n\n"
}

// FormatGeminiOlderNotice is the older notice up to the truncated output.
func FormatGeminiOlderNotice(file string) string {
	return geminiOlderLead + file + geminiOlderGuide
}

// GroupDigits writes n as Number.prototype.toLocaleString() does in en-US
// (40000 -> "40,000"): Gemini CLI's notices and the audit report group
// digits so.
func GroupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

type gemini struct{}

func init() { RegisterPolicy(gemini{}) }

func (gemini) Info() PolicyInfo {
	return PolicyInfo{
		Name: "gemini-cli", Harness: "gemini-cli", Version: "current (40,000 characters, 20%/80%); older (lines, .output)",
		Summary: "a one-text result over tools.truncateToolOutputThreshold characters keeps its first 20% and last 80% of the threshold around \"... [N characters omitted] ...\", after a line naming tool-outputs/<tool>_<id>.txt; " +
			"older releases: head and tail lines of the shell tool's output, \"... [CONTENT TRUNCATED] ...\", <id>.output",
		Source:    "google-gemini/gemini-cli @ 017967b3: packages/core/src/utils/fileUtils.ts (formatTruncatedToolOutput, saveTruncatedToolOutput); @ 0027ff71: packages/core/src/config/config.ts; older: packages/core/src/core/coreToolScheduler.ts (truncateAndSaveToFile)",
		Estimator: EstimatorUTF16Units, Budget: "truncateToolOutputThreshold", Unit: "characters",
		Params: []Param{
			{Name: "truncateToolOutputThreshold", Kind: ParamInt, Unit: "characters", Default: strconv.Itoa(GeminiThreshold), Min: 0, Max: MaxBudget, Off: true,
				Doc: "JavaScript characters (UTF-16 code units) of a tool output above which it is truncated (tools.truncateToolOutputThreshold); 0 or off: never"},
			{Name: "truncateToolOutputLines", Kind: ParamInt, Unit: "lines", Default: strconv.Itoa(GeminiOlderLines), Min: 1, Max: MaxBudget,
				Doc: "lines the older truncation keeps (tools.truncateToolOutputLines); the current one has no line limit"},
			{Name: "era", Kind: ParamChoice, Default: "current", Choices: []string{"current", "older"},
				Doc: "current: 20% head and 80% tail in characters; older: head and tail lines of the shell tool's output, saved as <call id>.output"},
			{Name: "tools", Kind: ParamChoice, Default: "all", Choices: []string{"all", "shell"},
				Doc: "all: any tool's text output (current releases); shell: only run_shell_command (some releases, and always in the older era)"},
		},
		Recoverable: RecoverFile,
		RecoverNote: "the file lives under ~/.gemini/tmp/<project>/, which Gemini CLI's session cleanup may remove with its session",
	}
}

func (gemini) Decide(a *Analysis, s Settings) Outcome {
	threshold, on := s.Budget()
	if !on || threshold == 0 {
		return a.keep(StatusDisabled, nil)
	}
	bp := &threshold
	if msg, ok := a.passThrough(); ok {
		return a.keep(StatusPassThrough, bp, msg)
	}
	older := s.String("era") == "older"
	if (older || s.String("tools") == "shell") && a.call.ToolName != geminiShellTool {
		return a.keep(StatusPassThrough, bp, fmt.Sprintf("this Gemini CLI truncation applies to %s only, not %q", geminiShellTool, a.call.ToolName))
	}
	if len(a.blocks) != 1 || a.blocks[0].kind != TypeText {
		return a.keep(StatusPassThrough, bp, "Gemini CLI truncates a result only when it is one text (a string output or a single text part)")
	}
	text := a.blocks[0].text
	units := a.derive("utf16:0", func() any { return int64(utf16Len(text)) }).(int64)
	if units <= threshold {
		return a.keep(StatusWithinBudget, bp)
	}
	file := a.call.Spill.Locator
	if file == "" {
		file = GeminiUnsavedPath
	}
	var c contentBuilder
	var o Outcome
	var kept int64
	if older {
		o = a.geminiOlder(&c, text, s.Int("truncateToolOutputLines"), file, &kept)
	} else {
		head := threshold / 5
		tail := threshold - head
		hEnd := utf16Cut(text, head, false)
		tStart := utf16CutFromEnd(text, tail)
		notice := FormatGeminiNotice(head, tail, file)
		c.text(SpanNotice, -1, 0, notice)
		if hEnd > 0 {
			c.text(SpanKept, 0, 0, text[:hEnd])
		}
		c.text(SpanMarker, -1, 0, FormatGeminiMarker(units-head-tail))
		if tStart < len(text) {
			c.text(SpanKept, 0, int64(tStart), text[tStart:])
		}
		kept = int64(hEnd + len(text) - tStart)
		o.Notice = strings.TrimSuffix(notice, "\n")
		o.CompleteFile = text
		he, ts := Position{Offset: int64(hEnd)}, Position{Offset: int64(tStart)}
		o.HeadEnd, o.TailStart = &he, &ts
	}
	o.Status, o.Content, o.Spans = StatusReplaced, c.blocks, c.spans
	if kept == 0 {
		o.Status = StatusNoticeOnly
	}
	o.OmittedBytes = max(0, a.textBytes-kept)
	o.Recovery = Recovery{Kind: RecoverFile, Locator: file}
	o.Budget = bp
	o.Diagnostics = append(o.Diagnostics, a.notes...)
	o.Route, o.Estimator = a.route.Name, a.est.Name()
	orig, exact := a.original(int(min(threshold, MaxBudget)))
	o.OriginalTokens, o.OriginalTokensExact = orig.Total, exact
	o.Tokens = a.priceBuilt(c)
	return o
}

// geminiOlder is truncateAndSaveToFile: kept counts the distinct original
// bytes shown (repeated lines once).
func (a *Analysis) geminiOlder(c *contentBuilder, text string, limit int64, file string, kept *int64) Outcome {
	lines := geminiLines(text, limit)
	head := limit / 5
	n := int64(len(lines))
	begin := lines[:min(head, n)]
	rest := limit - head
	var end []geminiLine
	if rest == 0 || rest >= n {
		end = lines // slice(-0) and slice(-k) past the start take every line
	} else {
		end = lines[n-rest:]
	}
	notice := FormatGeminiOlderNotice(file)
	c.text(SpanNotice, -1, 0, notice)
	seen := map[int]bool{}
	add := func(ls []geminiLine) {
		for i, l := range ls {
			if i > 0 {
				if l.wrapped {
					c.text(SpanWrapper, -1, 0, "\n")
				} else {
					c.text(SpanKept, 0, int64(l.start-1), "\n")
					if !seen[-l.start] {
						seen[-l.start] = true
						*kept++
					}
				}
			}
			if l.end > l.start {
				c.text(SpanKept, 0, int64(l.start), text[l.start:l.end])
				if !seen[l.start] {
					seen[l.start] = true
					*kept += int64(l.end - l.start)
				}
			}
		}
	}
	add(begin)
	c.text(SpanMarker, -1, 0, geminiOlderMarker)
	add(end)
	var o Outcome
	o.Notice = strings.TrimSuffix(geminiOlderLead+file, "\n")
	// The file holds the wrapped lines when wrapping happened.
	var sb strings.Builder
	sb.Grow(len(text) + len(lines))
	for i, l := range lines {
		if i > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(text[l.start:l.end])
	}
	o.CompleteFile = sb.String()
	if len(begin)+len(end) > len(lines) {
		o.Diagnostics = append(o.Diagnostics, fmt.Sprintf("the output has %d lines, fewer than the %d the head and tail take: Gemini CLI repeats the lines they share", len(lines), limit))
	}
	he, ts := Position{}, Position{}
	if len(begin) > 0 {
		he.Offset = int64(begin[len(begin)-1].end)
	}
	if len(end) > 0 {
		ts.Offset = int64(end[0].start)
	}
	o.HeadEnd, o.TailStart = &he, &ts
	return o
}

// geminiLine is one line of the older truncation: text[start:end], and
// whether it continues the previous line (wrapping split them).
type geminiLine struct {
	start, end int
	wrapped    bool
}

// geminiLines is content.split('\n'), each line longer than 120 characters
// cut into pieces of 120 when there are no more lines than limit.
func geminiLines(text string, limit int64) []geminiLine {
	var lines []geminiLine
	pos := 0
	for {
		i := strings.IndexByte(text[pos:], '\n')
		if i < 0 {
			lines = append(lines, geminiLine{start: pos, end: len(text)})
			break
		}
		lines = append(lines, geminiLine{start: pos, end: pos + i})
		pos += i + 1
	}
	if int64(len(lines)) > limit {
		return lines
	}
	var out []geminiLine
	for _, l := range lines {
		s := text[l.start:l.end]
		if utf16Len(s) <= geminiOlderWrap {
			out = append(out, l)
			continue
		}
		for at, first := 0, true; at < len(s) || first; first = false {
			cut := at + utf16Cut(s[at:], geminiOlderWrap, true)
			out = append(out, geminiLine{start: l.start + at, end: l.start + cut, wrapped: !first})
			at = cut
		}
	}
	return out
}

// utf16Cut is the byte length of the longest prefix of s holding at most n
// UTF-16 code units; a surrogate pair that would be split is left out,
// unless progress requires it (the pair alone is wider than n).
func utf16Cut(s string, n int64, progress bool) int {
	var u int64
	for i := 0; i < len(s); {
		_, size := utf8.DecodeRuneInString(s[i:])
		w := int64(1)
		if size == 4 {
			w = 2
		}
		if u+w > n {
			if i == 0 && progress {
				return size
			}
			return i
		}
		u += w
		i += size
	}
	return len(s)
}

// utf16CutFromEnd is the byte offset where the longest suffix of s holding
// at most n UTF-16 code units starts.
func utf16CutFromEnd(s string, n int64) int {
	var u int64
	i := len(s)
	for i > 0 {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		w := int64(1)
		if size == 4 {
			w = 2
		}
		if u+w > n {
			break
		}
		u += w
		i -= size
	}
	return i
}

// Gemini CLI notice conventions.
const (
	GeminiCurrent = "gemini-cli"
	GeminiOlder   = "gemini-cli-legacy"
)

// GeminiTruncation is a Gemini CLI truncation notice recognised in recorded
// output.
type GeminiTruncation struct {
	Kind string `json:"kind"`
	// Path is the file holding the whole output, exactly as written.
	Path string `json:"path"`
	// First and Last are the characters the current notice says it shows
	// (their sum is the threshold used); Omitted what its marker says was
	// left out (-1 when the marker is not there, as in a masked copy).
	First   int64 `json:"first,omitempty"`
	Last    int64 `json:"last,omitempty"`
	Omitted int64 `json:"omitted"`
	// Masked is set when Gemini CLI's tool-output masking later replaced
	// the output (<tool_output_masked>).
	Masked bool `json:"masked,omitempty"`
}

var (
	geminiHeadRe   = regexp.MustCompile(`^` + regexp.QuoteMeta(geminiLead) + `(` + geminiFigure + `) and last (` + geminiFigure + `)` + regexp.QuoteMeta(geminiSee) + `([^\n]+)\n`)
	geminiMarkerRe = regexp.MustCompile(`\n\n\.\.\. \[(` + geminiFigure + `) characters omitted\] \.\.\.\n\n`)
	// The older notice's two sentences, however the line between them was
	// wrapped, and its path's line.
	geminiOlderRe = regexp.MustCompile(`^Tool output was too large and has been truncated\.\s*The full output has been saved to: ([^\n]*[^\s])[ \t]*(?:\n|$)`)
)

// geminiFigure is a number as toLocaleString() writes it in the locale
// Gemini CLI runs in: plain digits, or digits grouped by three with a
// comma, a full stop, a space, a no-break space or an apostrophe (ungroup
// checks the grouping).
const geminiFigure = `\d[\d.,' \x{a0}\x{202f}]*?`

const geminiMasked = "<tool_output_masked>\n"

// RecogniseGeminiTruncation recognises Gemini CLI's notice at the start of
// a tool output: the current "Output too large. Showing first X and last Y
// characters. For full output see: <file>" (also inside a masked copy) or
// the older "Tool output was too large and has been truncated." paragraph.
func RecogniseGeminiTruncation(text string) (GeminiTruncation, bool) {
	t := text
	masked := strings.HasPrefix(t, geminiMasked)
	t = strings.TrimPrefix(t, geminiMasked)
	head := t[:min(len(t), 8<<10)]
	if m := geminiHeadRe.FindStringSubmatch(head); m != nil {
		g := GeminiTruncation{Kind: GeminiCurrent, Path: m[3], First: ungroup(m[1]), Last: ungroup(m[2]), Omitted: -1, Masked: masked}
		if g.First < 0 || g.Last < 0 {
			return GeminiTruncation{}, false
		}
		if !masked {
			if mm := geminiMarkerRe.FindStringSubmatch(t[len(m[0]):]); mm != nil {
				g.Omitted = ungroup(mm[1])
			}
		}
		return g, true
	}
	if m := geminiOlderRe.FindStringSubmatch(head); m != nil {
		return GeminiTruncation{Kind: GeminiOlder, Path: m[1], Omitted: -1, Masked: masked}, true
	}
	return GeminiTruncation{}, false
}

// ungroup reads a number written as geminiFigure: plain digits, or groups
// of three after a first of one to three, all split by one separator; -1 if
// it is not one (a figure such as "80,00" is not a count).
func ungroup(s string) int64 {
	digits := s
	if i := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		_, w := utf8.DecodeRuneInString(s[i:])
		groups := strings.Split(s, s[i:i+w])
		if len(groups[0]) == 0 || len(groups[0]) > 3 {
			return -1
		}
		for _, g := range groups[1:] {
			if len(g) != 3 {
				return -1
			}
		}
		digits = strings.Join(groups, "")
	}
	if strings.Trim(digits, "0123456789") != "" {
		return -1
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return -1
	}
	return n
}
