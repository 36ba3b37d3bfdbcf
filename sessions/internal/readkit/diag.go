package readkit

import (
	"fmt"
	"sort"
)

// Diagnostic is something wrong with, or skipped in, a harness's input. Code
// is stable and names the kind ("copilot.unknown-event"); Params carry its
// values for a translated message; Message is the English sentence. Line is
// the 1-based line of a line log or a JSON document, Row the row id in a
// database table; either may be 0 when the fault is about the whole source.
type Diagnostic struct {
	Code    string            `json:"code"`
	Params  map[string]string `json:"params,omitempty"`
	Message string            `json:"message"`
	Line    int64             `json:"line,omitempty"`
	Row     int64             `json:"row,omitempty"`
}

// Tally counts repeated faults of one kind per key (an unknown event type,
// an unknown part type) so a source yields one diagnostic per key with the
// count and the first place, however many lines repeat it: a panel of
// 10,000 files stays readable.
type Tally struct {
	seen map[string]*tallied
}

type tallied struct {
	key         string
	count       int
	first       int64
	firstIsLine bool
}

// Add records one occurrence of key at line (or, when line is 0, row).
func (t *Tally) Add(key string, line, row int64) {
	if t.seen == nil {
		t.seen = map[string]*tallied{}
	}
	if e, ok := t.seen[key]; ok {
		e.count++
		return
	}
	e := &tallied{key: key, count: 1, first: line, firstIsLine: true}
	if line == 0 {
		e.first, e.firstIsLine = row, false
	}
	t.seen[key] = e
}

// Len is the number of distinct keys.
func (t *Tally) Len() int { return len(t.seen) }

// Diagnostics turns the tally into one diagnostic per key, in key order,
// each with params "key" (under the name keyParam), "count" and "first".
// describe words the message from the key and the count.
func (t *Tally) Diagnostics(code, keyParam string, describe func(key string, count int) string) []Diagnostic {
	keys := make([]string, 0, len(t.seen))
	for k := range t.seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]Diagnostic, 0, len(keys))
	for _, k := range keys {
		e := t.seen[k]
		d := Diagnostic{
			Code:    code,
			Params:  map[string]string{keyParam: k, "count": fmt.Sprint(e.count), "first": fmt.Sprint(e.first)},
			Message: describe(k, e.count),
		}
		if e.firstIsLine {
			d.Line = e.first
		} else {
			d.Row = e.first
		}
		out = append(out, d)
	}
	return out
}

// Quote shows the first bytes of bad input so a diagnostic says what was
// there without echoing a whole, possibly secret-bearing, line.
func Quote(b []byte) string {
	const n = 2
	if len(b) > n {
		return fmt.Sprintf("%q…", b[:n])
	}
	return fmt.Sprintf("%q", b)
}
