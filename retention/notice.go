package retention

import (
	"strconv"
	"strings"
)

// The spill notice of dsh's spill policy, both eras, as
// deepseek-harness packages/spill/spill-policy/src/notice.ts spells and
// recognises it (byte era: tenyi/deepseek-harness @ 77afa343; token era:
// knyazev741/deepseek-harness @ 8173fb8d):
//
//	"(" + describeOmitted(omitted, "bytes") + IMAGES + " Full formatted result stored at: " + locator + ". " + hint + ")"
//
// IMAGES is " Omitted {k} images." when k > 0 (token era only). One formatter
// (FormatSpillNotice) and one recogniser (RecogniseNotice, HasSpillNotice) own
// it; every policy and reader goes through them.

// LocalSpillHint is the retrieval hint of dsh's local spill backend
// (dsh-spill-local), the one every shipped dsh build writes.
const LocalSpillHint = "Use read with offset/limit, or grep this path to search within it."

const (
	noticeOpen     = "("
	noticeClose    = ")"
	noticeLocation = " Full formatted result stored at: "
	noticeGuidance = ". "
	noticeSep      = "\n\n"
)

// Omission kinds of dsh's output-retention vocabulary.
const (
	OmittedNone    = "none"
	OmittedExact   = "exact"
	OmittedUnknown = "unknown"
)

// Omission is how much a retainer left out: nothing, an exact count, or an
// unknown amount (dsh's Omitted).
type Omission struct {
	Kind  string `json:"kind"`
	Count int64  `json:"count,omitempty"`
}

// ExactOmission is an exact count of omitted units.
func ExactOmission(n int64) Omission { return Omission{Kind: OmittedExact, Count: n} }

// DescribeOmitted is dsh's describeOmitted: "" for none, "Omitted {n}
// {unit}." for an exact count, "More {unit} were omitted." for unknown.
func DescribeOmitted(o Omission, unit string) string {
	switch o.Kind {
	case OmittedExact:
		return "Omitted " + strconv.FormatInt(o.Count, 10) + " " + unit + "."
	case OmittedUnknown:
		return "More " + unit + " were omitted."
	}
	return ""
}

// SpillRef is where a spill backend saved a complete result: the locator
// the notice names and the backend's retrieval hint.
type SpillRef struct {
	Locator string `json:"locator"`
	Hint    string `json:"hint"`
}

// FormatSpillNotice is dsh's formatSpillNotice(omitted, ref, images): the
// notice without the "\n\n" that joins it to a preview. images > 0 adds the
// token era's " Omitted {images} images." clause. An empty hint is
// LocalSpillHint and an empty locator UnsavedSpillPath.
func FormatSpillNotice(omitted Omission, ref SpillRef, images int) string {
	ref = ref.withDefaults()
	var b strings.Builder
	b.Grow(len(noticeLocation) + len(ref.Locator) + len(ref.Hint) + 64)
	b.WriteString(noticeOpen)
	b.WriteString(DescribeOmitted(omitted, "bytes"))
	if images > 0 {
		b.WriteString(" Omitted ")
		b.WriteString(strconv.Itoa(images))
		b.WriteString(" images.")
	}
	b.WriteString(noticeLocation)
	b.WriteString(ref.Locator)
	b.WriteString(noticeGuidance)
	b.WriteString(ref.Hint)
	b.WriteString(noticeClose)
	return b.String()
}

func (r SpillRef) withDefaults() SpillRef {
	if r.Locator == "" {
		r.Locator = UnsavedSpillPath
	}
	if r.Hint == "" {
		r.Hint = LocalSpillHint
	}
	return r
}

// Notice kinds a recogniser reports.
const (
	// NoticeBytes is a notice without an image clause: what dsh's byte era
	// writes, and its token era when no image was omitted. Both eras'
	// recognisers accept it.
	NoticeBytes = "dsh-bytes"
	// NoticeTokens is a token-era notice with its image clause, which a
	// byte-era recogniser rejects.
	NoticeTokens = "dsh-tokens"
	// NoticeLegacy is Spillscope's own notice before it adopted dsh's.
	NoticeLegacy = "spillscope-legacy"
)

// Eras of dsh's recogniser for HasSpillNotice.
const (
	EraBytes  = "bytes"
	EraTokens = "tokens"
)

// NoticeMatch is a recognised notice: what it says and where it sits in the
// text it was found in (byte offsets; End is the end of the text for dsh's
// notices, which must close it).
type NoticeMatch struct {
	Kind          string   `json:"kind"`
	Omitted       Omission `json:"omitted"`
	OmittedBytes  int64    `json:"omittedBytes"`
	OmittedImages int      `json:"omittedImages"`
	HasImageCount bool     `json:"hasImageCount"`
	// Path is the locator the notice names and Hint the retrieval hint
	// after it, split at the first ". " past the locator's start (dsh's own
	// reading), or before the local backend's hint when the text ends with
	// it, so a locator holding ". " still reads whole.
	Path  string `json:"path"`
	Hint  string `json:"hint"`
	Start int    `json:"start"`
	End   int    `json:"end"`
}

