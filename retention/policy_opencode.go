package retention

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// OpenCode's tool-output truncation, as anomalyco/opencode @ 0a3427d9
// implements it in packages/opencode/src/tool/truncate.ts (Truncate.output;
// the same algorithm and texts as the older tool/truncation.ts @ 2e0f2320):
// an output over maxLines lines or maxBytes UTF-8 bytes keeps whole lines
// from the head (or the tail) within both limits, then a marker
// "...N lines truncated..." or "...N bytes truncated..." and a hint naming
// the file that holds the whole output (tool-output/tool_<ascending id>,
// deleted after 7 days). An MCP result's text items are joined with "\n\n"
// first (session/tools.ts); images travel beside it as attachments. The shell
// tool does its own truncation (tool/shell.ts @ 04987933): the last lines
// within both limits, the last maxBytes bytes of a single line that is too
// long, after "...output truncated...\n\nFull output saved to: <file>\n\n".
// Tools that truncate themselves set metadata.truncated and skip the generic
// pass: read (the host's read tool), glob, grep and list.

// OpenCode's shipped limits (truncate.ts MAX_LINES, MAX_BYTES).
const (
	OpenCodeMaxLines = 2000
	OpenCodeMaxBytes = 50 * 1024
)

// The texts OpenCode writes around a truncated output.
const (
	openCodeHintLead  = "The tool call succeeded but the output was truncated. Full output saved to: "
	openCodeHintGrep  = "Use Grep to search the full content or Read with offset/limit to view specific sections."
	openCodeHintTask  = "Use the Task tool to have explore agent process this file with Grep and Read (with offset/limit). Do NOT read the full file yourself - delegate to save context."
	openCodeShellCut  = "...output truncated..."
	openCodeShellLead = "Full output saved to: "
	openCodeNoOutput  = "(no output)"
	// OpenCodeUnsavedPath is the file a notice names when the call names
	// none: the shape of OpenCode's default location.
	OpenCodeUnsavedPath = "~/.local/share/opencode/tool-output/tool_unsaved"
)

// openCodeSelfTruncating are tools whose results set metadata.truncated and
// so skip the generic pass (besides the read tool, which Call.ReadTools
// covers).
var openCodeSelfTruncating = []string{"glob", "grep", "list"}

// openCodeShellTools are the names OpenCode's shell tool has had.
var openCodeShellTools = []string{"bash", "shell"}

type openCode struct{}

func init() { RegisterPolicy(openCode{}) }

func (openCode) Info() PolicyInfo {
	return PolicyInfo{
		Name: "opencode", Harness: "opencode", Version: "1.x (tool/truncate.ts, tool/shell.ts)",
		Summary: "an output over 2,000 lines or 51,200 bytes keeps whole lines from the head (or tail) within both limits, then \"...N lines|bytes truncated...\" and a hint naming tool-output/tool_<id>; " +
			"the shell tool keeps the tail after \"...output truncated...\"; images pass as attachments",
		Source:    "anomalyco/opencode @ 0a3427d9: packages/opencode/src/tool/truncate.ts (test/tool/truncation.test.ts); @ 04987933: packages/opencode/src/tool/shell.ts",
		Estimator: EstimatorUTF8Bytes, Budget: "maxBytes", Unit: "bytes",
		Params: []Param{
			{Name: "maxBytes", Kind: ParamInt, Unit: "bytes", Default: strconv.Itoa(OpenCodeMaxBytes), Min: 0, Max: MaxBudget, Off: true,
				Doc: "UTF-8 bytes of output kept inline (config tool_output.max_bytes); off passes everything through"},
			{Name: "maxLines", Kind: ParamInt, Unit: "lines", Default: strconv.Itoa(OpenCodeMaxLines), Min: 0, Max: MaxBudget,
				Doc: "lines of output kept inline (config tool_output.max_lines)"},
			{Name: "direction", Kind: ParamChoice, Default: "head", Choices: []string{"head", "tail"},
				Doc: "which end of the output the generic truncation keeps"},
			{Name: "task", Kind: ParamBool, Default: "true",
				Doc: "the agent may use the Task tool (the default build agent may): the hint delegates reading the file; false gives the Grep/Read ending"},
			{Name: "form", Kind: ParamChoice, Default: "auto", Choices: []string{"auto", "generic", "shell"},
				Doc: "auto: the shell tool's own truncation for bash/shell, a pass-through for glob/grep/list, the generic one otherwise"},
		},
		Recoverable: RecoverFile,
		RecoverNote: "OpenCode deletes tool-output files 7 days after they were written",
	}
}

