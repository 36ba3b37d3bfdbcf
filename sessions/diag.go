package sessions

import (
	"fmt"
	"strconv"
)

// Diagnostic codes. Each is stable: the window translates a diagnostic by
// its code and params, and falls back to Message (English) for a code it
// does not know.
const (
	// DiagNotJSON: a line that is not a JSON object. Params: start (its
	// first bytes, quoted).
	DiagNotJSON = "not-json"
	// DiagNoType: a JSON line without the "type" its format requires.
	DiagNoType = "no-type"
	// DiagUnknownType: lines of a type the reader does not know, one
	// diagnostic per type and file. Params: type, count, firstLine.
	DiagUnknownType = "unknown-line-type"
	// DiagNotASession: a file its harness claimed by name in which no
	// line is one of its records: one diagnostic for the whole file.
	// Params: harness (its label), lines (the lines that were not).
	DiagNotASession = "not-a-session"
	// DiagUnreadable: the file could not be opened or read. Params: error.
	DiagUnreadable = "unreadable"
	// DiagBadShape: a part of a record is not the JSON kind its format
	// has there. Params: part (a JSON path such as message.content), want
	// ("object" or "array").
	DiagBadShape = "bad-shape"
	// DiagMissingField: a record lacks a field it must have. Params: field.
	DiagMissingField = "missing-field"
	// DiagResultProblem: part of one tool result's content did not
	// convert. Params: callId, detail (English).
	DiagResultProblem = "result-problem"
	// DiagBadImage: an image block whose bytes could not be stored.
	// Params: callId, block, detail (English).
	DiagBadImage = "bad-image"
	// DiagBadRecord: a record (a line's event, a database row, a file of a
	// storage folder) that is not of its format's shape. Params: where (the
	// record, in English: "part prt_… (row 12)"), error (English).
	DiagBadRecord = "bad-record"
	// DiagUnknownItem: content items or parts of a type the reader does not
	// know, one diagnostic per type and source. Params: type, count, where
	// (the first, in English: "line 12", "row 40").
	DiagUnknownItem = "unknown-item-type"
	// DiagOrphanResult: a tool result whose call the session never made, so
	// its tool name is unknown. Params: callId.
	DiagOrphanResult = "orphan-result"
	// DiagNotSource: a file its harness took for one of its sources (a
	// database, an export document) that turned out not to be one. Params:
	// harness (its label), detail (English).
	DiagNotSource = "not-a-source"
	// DiagTornTail: the source ends inside a record (a zstd frame or a
	// line still being written, or cut by a crash); it is read once
	// complete. Each pass replaces it. Params: offset (where the torn part
	// starts).
	DiagTornTail = "torn-tail"
	// DiagLogProblem: something a harness's own reader found wrong in its
	// log (a frame failing its checksum, a seq gap, an event of the wrong
	// shape). Params: problem (the reader's stable code), detail (English).
	DiagLogProblem = "log-problem"
	// DiagUnknownField: records whose field holds a value the reader does
	// not know (a content block's or an item's type), one diagnostic per
	// field, value and file; the records are kept as far as they are
	// understood. Params: field, value, count, firstLine.
	DiagUnknownField = "unknown-field"
)

// DiagCodes are every code this package writes; the window's catalogues
// word each of them (frontend/src/i18n, section diagnostic).
var DiagCodes = []string{DiagNotJSON, DiagNoType, DiagUnknownType, DiagNotASession, DiagUnreadable, DiagBadShape,
	DiagMissingField, DiagResultProblem, DiagBadImage, DiagBadRecord, DiagUnknownItem, DiagOrphanResult, DiagNotSource, DiagTornTail, DiagLogProblem,
	DiagUnknownField}

