package app

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"spillscope/retention/links"
)

// Exports write what a screen shows, row for row: the same bound call with
// the same query and filters, every page of it. A subject is a table
// (columns and rows) written as CSV (RFC 4180, encoding/csv) or JSON (an
// array of objects keyed by the CSV header, values as the CSV cells read
// them), or the HTML audit report (report.go).

// Export subjects.
const (
	ExportSweep   = "sweep"
	ExportResults = "results"
	ExportLinks   = "links"
	ExportCompare = "compare"
	ExportReport  = "report"
)

// Export formats.
const (
	FormatCSV  = "csv"
	FormatJSON = "json"
	FormatHTML = "html"
)

// ExportRequest says what to export, as which format, and where: the
// request of the screen it comes from, for its subject.
type ExportRequest struct {
	// What is sweep, results, links, compare or report.
	What string `json:"what"`
	// Format is csv or json for a table; html or json for the report.
	Format string `json:"format"`
	// Path is the file Export writes (never inside a session folder).
	Path string `json:"path"`
	// Sweep is the budget sweep shown; with Policies.Columns set, the
	// policy sweep (one series each) is exported instead.
	Sweep    SweepRequest         `json:"sweep"`
	Policies SweepPoliciesRequest `json:"policies"`
	Results  ResultsExport        `json:"results"`
	Links    LinkQuery            `json:"links"`
	Compare  CompareRequest       `json:"compare"`
	Report   ReportRequest        `json:"report"`
}

// ResultsExport names a list of results: "largest" (across the index),
// "session" (one session's, in its order, only notices or all) or "search"
// (a full-text query, in its order).
type ResultsExport struct {
	List        string `json:"list"`
	SessionID   int64  `json:"sessionId"`
	Order       string `json:"order"`
	OnlyNotices bool   `json:"onlyNotices"`
	Query       string `json:"query"`
}

// ExportResult is what was written.
type ExportResult struct {
	Path  string `json:"path"`
	Rows  int    `json:"rows"`
	Bytes int64  `json:"bytes"`
}

// column is one column of an exported table: its key (the CSV header and
// JSON name) and its value for a row. raw marks a value already stripped
// of every credential (a redacted URI), which masking would only garble.
type column[T any] struct {
	key string
	val func(T) any
	raw bool
}

// table is an exported subject: string values are masked (links.Mask)
// unless their column is raw.
type table struct {
	keys []string
	rows [][]any
}

func tableOf[T any](cols []column[T], rows []T) table {
	t := table{keys: make([]string, len(cols)), rows: make([][]any, 0, len(rows))}
	for i, c := range cols {
		t.keys[i] = c.key
	}
	for _, r := range rows {
		vals := make([]any, len(cols))
		for i, c := range cols {
			v := c.val(r)
			if s, ok := v.(string); ok && !c.raw {
				v, _ = links.Mask(s)
			}
			vals[i] = v
		}
		t.rows = append(t.rows, vals)
	}
	return t
}

