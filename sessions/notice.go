package sessions

import (
	"sort"
	"strings"
	"sync/atomic"
)

// SpillNotice is a spill notice recognised in tool-result text: its
// convention and the path it names, exactly as written.
type SpillNotice struct {
	Kind string `json:"kind"`
	Path string `json:"path"`
}

// NoticeRule recognises one spill-notice convention in tool-result text.
// The harness that writes the convention owns its rule (Harness.Notices);
// the recogniser itself is the retention core's, one per convention, which
// the readers call too. A recognised notice is a text convention, not proof
// that the harness wrote it: an MCP bridge relays another harness's notice
// verbatim, and a tool result can forge one (the file rule decides what is
// opened).
type NoticeRule struct {
	// Kind is the convention's stable name (SpillNotice.Kind).
	Kind string
	// Marker is a substring every such notice holds; the rule runs only
	// where it is present.
	Marker string
	// Match recognises the notice in the text and returns its path. A rule
	// without one is a kind its harness's reader recognises itself.
	Match func(text string) (string, bool)
}

// noticeRules is every recognised convention, in recognition order: the
// registered harnesses' rules by harness name, then the conventions of
// harnesses not read yet. It is rebuilt when a harness registers, so
// recognition (on every text block the indexer reads) never rebuilds it.
var noticeRules atomic.Pointer[[]noticeRule]

// noticeRule is a rule with its marker's search prepared.
type noticeRule struct {
	NoticeRule
	marker anchored
}

func rebuildNoticeRules(hs []Harness) {
	var all []noticeRule
	add := func(r NoticeRule) {
		if r.Match != nil {
			all = append(all, noticeRule{r, anchor(r.Marker)})
		}
	}
	claimed := map[string]bool{}
	for _, h := range hs {
		for _, r := range h.Notices() {
			claimed[r.Kind] = true
			add(r)
		}
	}
	var pending []string
	for k := range pendingConventions {
		if !claimed[k] {
			pending = append(pending, k)
		}
	}
	sort.Strings(pending)
	for _, k := range pending {
		add(pendingConventions[k].rule)
	}
	noticeRules.Store(&all)
}

// RecogniseSpill finds the first spill notice of a known convention in text.
func RecogniseSpill(text string) (SpillNotice, bool) {
	rules := noticeRules.Load()
	if rules == nil {
		return SpillNotice{}, false
	}
	for _, r := range *rules {
		if r.marker.in(text) {
			if p, ok := r.Match(text); ok && p != "" {
				return SpillNotice{Kind: r.Kind, Path: p}, true
			}
		}
	}
	return SpillNotice{}, false
}

// anchored finds one marker by its rarest byte: every text block the
// indexer reads is searched for every convention's marker, and
// strings.Contains looks for a marker's first byte, which for a marker
// starting with a common letter ("exceeds…", "characters…") or an
// unusually frequent one ("<" in markup) stops and compares at nearly
// every word. A byte rare in prose and code lets IndexByte skip most of the
// text between the places worth a compare. A marker starting with a
// capital is left to strings.Contains, which does as well there.
type anchored struct {
	s  string
	at int // the anchor's index in s; -1 for strings.Contains
}

// anchor prepares s's search: its anchor is the byte of s rarest by
// byteCommonness (the first of equals).
func anchor(s string) anchored {
	a := anchored{s: s}
	if len(s) == 0 || (s[0] >= 'A' && s[0] <= 'Z') {
		a.at = -1
		return a
	}
	for i := 1; i < len(s); i++ {
		if byteCommonness(s[i]) < byteCommonness(s[a.at]) {
			a.at = i
		}
	}
	return a
}

// in reports whether text holds the marker, as strings.Contains does.
func (a anchored) in(text string) bool {
	if a.at < 0 {
		return strings.Contains(text, a.s)
	}
	c := a.s[a.at]
	for i := a.at; i < len(text); {
		j := strings.IndexByte(text[i:], c)
		if j < 0 {
			return false
		}
		p := i + j - a.at
		if p+len(a.s) > len(text) {
			return false
		}
		if text[p:p+len(a.s)] == a.s {
			return true
		}
		i += j + 1
	}
	return false
}

// byteCommonness ranks how often a byte turns up in tool output (prose,
// code, logs): a rough order, which only the search's speed depends on.
func byteCommonness(c byte) int {
	const lower = "etaoinsrhldcumfpgwybvkxjqz"
	switch {
	case c == ' ' || c == '\n' || c == '\t':
		return 100
	case c >= 'a' && c <= 'z':
		return 99 - strings.IndexByte(lower, c)
	case c >= 'A' && c <= 'Z':
		return 60 - strings.IndexByte(lower, c+'a'-'A')
	case c >= '0' && c <= '9', c == '.', c == ',', c == ':', c == '/', c == '_', c == '-', c == '"', c == '=':
		return 70
	case c < 0x80:
		return 40
	}
	return 20
}
