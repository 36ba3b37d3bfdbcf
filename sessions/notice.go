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
var noticeRules atomic.Pointer[[]NoticeRule]

func rebuildNoticeRules(hs []Harness) {
	var all []NoticeRule
	add := func(r NoticeRule) {
		if r.Match != nil {
			all = append(all, r)
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
		if strings.Contains(text, r.Marker) {
			if p, ok := r.Match(text); ok && p != "" {
				return SpillNotice{Kind: r.Kind, Path: p}, true
			}
		}
	}
	return SpillNotice{}, false
}