// HasSpillNotice is dsh's hasSpillNotice(text) of one era (EraBytes or
// EraTokens): whether a complete final notice closes text, after a preview
// or alone. The first candidate that parses decides, so locators and hints
// may hold "(", ")" and blank lines. It only reads: recorded text is never
// rewritten, and a match is a text convention, not proof of who wrote it.
func HasSpillNotice(text, era string) bool {
	_, ok := findSpillNotice(text, era == EraTokens)
	return ok
}

// RecogniseNotice finds a spill notice closing text: dsh's (either era; the
// token era's recogniser accepts both) or, failing that, Spillscope's legacy
// notice.
func RecogniseNotice(text string) (NoticeMatch, bool) {
	if m, ok := findSpillNotice(text, true); ok {
		return m, true
	}
	return recogniseLegacy(text)
}

func findSpillNotice(text string, tokenEra bool) (NoticeMatch, bool) {
	if !strings.HasSuffix(text, noticeClose) {
		return NoticeMatch{}, false
	}
	for start := 0; ; {
		next := strings.Index(text[start:], noticeSep+noticeOpen)
		var cand string
		if next < 0 {
			cand = text[start : len(text)-len(noticeClose)]
		} else {
			next += start
			cand = text[start:next]
		}
		loc := -1
		if len(cand) > len(noticeOpen) {
			if i := strings.Index(cand[len(noticeOpen):], noticeLocation); i >= 0 {
				loc = i + len(noticeOpen)
			}
		}
		if strings.HasPrefix(cand, noticeOpen) && loc >= 0 {
			if m, ok := parseOmission(cand[len(noticeOpen):loc], tokenEra); ok {
				rest := start + loc + len(noticeLocation)
				if !strings.Contains(text[rest:], noticeGuidance) {
					return NoticeMatch{}, false
				}
				m.Start, m.End = start, len(text)
				m.Path, m.Hint = splitLocator(text[rest : len(text)-len(noticeClose)])
				return m, true
			}
		}
		if next < 0 {
			return NoticeMatch{}, false
		}
		start = next + len(noticeSep)
	}
}

// splitLocator splits "locator. hint" as dsh's reader does, preferring the
// local backend's hint when the text ends with it.
func splitLocator(s string) (string, string) {
	if loc, ok := strings.CutSuffix(s, noticeGuidance+LocalSpillHint); ok {
		return loc, LocalSpillHint
	}
	if i := strings.Index(s, noticeGuidance); i >= 0 {
		return s[:i], s[i+len(noticeGuidance):]
	}
	return s, ""
}

// parseOmission is dsh's isOmission: "", "More bytes were omitted." or
// exactly "Omitted {c} bytes." with c a safe integer written as JavaScript
// writes numbers (so -1, 1.5 and 0042 are refused); the token era first
// strips a final " Omitted {k} images." with k in [1-9][0-9]* and safe.
func parseOmission(s string, tokenEra bool) (NoticeMatch, bool) {
	var m NoticeMatch
	if tokenEra {
		if head, ok := strings.CutSuffix(s, " images."); ok {
			i := len(head)
			for i > 0 && head[i-1] >= '0' && head[i-1] <= '9' {
				i--
			}
			if digits := head[i:]; digits != "" && digits[0] != '0' && strings.HasSuffix(head[:i], " Omitted ") {
				k, ok := safeInteger(digits)
				if !ok {
					return m, false
				}
				m.OmittedImages, m.HasImageCount = int(k), true
				s = head[:i-len(" Omitted ")]
			}
		}
	}
	m.Kind = NoticeBytes
	if m.HasImageCount {
		m.Kind = NoticeTokens
	}
	switch s {
	case "":
		m.Omitted = Omission{Kind: OmittedNone}
		return m, true
	case DescribeOmitted(Omission{Kind: OmittedUnknown}, "bytes"):
		m.Omitted = Omission{Kind: OmittedUnknown}
		return m, true
	}
	mid, ok := strings.CutPrefix(s, "Omitted ")
	if !ok {
		return m, false
	}
	if mid, ok = strings.CutSuffix(mid, " bytes."); !ok || mid == "" || (mid[0] == '0' && len(mid) > 1) {
		return m, false
	}
	c, ok := safeInteger(mid)
	if !ok {
		return m, false
	}
	m.Omitted, m.OmittedBytes = ExactOmission(c), c
	return m, true
}

// safeInteger parses ASCII digits as a JavaScript safe integer (<= 2^53-1).
func safeInteger(digits string) (int64, bool) {
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n > MaxBudget {
		return 0, false
	}
	return n, true
}
