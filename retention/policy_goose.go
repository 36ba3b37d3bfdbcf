package retention

import (
	"regexp"
	"strconv"
	"strings"
)

// goose's large-response handler, as aaif-goose/goose @ 03b56016 implements
// it in crates/goose/src/agents/large_response_handler.rs
// (process_tool_response): each text item of a tool result holding more than
// LARGE_TEXT_THRESHOLD (200,000) Unicode scalar values is written whole to a
// file and replaced by one sentence naming it; there is no preview. Images
// and every other item pass through, as do error results. The current
// sentence ends "…is stored in the file: {path}\nYou can use other tools to
// examine or search it." with the file under the data folder
// (mcp_responses/mcp_response_<timestamp>_<random>.txt); older releases
// (block/goose @ 12dca033) wrote "…is stored in the file which you can use
// other tools to examine or search in: {path}" into
// $TMPDIR/goose_mcp_responses/mcp_response_<timestamp>.txt.

// GooseThreshold is goose's LARGE_TEXT_THRESHOLD.
const GooseThreshold = 200_000

// GooseUnsavedPath is the file a notice names when the call names none: the
// shape of goose's current location.
const GooseUnsavedPath = "~/.local/share/goose/mcp_responses/mcp_response_unsaved.txt"

const (
	gooseLead       = "The response returned from the tool call was larger ("
	gooseMid        = " characters) and is stored in the file"
	gooseCurrentTo  = ": "
	gooseCurrentEnd = "\nYou can use other tools to examine or search it."
	gooseOlderTo    = " which you can use other tools to examine or search in: "
)

// FormatGooseNotice is the sentence goose puts in place of a text item of
// chars Unicode characters saved to path, in era "current" or "older".
func FormatGooseNotice(chars int64, path, era string) string {
	n := strconv.FormatInt(chars, 10)
	if era == "older" {
		return gooseLead + n + gooseMid + gooseOlderTo + path
	}
	return gooseLead + n + gooseMid + gooseCurrentTo + path + gooseCurrentEnd
}

type goose struct{}

func init() { RegisterPolicy(goose{}) }

func (goose) Info() PolicyInfo {
	return PolicyInfo{
		Name: "goose", Harness: "goose", Version: "large_response_handler.rs (current and older sentence)",
		Summary:   "each text item over 200,000 Unicode characters is saved whole to a file and replaced by one sentence naming it; no preview; images and other items pass",
		Source:    "aaif-goose/goose @ 03b56016: crates/goose/src/agents/large_response_handler.rs (older sentence: block/goose @ 12dca033)",
		Estimator: EstimatorCodePoints, Budget: "LARGE_TEXT_THRESHOLD", Unit: "characters",
		Params: []Param{
			{Name: "LARGE_TEXT_THRESHOLD", Kind: ParamInt, Unit: "characters", Default: strconv.Itoa(GooseThreshold), Min: 0, Max: MaxBudget, Off: true,
				Doc: "a text item with more Unicode characters than this is replaced by the pointer sentence (a constant in goose); off passes everything through"},
			{Name: "era", Kind: ParamChoice, Default: "current", Choices: []string{"current", "older"},
				Doc: "current: \"…stored in the file: {path}\\nYou can use other tools to examine or search it.\"; older: \"…stored in the file which you can use other tools to examine or search in: {path}\""},
		},
		Recoverable: RecoverFile,
		RecoverNote: "goose never deletes the file; older releases wrote it under $TMPDIR, which the system may clear",
	}
}

