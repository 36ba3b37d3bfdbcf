package retention

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Spillscope's own notice before it adopted dsh's policies. Records written
// then (`spillscope retain --spill-dir`, the sample corpus) still hold it, so
// it is still recognised, as NoticeLegacy, and never rewritten. Its
// byte-only form is letter for letter dsh's byte-era notice with the local
// backend's hint, so only its image form is told apart.

// LegacyMarker is the omission marker of the legacy layout: its own block
// between head and tail.
const LegacyMarker = "[...]"

// UnsavedSpillPath is what a notice names when no spill path was given
// (a re-run in the review app, or the CLI without --spill-dir).
const UnsavedSpillPath = "(not saved)"

// The legacy notice's fixed wording.
const (
	noticeRead  = "Use read with offset/limit, or grep this path to search within it"
	noticeImage = "; each omitted image is a line in that file naming its attachment path, which read_image can open"
)

// FormatLegacyNotice writes the legacy notice: omittedBytes of text and
// omittedImages whole images omitted, the complete result file at path. It
// exists for corpora that must look like records of that time; retention
// itself writes FormatSpillNotice.
func FormatLegacyNotice(omittedBytes int64, omittedImages int, path string) string {
	if path == "" {
		path = UnsavedSpillPath
	}
	var b strings.Builder
	b.WriteString("(Omitted ")
	b.WriteString(strconv.FormatInt(omittedBytes, 10))
	b.WriteString(" bytes")
	if omittedImages > 0 {
		b.WriteString(" and ")
		b.WriteString(strconv.Itoa(omittedImages))
		if omittedImages == 1 {
			b.WriteString(" image")
		} else {
			b.WriteString(" images")
		}
	}
	b.WriteString(". Full formatted result stored at: ")
	b.WriteString(path)
	b.WriteString(". ")
	b.WriteString(noticeRead)
	if omittedImages > 0 {
		b.WriteString(noticeImage)
	}
	b.WriteString(".)")
	return b.String()
}

// LegacyDescriptor is the line that stood for an image in a legacy complete
// result file.
func LegacyDescriptor(mediaType string, width, height int, path string) string {
	if path == "" {
		return fmt.Sprintf("[image %s %dx%d, no readable path]", mediaType, width, height)
	}
	return fmt.Sprintf("[image %s %dx%d: %s]", mediaType, width, height, path)
}

// legacyRE matches a complete legacy notice at the end of a text (trailing
// white space allowed). The path is everything up to the fixed sentence that
// follows it, so paths containing ". " still read whole.
var legacyRE = regexp.MustCompile(`\A\(Omitted (\d+) bytes(?: and (\d+) images?)?\. Full formatted result stored at: ([^\n]+?)\. ` +
	regexp.QuoteMeta(noticeRead) + `(?:;[^\n]*?)?\.\)\s*\z`)

// recogniseLegacy finds a legacy notice at the end of text.
func recogniseLegacy(text string) (NoticeMatch, bool) {
	// A notice is one line (its path holds no newline) of bounded length at
	// the very end, so only the end of the last line is searched: this keeps
	// recognition linear however many look-alikes a hostile text repeats.
	const maxNotice = 8192
	trimmed := strings.TrimRight(text, " \t\r\n")
	base := strings.LastIndexByte(trimmed, '\n') + 1
	if len(trimmed)-base > maxNotice {
		base = len(trimmed) - maxNotice
	}
	// The last "(Omitted " that starts a complete final notice wins, so a
	// preview quoting an older notice on the same line cannot swallow it.
	sub := text[base:]
	var loc []int
	for end := len(sub); ; {
		i := strings.LastIndex(sub[:end], "(Omitted ")
		if i < 0 {
			return NoticeMatch{}, false
		}
		if l := legacyRE.FindStringSubmatchIndex(sub[i:]); l != nil {
			for j := range l {
				if l[j] >= 0 {
					l[j] += i
				}
			}
			loc = l
			break
		}
		end = i
	}
	n, err := strconv.ParseInt(sub[loc[2]:loc[3]], 10, 64)
	if err != nil {
		return NoticeMatch{}, false
	}
	m := NoticeMatch{Kind: NoticeLegacy, Omitted: Omission{Kind: OmittedExact, Count: n}, OmittedBytes: n,
		Path: sub[loc[6]:loc[7]], Start: base + loc[0]}
	if loc[4] >= 0 {
		imgs, err := strconv.Atoi(sub[loc[4]:loc[5]])
		if err != nil {
			return NoticeMatch{}, false
		}
		m.OmittedImages, m.HasImageCount = imgs, true
	}
	m.Hint = noticeRead + "."
	m.End = base + strings.LastIndex(sub, ".)") + 2
	return m, true
}
