package retention

import (
	"regexp"
	"strconv"
	"strings"
)

// Marker stands for the omitted interval between the retained head and tail.
const Marker = "[...]"

// UnsavedSpillPath is what the notice names when no spill path was given
// (a re-run in the review app, or the CLI without --spill-dir).
const UnsavedSpillPath = "(not saved)"

// The notice's fixed wording. The byte-only sentence is the historical form
// that sessions already hold; the image form adds the whole-image count and how
// to view an omitted image. Both end the same way so one recogniser reads both.
const (
	noticeRead  = "Use read with offset/limit, or grep this path to search within it"
	noticeImage = "; each omitted image is a line in that file naming its attachment path, which read_image can open"
)

// FormatNotice writes the omission notice for omittedBytes of text and
// omittedImages whole images, naming the complete result file at path. With
// no omitted images it is the historical byte-only notice.
func FormatNotice(omittedBytes int64, omittedImages int, path string) string {
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

// NoticeMatch is a recognised notice: what it says and where it sits in the
// text it was found in (byte offsets).
type NoticeMatch struct {
	OmittedBytes  int64  `json:"omittedBytes"`
	OmittedImages int    `json:"omittedImages"`
	HasImageCount bool   `json:"hasImageCount"`
	Path          string `json:"path"`
	Start         int    `json:"start"`
	End           int    `json:"end"`
}

// noticeRE matches a complete notice at the end of a text (trailing white
// space allowed). The path is everything up to the fixed sentence that
// follows it, so paths containing ". " still read whole.
var noticeRE = regexp.MustCompile(`\A\(Omitted (\d+) bytes(?: and (\d+) images?)?\. Full formatted result stored at: ([^\n]+?)\. ` +
	regexp.QuoteMeta(noticeRead) + `(?:;[^\n]*?)?\.\)\s*\z`)

// RecogniseNotice finds this project's omission notice at the end of text,
// after a preview or alone, in its byte-only (historical) or image-count form.
// It only reads: recorded text is never rewritten. A match is a text
// convention, not proof that a retention policy wrote it.
func RecogniseNotice(text string) (NoticeMatch, bool) {
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
		if l := noticeRE.FindStringSubmatchIndex(sub[i:]); l != nil {
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
	m := NoticeMatch{OmittedBytes: n, Path: sub[loc[6]:loc[7]], Start: base + loc[0]}
	if loc[4] >= 0 {
		imgs, err := strconv.Atoi(sub[loc[4]:loc[5]])
		if err != nil {
			return NoticeMatch{}, false
		}
		m.OmittedImages, m.HasImageCount = imgs, true
	}
	m.End = base + strings.LastIndex(sub, ".)") + 2
	return m, true
}