// diagText is a diagnostic's English message: the one place each code is
// worded, so the CLI, the log and the window's fallback say the same.
func diagText(code string, p map[string]string) string {
	switch code {
	case DiagNotJSON:
		return fmt.Sprintf("not a JSON object (starts with %s)", p["start"])
	case DiagNoType:
		return `line has no "type"`
	case DiagUnknownType:
		if p["count"] == "1" {
			return fmt.Sprintf("unknown line type %q: 1 line skipped", p["type"])
		}
		return fmt.Sprintf("unknown line type %q: %s lines skipped, the first at line %s", p["type"], p["count"], p["firstLine"])
	case DiagNotASession:
		return fmt.Sprintf("not a %s session file: none of its %s lines is one of its records", p["harness"], p["lines"])
	case DiagUnreadable:
		return "cannot read file: " + p["error"]
	case DiagBadShape:
		return fmt.Sprintf("%s is not a JSON %s", p["part"], p["want"])
	case DiagMissingField:
		return fmt.Sprintf("record has no %q", p["field"])
	case DiagResultProblem:
		return fmt.Sprintf("tool result %s: %s", p["callId"], p["detail"])
	case DiagBadImage:
		return fmt.Sprintf("tool result %s image block %s: %s", p["callId"], p["block"], p["detail"])
	case DiagBadRecord:
		return fmt.Sprintf("%s is not a valid record: %s", p["where"], p["error"])
	case DiagUnknownItem:
		return fmt.Sprintf("unknown content type %q: %s items skipped, the first in %s", p["type"], p["count"], p["where"])
	case DiagOrphanResult:
		return fmt.Sprintf("tool result %s answers a call the session never made (its tool name is unknown)", p["callId"])
	case DiagNotSource:
		return fmt.Sprintf("not a %s source: %s", p["harness"], p["detail"])
	case DiagTornTail:
		return fmt.Sprintf("the file ends inside a record from byte %s (still being written, or cut by a crash); it is read once complete", p["offset"])
	case DiagLogProblem:
		return p["detail"]
	case DiagUnknownField:
		if p["count"] == "1" {
			return fmt.Sprintf("unknown %s %q at line %s", p["field"], p["value"], p["firstLine"])
		}
		return fmt.Sprintf("unknown %s %q in %s records, the first at line %s", p["field"], p["value"], p["count"], p["firstLine"])
	}
	return code
}

// Diag records a diagnostic at a 1-based line (0: the whole file).
func (p *Parsed) Diag(line int64, code string, params map[string]string) {
	if params == nil {
		params = map[string]string{}
	}
	p.Diags = append(p.Diags, Diagnostic{Line: line, Code: code, Params: params, Message: diagText(code, params)})
}

// SkipType counts one line of an unknown type. Every type gets one
// diagnostic per file, however many lines carry it, naming the first line
// and the count: a newer harness version must not flood the panel with one
// row per line.
func (p *Parsed) SkipType(line int64, typ string) {
	p.countOnce(line, DiagUnknownType, typ, map[string]string{"type": typ})
}

// SkipField counts one record whose field holds a value the reader does not
// know, aggregated as SkipType's lines are: one diagnostic per field, value
// and file.
func (p *Parsed) SkipField(line int64, field, value string) {
	p.countOnce(line, DiagUnknownField, field+"="+value, map[string]string{"field": field, "value": value})
}

// countOnce adds one to the aggregated diagnostic of a code and subject,
// making it (with params, a count of 1 and the line) on first sight.
func (p *Parsed) countOnce(line int64, code, subject string, params map[string]string) {
	if p.skipped == nil {
		p.skipped = map[string]int{}
	}
	k := code + "\x00" + subject
	i, ok := p.skipped[k]
	if !ok {
		p.skipped[k] = len(p.Diags)
		params["count"], params["firstLine"] = "1", strconv.FormatInt(line, 10)
		p.Diag(line, code, params)
		return
	}
	d := &p.Diags[i]
	n, _ := strconv.Atoi(d.Params["count"])
	d.Params["count"] = strconv.Itoa(n + 1)
	d.Message = diagText(d.Code, d.Params)
}

// mergeCount adds an earlier pass's count of the same aggregated
// diagnostic to this one (an appended file extends the count, keeping the
// first line).
func mergeCount(d *Diagnostic, earlier Diagnostic) {
	a, _ := strconv.Atoi(d.Params["count"])
	b, _ := strconv.Atoi(earlier.Params["count"])
	d.Params["count"] = strconv.Itoa(a + b)
	if earlier.Line > 0 && (d.Line == 0 || earlier.Line < d.Line) {
		d.Line = earlier.Line
		if _, ok := d.Params["firstLine"]; ok {
			d.Params["firstLine"] = strconv.FormatInt(earlier.Line, 10)
		}
	}
	if w, ok := earlier.Params["where"]; ok && w != "" {
		// The earlier pass read the first one.
		d.Params["where"] = w
	}
	d.Message = diagText(d.Code, d.Params)
}

// aggregated reports whether a diagnostic is one row per (file, code,
// subject), merged across passes, and its subject.
func aggregated(d Diagnostic) (string, bool) {
	switch d.Code {
	case DiagUnknownType, DiagUnknownItem:
		return d.Params["type"], true
	case DiagUnknownField:
		return d.Params["field"] + "=" + d.Params["value"], true
	}
	return "", false
}

// badShape is the diagnostic for a part of a record of the wrong JSON kind.
func (p *Parsed) badShape(line int64, part, want string) {
	p.Diag(line, DiagBadShape, map[string]string{"part": part, "want": want})
}