func (goose) Decide(a *Analysis, s Settings) Outcome {
	threshold, on := s.Budget()
	if !on {
		return a.keep(StatusDisabled, nil)
	}
	bp := &threshold
	if msg, ok := a.passThrough(); ok {
		return a.keep(StatusPassThrough, bp, msg)
	}
	points := a.codePoints()
	over := false
	for i, bi := range a.blocks {
		over = over || (bi.kind == TypeText && points[i] > threshold)
	}
	if !over {
		return a.keep(StatusWithinBudget, bp)
	}
	file := a.call.Spill.Locator
	if file == "" {
		file = GooseUnsavedPath
	}
	era := s.String("era")
	var c contentBuilder
	var o Outcome
	var omitted int64
	var complete []string
	first := -1
	for i, bi := range a.blocks {
		switch {
		case bi.kind == TypeText && points[i] > threshold:
			// Every oversized item gets its own file; one locator stands
			// for them all, as the call names one.
			notice := FormatGooseNotice(points[i], file, era)
			c.text(SpanNotice, -1, 0, notice)
			c.end()
			omitted += int64(len(bi.text))
			complete = append(complete, bi.text)
			if first < 0 {
				first, o.Notice = i, notice
			}
		case bi.kind == TypeText:
			c.text(SpanKept, i, 0, bi.text)
			c.end()
		case bi.kind == TypeImage:
			c.image(i, a.imageBlock(i))
		default:
			c.other(i, a.res.Content[i])
		}
	}
	o.Status, o.Content, o.Spans = StatusReplaced, c.blocks, c.spans
	if omitted == a.textBytes {
		o.Status = StatusNoticeOnly
	}
	o.OmittedBytes = omitted
	o.Recovery = Recovery{Kind: RecoverFile, Locator: file}
	o.Budget = bp
	if len(complete) == 1 {
		o.CompleteFile = complete[0]
	} else {
		// Each item has its own file; shown together, one after another.
		o.CompleteFile = joinNonEmpty(complete, "\n\n")
	}
	o.Diagnostics = append([]string{}, a.notes...)
	if len(complete) > 1 {
		o.Diagnostics = append(o.Diagnostics, strconv.Itoa(len(complete))+" text items are over the threshold; goose writes one file for each")
	}
	headEnd, tailStart := Position{Block: first}, Position{Block: first + 1}
	o.HeadEnd, o.TailStart = &headEnd, &tailStart
	o.Route, o.Estimator = a.route.Name, a.est.Name()
	orig, exact := a.original(int(min(threshold, MaxBudget)))
	o.OriginalTokens, o.OriginalTokensExact = orig.Total, exact
	o.Tokens = a.priceBuilt(c)
	return o
}

func joinNonEmpty(parts []string, sep string) string {
	n := 0
	for _, p := range parts {
		n += len(p) + len(sep)
	}
	b := make([]byte, 0, n)
	for i, p := range parts {
		if i > 0 {
			b = append(b, sep...)
		}
		b = append(b, p...)
	}
	return string(b)
}

// Goose notice conventions.
const (
	GooseCurrent = "goose-large-response"
	GooseOlder   = "goose-large-response-older"
	// GooseSavedOutput is the wording of a variant that lowers the
	// threshold for shell output to 50,000 characters: "Tool output was N
	// characters and is saved to <path>. To view portions, …" (no policy
	// here writes it; the indexer recognises it).
	GooseSavedOutput = "goose-saved-output"
)

// GooseNotice is goose's pointer sentence recognised in a text item.
type GooseNotice struct {
	Kind string `json:"kind"`
	// Characters is the length the sentence states.
	Characters int64 `json:"characters"`
	// Path is the file, exactly as written.
	Path string `json:"path"`
}

var (
	gooseCurrentRe = regexp.MustCompile(`^` + regexp.QuoteMeta(gooseLead) + `(\d+)` + regexp.QuoteMeta(gooseMid+gooseCurrentTo) + `([^\n]+)` + regexp.QuoteMeta(gooseCurrentEnd) + `$`)
	gooseOlderRe   = regexp.MustCompile(`^` + regexp.QuoteMeta(gooseLead) + `(\d+)` + regexp.QuoteMeta(gooseMid+gooseOlderTo) + `([^\n]+)$`)
	gooseSavedRe   = regexp.MustCompile(`^` + regexp.QuoteMeta(gooseSavedLead) + `(\d+) characters and is saved to ([^\n]+?)\. To view portions, `)
)

const gooseSavedLead = "Tool output was "

// RecogniseGooseNotice recognises a text item that is goose's pointer
// sentence, in either wording, or the saved-output variant's: goose
// replaces the whole item, so the sentence is the whole text (the variant's
// first line).
func RecogniseGooseNotice(text string) (GooseNotice, bool) {
	if len(text) > 64<<10 {
		return GooseNotice{}, false
	}
	var kind string
	var m []string
	switch {
	case strings.HasPrefix(text, gooseLead):
		kind, m = GooseCurrent, gooseCurrentRe.FindStringSubmatch(text)
		if m == nil {
			kind, m = GooseOlder, gooseOlderRe.FindStringSubmatch(text)
		}
	case strings.HasPrefix(text, gooseSavedLead):
		line, _, _ := strings.Cut(text, "\n")
		kind, m = GooseSavedOutput, gooseSavedRe.FindStringSubmatch(line)
	}
	if m == nil || strings.TrimSpace(m[2]) == "" {
		return GooseNotice{}, false
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		return GooseNotice{}, false
	}
	return GooseNotice{Kind: kind, Characters: n, Path: m[2]}, true
}