func (openCode) Decide(a *Analysis, s Settings) Outcome {
	maxBytes, on := s.Budget()
	if !on {
		return a.keep(StatusDisabled, nil)
	}
	bp := &maxBytes
	if msg, ok := a.passThrough(); ok {
		return a.keep(StatusPassThrough, bp, msg)
	}
	form := s.String("form")
	if form == "auto" {
		switch tool := a.call.ToolName; {
		case slices.Contains(openCodeShellTools, tool):
			form = "shell"
		case slices.Contains(openCodeSelfTruncating, tool):
			return a.keep(StatusPassThrough, bp, fmt.Sprintf("OpenCode's %q tool caps its own output (metadata.truncated), so the generic truncation skips it", tool))
		default:
			form = "generic"
		}
	}
	var other []string
	for i, bi := range a.blocks {
		if bi.kind == "" {
			other = append(other, fmt.Sprintf("block %d has type %q; this policy joins text items and passes images as attachments", i, a.res.Content[i].Type))
		}
	}
	if len(other) > 0 {
		return a.keep(StatusUnsupported, bp, other...)
	}
	j := a.joined("\n\n", joinBetween)
	maxLines := s.Int("maxLines")
	total := int64(len(j.text))
	if int64(j.lines) <= maxLines && total <= maxBytes {
		return a.keep(StatusWithinBudget, bp)
	}
	file := a.call.Spill.Locator
	if file == "" {
		file = OpenCodeUnsavedPath
	}
	var c contentBuilder
	var o Outcome
	var w openCodeWalk // the kept range of j.text
	var kept int64     // the original bytes in it
	if form == "shell" {
		w = openCodeTail(j.text, maxLines, maxBytes, true)
		notice := openCodeShellLead + file
		c.text(SpanMarker, -1, 0, openCodeShellCut+"\n\n")
		c.text(SpanNotice, -1, 0, notice+"\n\n")
		if w.lo == w.hi {
			c.text(SpanMarker, -1, 0, openCodeNoOutput)
		} else {
			kept = j.add(&c, w.lo, w.hi)
		}
		o.Notice = notice
	} else {
		tail := s.String("direction") == "tail"
		if tail {
			w = openCodeTail(j.text, maxLines, maxBytes, false)
		} else {
			w = openCodeHead(j.text, maxLines, maxBytes)
		}
		removed, unit := int64(j.lines)-w.lines, "lines"
		if w.hitBytes {
			removed, unit = total-(w.hi-w.lo), "bytes"
		}
		marker := "..." + strconv.FormatInt(removed, 10) + " " + unit + " truncated..."
		hint := FormatOpenCodeHint(file, s.Bool("task"))
		if tail {
			c.text(SpanMarker, -1, 0, marker+"\n\n")
			c.text(SpanNotice, -1, 0, hint+"\n\n")
			kept = j.add(&c, w.lo, w.hi)
		} else {
			kept = j.add(&c, w.lo, w.hi)
			c.text(SpanMarker, -1, 0, "\n\n"+marker+"\n\n")
			c.text(SpanNotice, -1, 0, hint)
		}
		o.Notice = hint
	}
	c.end()
	for i, bi := range a.blocks {
		if bi.kind == TypeImage {
			c.image(i, a.imageBlock(i))
		}
	}
	headEnd, tailStart := j.position(w.hi, len(a.blocks)), Position{Block: len(a.blocks)}
	if w.lo > 0 {
		headEnd, tailStart = Position{}, j.position(w.lo, len(a.blocks))
	}
	o.Status, o.Content, o.Spans = StatusReplaced, c.blocks, c.spans
	if w.lo == w.hi {
		o.Status = StatusNoticeOnly
	}
	o.OmittedBytes = a.textBytes - kept
	o.Recovery = Recovery{Kind: RecoverFile, Locator: file}
	o.Budget, o.CompleteFile = bp, j.text
	o.Diagnostics = append([]string{}, a.notes...)
	o.HeadEnd, o.TailStart = &headEnd, &tailStart
	o.Route, o.Estimator = a.route.Name, a.est.Name()
	orig, exact := a.original(int(min(maxBytes, MaxBudget)))
	o.OriginalTokens, o.OriginalTokensExact = orig.Total, exact
	o.Tokens = a.priceBuilt(c)
	return o
}

// openCodeWalk is what a walk kept: text[lo:hi], in lines, and whether the
// byte limit stopped it.
type openCodeWalk struct {
	lo, hi   int64
	lines    int64
	hitBytes bool
}