// cellText is a value as its CSV cell holds it.
func cellText(v any) string {
	switch x := v.(type) {
	case string:
		return csvGuard(x)
	case bool:
		return strconv.FormatBool(x)
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

// csvGuard keeps a spreadsheet from running a text cell as a formula: a
// cell that begins with = + - @ or a tab or carriage return (text from a
// tool result, a project folder) gets a leading apostrophe (OWASP's CSV
// injection advice). Only text cells: numbers are written as they are.
func csvGuard(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// writeCSV writes t with a header row, CRLF line ends (RFC 4180).
func writeCSV(w io.Writer, t table) error {
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	if err := cw.Write(t.keys); err != nil {
		return err
	}
	rec := make([]string, len(t.keys))
	for _, r := range t.rows {
		for i, v := range r {
			rec[i] = cellText(v)
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// tableJSON is t as a JSON array of objects, keys in column order.
func tableJSON(t table) (json.RawMessage, error) {
	var b bytes.Buffer
	b.WriteString("[")
	for i, r := range t.rows {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n  {")
		for j, v := range r {
			if j > 0 {
				b.WriteString(", ")
			}
			k, _ := json.Marshal(t.keys[j])
			val, err := json.Marshal(v)
			if err != nil {
				return nil, err
			}
			b.Write(k)
			b.WriteString(": ")
			b.Write(val)
		}
		b.WriteString("}")
	}
	if len(t.rows) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("]")
	return b.Bytes(), nil
}

// The tables of each subject, in the order of the screen's columns.

var sweepColumns = []column[SweepRow]{
	{key: "budget", val: func(r SweepRow) any { return r.Budget }},
	{key: "results", val: func(r SweepRow) any { return r.Results }},
	{key: "replaced", val: func(r SweepRow) any { return r.Replaced }},
	{key: "noticeOnly", val: func(r SweepRow) any { return r.NoticeOnly }},
	{key: "preserved", val: func(r SweepRow) any { return r.Preserved }},
	{key: "inlineTokens", val: func(r SweepRow) any { return r.InlineTokens }},
	{key: "inlineTokensLowerBound", val: func(r SweepRow) any { return r.InlineTokensLowerBound }},
	{key: "omittedBytes", val: func(r SweepRow) any { return r.OmittedBytes }},
	{key: "omittedImages", val: func(r SweepRow) any { return r.OmittedImages }},
}

// seriesRow is one budget of one policy's series, as the policy sweep's
// table shows it.
type seriesRow struct {
	s SweepSeries
	r SeriesRow
}

var seriesColumns = []column[seriesRow]{
	{key: "policy", val: func(x seriesRow) any { return x.s.Policy }},
	{key: "yardstick", val: func(x seriesRow) any { return x.s.Yardstick }},
	{key: "slider", val: func(x seriesRow) any { return x.r.Slider }},
	{key: "budgetParam", val: func(x seriesRow) any { return x.s.BudgetParam }},
	{key: "budget", val: func(x seriesRow) any { return x.r.Budget }},
	{key: "budgetUnit", val: func(x seriesRow) any { return x.s.BudgetUnit }},
	{key: "results", val: func(x seriesRow) any { return x.r.Results }},
	{key: "replaced", val: func(x seriesRow) any { return x.r.Replaced }},
	{key: "noticeOnly", val: func(x seriesRow) any { return x.r.NoticeOnly }},
	{key: "preserved", val: func(x seriesRow) any { return x.r.Preserved }},
	{key: "inlineTokens", val: func(x seriesRow) any { return x.r.InlineTokens }},
	{key: "yardstickTokens", val: func(x seriesRow) any { return x.r.YardstickTokens }},
	{key: "inlineTokensLowerBound", val: func(x seriesRow) any { return x.r.InlineTokensLowerBound }},
	{key: "omittedBytes", val: func(x seriesRow) any { return x.r.OmittedBytes }},
	{key: "omittedImages", val: func(x seriesRow) any { return x.r.OmittedImages }},
	{key: "lostBytes", val: func(x seriesRow) any { return x.r.LostBytes }},
	{key: "lostLines", val: func(x seriesRow) any { return x.r.LostLines }},
	{key: "lostImages", val: func(x seriesRow) any { return x.r.LostImages }},
}

var resultColumns = []column[ResultRow]{
	{key: "id", val: func(r ResultRow) any { return r.ID }},
	{key: "sessionId", val: func(r ResultRow) any { return r.SessionID }},
	{key: "project", val: func(r ResultRow) any { return r.Project }},
	{key: "tool", val: func(r ResultRow) any { return r.Tool }},
	{key: "callId", val: func(r ResultRow) any { return r.CallID }},
	{key: "time", val: func(r ResultRow) any { return r.Time }},
	{key: "isError", val: func(r ResultRow) any { return r.IsError }},
	{key: "tokens", val: func(r ResultRow) any { return r.Tokens }},
	{key: "tokensExact", val: func(r ResultRow) any { return r.TokensExact }},
	{key: "textBytes", val: func(r ResultRow) any { return r.TextBytes }},
	{key: "images", val: func(r ResultRow) any { return r.Images }},
	{key: "noticeKind", val: func(r ResultRow) any { return r.NoticeKind }},
	{key: "noticePath", val: func(r ResultRow) any { return r.NoticePath }},
	{key: "noticeFileState", val: func(r ResultRow) any { return r.NoticeFileState }},
	{key: "file", val: func(r ResultRow) any { return r.File }},
	{key: "line", val: func(r ResultRow) any { return r.Line }},
}

var linkColumns = []column[LinkRow]{
	{key: "class", val: func(r LinkRow) any { return r.Class }},
	{key: "shown", val: func(r LinkRow) any { return r.Shown }},
	{key: "reason", val: func(r LinkRow) any { return r.Reason }},
	{key: "parameter", val: func(r LinkRow) any { return r.Parameter }},
	{key: "families", val: func(r LinkRow) any { return strings.Join(r.Families, " ") }},
	{key: "host", val: func(r LinkRow) any { return r.Host }},
	// RedactURI keeps no value at all; masking would re-read its elisions.
	{key: "uri", val: func(r LinkRow) any { return r.URI }, raw: true},
	{key: "tool", val: func(r LinkRow) any { return r.Tool }},
	{key: "project", val: func(r LinkRow) any { return r.Project }},
	{key: "file", val: func(r LinkRow) any { return r.File }},
	{key: "line", val: func(r LinkRow) any { return r.Line1 }},
	{key: "resultId", val: func(r LinkRow) any { return r.ResultID }},
	{key: "block", val: func(r LinkRow) any { return r.Block }},
	{key: "start", val: func(r LinkRow) any { return r.Start }},
	{key: "end", val: func(r LinkRow) any { return r.End }},
}

// compareRow is one column of a comparison, a row of its export.
type compareRow struct {
	v CompareView
	c CompareColumn
}

var compareColumns = []column[compareRow]{
	{key: "policy", val: func(x compareRow) any { return x.c.Policy }},
	{key: "harness", val: func(x compareRow) any { return x.c.Harness }},
	{key: "error", val: func(x compareRow) any { return x.c.Error }},
	{key: "status", val: func(x compareRow) any { return x.c.Status }},
	{key: "budgetParam", val: func(x compareRow) any { return x.c.BudgetParam }},
	{key: "budget", val: func(x compareRow) any { return x.c.Params[x.c.BudgetParam] }},
	{key: "budgetUnit", val: func(x compareRow) any { return x.c.BudgetUnit }},
	{key: "ownEstimator", val: func(x compareRow) any { return x.c.Own.Estimator }},
	{key: "ownTokens", val: func(x compareRow) any { return int64(x.c.Own.Total) }},
	{key: "yardstick", val: func(x compareRow) any { return x.v.Yardstick }},
	{key: "yardstickTokens", val: func(x compareRow) any { return int64(x.c.Yardstick.Total) }},
	{key: "originalTokens", val: func(x compareRow) any { return int64(x.c.OriginalTokens) }},
	{key: "omittedBytes", val: func(x compareRow) any { return x.c.Omitted.Bytes }},
	{key: "omittedLines", val: func(x compareRow) any { return x.c.Omitted.Lines }},
	{key: "omittedImages", val: func(x compareRow) any { return x.c.Omitted.Images }},
	{key: "lostBytes", val: func(x compareRow) any { return x.c.Lost.Bytes }},
	{key: "lostLines", val: func(x compareRow) any { return x.c.Lost.Lines }},
	{key: "lostImages", val: func(x compareRow) any { return x.c.Lost.Images }},
	{key: "recoverableBytes", val: func(x compareRow) any { return x.c.Recoverable.Bytes }},
	{key: "locator", val: func(x compareRow) any { return x.c.Locator }},
}

func seriesRows(series []SweepSeries) []seriesRow {
	var out []seriesRow
	for _, s := range series {
		for _, r := range s.Rows {
			out = append(out, seriesRow{s, r})
		}
	}
	return out
}

func compareRows(v CompareView) []compareRow {
	out := make([]compareRow, len(v.Columns))
	for i, c := range v.Columns {
		out[i] = compareRow{v, c}
	}
	return out
}