// openCodeHead is Truncate.output's head walk: whole lines from the start
// while fewer than maxLines are kept and the bytes (a line plus its joining
// newline) stay within maxBytes. The preview is text[:hi].
func openCodeHead(text string, maxLines, maxBytes int64) openCodeWalk {
	var w openCodeWalk
	pos := 0
	for w.lines < maxLines && pos <= len(text) {
		end := strings.IndexByte(text[pos:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += pos
		}
		size := int64(end - pos)
		if w.lines > 0 {
			size++
		}
		if w.hi+size > maxBytes {
			w.hitBytes = true
			break
		}
		w.hi += size
		w.lines++
		pos = end + 1
	}
	return w
}

// openCodeTail is the tail walk of Truncate.output (shell false) and of the
// shell tool's tail() (shell true): whole lines from the end within both
// limits; the shell keeps the last maxBytes bytes of a last line that alone
// is too long, starting on a code point. The preview is text[lo:].
func openCodeTail(text string, maxLines, maxBytes int64, shell bool) openCodeWalk {
	n := int64(len(text))
	w := openCodeWalk{lo: n, hi: n}
	end := len(text)
	for w.lines < maxLines && end >= 0 {
		start := strings.LastIndexByte(text[:end], '\n') + 1
		size := int64(end - start)
		if w.lines > 0 {
			size++
		}
		if (n-w.lo)+size > maxBytes {
			w.hitBytes = true
			if shell && w.lines == 0 {
				cut := max(int64(start), int64(end)-maxBytes)
				for cut < int64(end) && text[cut]&0xC0 == 0x80 {
					cut++
				}
				w.lo, w.lines = cut, 1
			}
			break
		}
		w.lo -= size
		w.lines++
		end = start - 1
	}
	return w
}

// FormatOpenCodeHint is the hint OpenCode writes after its marker: the file
// and, when the agent may use the Task tool, the advice to delegate reading
// it; otherwise the Grep/Read ending.
func FormatOpenCodeHint(file string, task bool) string {
	ending := openCodeHintGrep
	if task {
		ending = openCodeHintTask
	}
	return openCodeHintLead + file + "\n" + ending
}

// OpenCode truncation conventions a recogniser tells apart.
const (
	OpenCodeGeneric = "opencode-truncate"
	OpenCodeShell   = "opencode-shell-truncate"
)

// OpenCodeTruncation is an OpenCode truncation recognised in recorded
// output: the convention, the file it names, and what its marker says.
type OpenCodeTruncation struct {
	Kind string `json:"kind"`
	// Path is the file holding the whole output, exactly as written.
	Path string `json:"path"`
	// Removed and Unit ("lines" or "bytes") are the marker's figures
	// (generic form only).
	Removed int64  `json:"removed,omitempty"`
	Unit    string `json:"unit,omitempty"`
	// Direction is "head" or "tail": which end was kept.
	Direction string `json:"direction"`
	// Task is true when the hint delegates reading to the Task tool.
	Task bool `json:"task"`
	// Preview is the kept output, as recorded.
	Preview string `json:"preview"`
}

var (
	// A head notice ends the output; relayed (a shell printing an OpenCode
	// run's output) it may have a newline after it.
	openCodeHeadRe = regexp.MustCompile(`\n\n\.\.\.(\d+) (lines|bytes) truncated\.\.\.\n\n` + regexp.QuoteMeta(openCodeHintLead) + `([^\n]+)\n(` +
		regexp.QuoteMeta(openCodeHintTask) + `|` + regexp.QuoteMeta(openCodeHintGrep) + `)\s*$`)
	openCodeTailRe = regexp.MustCompile(`^\.\.\.(\d+) (lines|bytes) truncated\.\.\.\n\n` + regexp.QuoteMeta(openCodeHintLead) + `([^\n]+)\n(` +
		regexp.QuoteMeta(openCodeHintTask) + `|` + regexp.QuoteMeta(openCodeHintGrep) + `)\n\n`)
	openCodeShellRe = regexp.MustCompile(`^` + regexp.QuoteMeta(openCodeShellCut+"\n\n"+openCodeShellLead) + `([^\n]+)\n\n`)
)

// RecogniseOpenCodeTruncation recognises the text OpenCode leaves in place
// of a truncated output: the generic marker and hint (either ending, after
// the kept head or before the kept tail) or the shell tool's notice. It reads
// bounded windows, since the notice sits at one end of up to 50 KB.
func RecogniseOpenCodeTruncation(text string) (OpenCodeTruncation, bool) {
	const window = 4 << 10
	head := text[:min(len(text), window)]
	if m := openCodeShellRe.FindStringSubmatch(head); m != nil {
		preview := text[len(m[0]):]
		return OpenCodeTruncation{Kind: OpenCodeShell, Path: m[1], Direction: "tail", Preview: preview}, true
	}
	if m := openCodeTailRe.FindStringSubmatch(head); m != nil {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		return OpenCodeTruncation{Kind: OpenCodeGeneric, Path: m[3], Removed: n, Unit: m[2], Direction: "tail",
			Task: m[4] == openCodeHintTask, Preview: text[len(m[0]):]}, true
	}
	base := max(0, len(text)-window)
	for base > 0 && text[base]&0xC0 == 0x80 {
		base--
	}
	if loc := openCodeHeadRe.FindStringSubmatchIndex(text[base:]); loc != nil {
		t := text[base:]
		n, _ := strconv.ParseInt(t[loc[2]:loc[3]], 10, 64)
		return OpenCodeTruncation{Kind: OpenCodeGeneric, Path: t[loc[6]:loc[7]], Removed: n, Unit: t[loc[4]:loc[5]], Direction: "head",
			Task: t[loc[8]:loc[9]] == openCodeHintTask, Preview: text[:base+loc[0]]}, true
	}
	return OpenCodeTruncation{}, false
}
