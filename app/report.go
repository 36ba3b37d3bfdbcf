package app

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"

	"spillscope/retention"
	"spillscope/retention/links"
	"spillscope/sessions"
)

// The audit report: one HTML file for a session or the whole index that
// opens in any browser offline. html/template escapes every value; the CSS
// is inline, there is no script and no URL a browser would fetch (a
// Content-Security-Policy of default-src 'none' says so to the browser
// too); every value was masked (links.Mask) when its table was built, and
// URIs are links.RedactURI's, which keep no value at all.

// ReportRequest scopes the report: one session (a sessions row id) or the
// whole index (0), swept at Budgets (default: the window's), comparing
// Policies on the scope's largest result (default: its harness's), in
// Language ("en" or "zh").
type ReportRequest struct {
	SessionID int64    `json:"sessionId"`
	Budgets   []int64  `json:"budgets"`
	Policies  []string `json:"policies"`
	Route     string   `json:"route"`
	Language  string   `json:"language"`
	// Largest is how many largest results to list (default 25).
	Largest int `json:"largest"`
}

// DefaultReportBudgets are the sweep screen's default budgets.
var DefaultReportBudgets = []int64{2000, 5000, 12500, 25000, 50000}

// reportLinkRows bounds the flagged links the report lists; the CSV export
// of the links list holds them all.
const reportLinkRows = 2000

//go:embed report.html.tmpl
var reportTemplateText string

var reportTemplate = template.Must(template.New("report").Parse(reportTemplateText))

// reportInput is what the report is made of, read through the screens'
// services (report) or given by a test.
type reportInput struct {
	Lang        string
	Session     *SessionRow
	Status      IndexStatus
	Largest     []ResultRow
	Sweep       []SweepRow
	Links       []LinkRow
	LinkCounts  LinkPage
	Flagged     int
	Facets      LinkFacets
	Compare     *CompareView
	CompareOf   *ResultRow
	Notes       []string
	Generated   time.Time
	AppVersion  string
	LargestSize int
}

// report is a built report: its tables (masked, as the exports write them)
// and what the HTML shows of them.
type report struct {
	scope, generated, version string
	summaryJSON               map[string]any
	linkCounts                map[string]int
	largest, sweep            table
	links, compare            table
	view                      reportView
}

// reportView is the template's data: every string is plain text.
type reportView struct {
	L           reportLabels
	Scope       string
	Generated   string
	Version     string
	Summary     []fact
	Largest     htmlTable
	Sweep       htmlTable
	Chart       *svgChart
	Classes     []fact
	Families    []fact
	Reasons     []fact
	Hosts       []fact
	Links       htmlTable
	LinksCapped string
	Compare     htmlTable
	CompareOf   string
	Notes       []string
}

type fact struct{ Label, Value string }

type htmlTable struct {
	Head []string
	// Num right-aligns a column of numbers; Wrap lets a column of long
	// unbroken text (a URI, a path) break anywhere (its CSS classes), so the short columns
	// keep their words whole.
	Num  []bool
	Wrap []string
	Rows [][]htmlCell
}

// htmlCell is one cell's text and, where the cell shortens it (a file
// path to its name), the whole of it for the cell's title.
type htmlCell struct {
	Text, Title string
}

// report reads a report's parts through the screens' services.
func (e *Exports) report(q ReportRequest) (report, error) {
	in := reportInput{Lang: q.Language, Generated: e.now(), AppVersion: Version, LargestSize: q.Largest}
	if in.LargestSize <= 0 {
		in.LargestSize = 25
	}
	if q.SessionID < 0 {
		return report{}, coded("session-id-invalid", "id", q.SessionID)
	}
	var err error
	if in.Status, err = e.sessions.Status(); err != nil {
		return report{}, err
	}
	if q.SessionID > 0 {
		s, err := e.sessions.Session(q.SessionID)
		if err != nil {
			return report{}, err
		}
		in.Session = &s
		p, err := e.sessions.Results(ResultsQuery{SessionID: q.SessionID, Order: "tokens", Limit: in.LargestSize})
		if err != nil {
			return report{}, err
		}
		in.Largest = p.Rows
	} else {
		p, err := e.sessions.Largest(PageQuery{Limit: in.LargestSize})
		if err != nil {
			return report{}, err
		}
		in.Largest = p.Rows
	}
	budgets := q.Budgets
	if len(budgets) == 0 {
		budgets = DefaultReportBudgets
	}
	if len(in.Largest) > 0 {
		if in.Sweep, err = e.retention.Sweep(SweepRequest{SessionID: q.SessionID, Budgets: budgets, Route: q.Route}); err != nil {
			in.Notes = append(in.Notes, "sweep: "+AsError(err).Code)
		}
		top := in.Largest[0]
		req := CompareRequest{ResultID: top.ID, Route: q.Route}
		for _, p := range q.Policies {
			req.Columns = append(req.Columns, CompareColumnSpec{Policy: p})
		}
		if v, err := e.retention.Compare(req); err == nil {
			in.Compare, in.CompareOf = &v, &top
		} else {
			in.Notes = append(in.Notes, "compare: "+AsError(err).Code)
		}
	}
	all, err := e.links.List(LinkQuery{SessionID: q.SessionID, Limit: 1})
	if err != nil {
		return report{}, err
	}
	in.LinkCounts = all
	rows, flagged, err := e.linkRows(LinkQuery{SessionID: q.SessionID, OnlyHidden: true}, reportLinkRows)
	if err != nil {
		return report{}, err
	}
	in.Links, in.Flagged = rows, flagged.Total
	if in.Facets, err = e.links.Facets(q.SessionID); err != nil {
		return report{}, err
	}
	return buildReport(in), nil
}

// buildReport makes the report's tables and view from its parts.
func buildReport(in reportInput) report {
	L := labelsFor(in.Lang)
	r := report{generated: in.Generated.UTC().Format(time.RFC3339), version: in.AppVersion, summaryJSON: map[string]any{}}
	v := reportView{L: L, Generated: r.generated, Version: printed(in.AppVersion), Notes: []string{}}
	if in.Session != nil {
		s := *in.Session
		r.scope = "session " + s.SessionID
		v.Scope = L.SessionScope + " " + printed(s.SessionID) + " · " + printed(s.Project)
		add := func(k string, val any) {
			if str, ok := val.(string); ok {
				val, _ = links.Mask(str)
			}
			r.summaryJSON[k] = val
			v.Summary = append(v.Summary, fact{L.Facts[k], display(val)})
		}
		add("harness", s.HarnessLabel)
		add("sessionId", s.SessionID)
		add("project", s.Project)
		add("model", s.Model)
		add("route", s.Route)
		add("started", s.Started)
		add("ended", s.Ended)
		add("toolResults", s.ToolResults)
		add("images", s.Images)
		add("spillNotices", s.SpillNotices)
		add("textBytes", s.TextBytes)
		add("tokens", s.Tokens)
		add("inputTokens", s.InputTokens)
	} else {
		r.scope = "index"
		v.Scope = L.WholeIndex
		st := in.Status
		for _, f := range []struct {
			k string
			n int64
		}{{"sessions", int64(st.Sessions)}, {"toolResults", int64(st.ToolResults)}, {"images", int64(st.Images)},
			{"spillNotices", int64(st.SpillNotices)}, {"files", int64(st.Files)}, {"bytes", st.Bytes}, {"diagnostics", int64(st.Diagnostics)}} {
			r.summaryJSON[f.k] = f.n
			v.Summary = append(v.Summary, fact{L.Facts[f.k], display(f.n)})
		}
	}
	r.summaryJSON["links"] = int64(in.LinkCounts.Total)
	v.Summary = append(v.Summary, fact{L.Facts["links"], display(int64(in.LinkCounts.Total))})

	r.largest = tableOf(resultColumns, in.Largest)
	v.Largest = htmlOf(r.largest, L, []string{"tool", "project", "tokens", "textBytes", "images", "noticeKind", "source"}, true)
	for i, row := range in.Largest {
		if !row.TokensExact && i < len(v.Largest.Rows) {
			v.Largest.Rows[i][3].Text = "≈ " + v.Largest.Rows[i][3].Text
		}
	}
	r.sweep = tableOf(sweepColumns, in.Sweep)
	v.Sweep = htmlOf(r.sweep, L, []string{"budget", "results", "replaced", "noticeOnly", "preserved", "inlineTokens", "omittedBytes", "omittedImages"}, false)
	v.Chart = sweepChart(in.Sweep, L)

	c := in.LinkCounts
	r.linkCounts = map[string]int{sessions.ClassPlain: c.Plain, sessions.ClassRedacted: c.Redacted, sessions.ClassStubbed: c.Stubbed, sessions.ClassMarker: c.Markers}
	for _, k := range []string{sessions.ClassPlain, sessions.ClassRedacted, sessions.ClassStubbed, sessions.ClassMarker} {
		v.Classes = append(v.Classes, fact{L.ClassNames[k], display(int64(r.linkCounts[k]))})
	}
	facts := func(in []FacetCount) []fact {
		out := make([]fact, 0, len(in))
		for _, f := range in {
			out = append(out, fact{printed(f.Value), display(int64(f.Count))})
		}
		return out
	}
	v.Families, v.Reasons = facts(in.Facets.Families), facts(in.Facets.Reasons)
	v.Hosts = facts(in.Facets.Hosts[:min(len(in.Facets.Hosts), 10)])
	r.links = tableOf(linkColumns, in.Links)
	v.Links = htmlOf(r.links, L, []string{"class", "reason", "parameter", "families", "host", "uri", "tool", "source", "where"}, false)
	for i := range v.Links.Rows {
		if name, ok := L.ClassShort[v.Links.Rows[i][0].Text]; ok {
			v.Links.Rows[i][0].Text = name
		}
	}
	if in.Flagged > len(in.Links) {
		v.LinksCapped = fmt.Sprintf(L.LinksCapped, len(in.Links), in.Flagged)
	}
	if in.Compare != nil {
		r.compare = tableOf(compareColumns, compareRows(*in.Compare))
		v.Compare = htmlOf(r.compare, L, []string{"policy", "status", "budget", "ownTokens", "yardstickTokens", "omittedBytes", "lostBytes", "recoverableBytes"}, false)
		v.CompareOf = fmt.Sprintf("#%d %s (%s)", in.CompareOf.ID, printed(in.CompareOf.Tool), printed(in.Compare.Yardstick))
	} else {
		r.compare = tableOf(compareColumns, nil)
	}
	for _, n := range in.Notes {
		v.Notes = append(v.Notes, printed(n))
	}
	r.view = v
	return r
}

// htmlOf picks keys' columns of t for the HTML, numbers grouped; "source"
// joins file and line, "where" result and block, "budget" of a comparison
// names its parameter and unit. rank adds a # column.
func htmlOf(t table, L reportLabels, keys []string, rank bool) htmlTable {
	idx := map[string]int{}
	for i, k := range t.keys {
		idx[k] = i
	}
	get := func(row []any, k string) any {
		if i, ok := idx[k]; ok {
			return row[i]
		}
		return nil
	}
	var h htmlTable
	if rank {
		h.Head, h.Num, h.Wrap = append(h.Head, L.Cols["rank"]), append(h.Num, true), append(h.Wrap, "")
	}
	for _, k := range keys {
		h.Head = append(h.Head, L.Cols[k])
		_, isNum := get(firstRow(t), k).(int64)
		_, isInt := get(firstRow(t), k).(int)
		h.Num = append(h.Num, isNum || isInt)
		switch k {
		case "uri":
			h.Wrap = append(h.Wrap, "wrap uri")
		case "source", "project", "host":
			h.Wrap = append(h.Wrap, "wrap")
		default:
			h.Wrap = append(h.Wrap, "")
		}
	}
	for n, row := range t.rows {
		var cells []htmlCell
		if rank {
			cells = append(cells, htmlCell{Text: strconv.Itoa(n + 1)})
		}
		for _, k := range keys {
			var c, title string
			switch k {
			case "source":
				file, line := shown(cellString(get(row, "file"))), cellString(get(row, "line"))
				c, title = filepath.Base(file)+":"+line, file+":"+line
			case "where":
				b, _ := get(row, "block").(int)
				c = fmt.Sprintf("#%s · %d", cellString(get(row, "resultId")), b+1)
			case "budget":
				if p := cellString(get(row, "budgetParam")); p != "" {
					c = shown(p) + " = " + display(get(row, "budget")) + " " + shown(cellString(get(row, "budgetUnit")))
				} else {
					c = display(get(row, k))
				}
			default:
				c = display(get(row, k))
			}
			cells = append(cells, htmlCell{Text: c, Title: title})
		}
		h.Rows = append(h.Rows, cells)
	}
	return h
}

func firstRow(t table) []any {
	if len(t.rows) == 0 {
		return make([]any, len(t.keys))
	}
	return t.rows[0]
}

func cellString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return cellText(v)
}

// display is a value as the report prints it: numbers grouped by
// thousands, booleans as they read, text without control characters.
func display(v any) string {
	switch x := v.(type) {
	case int:
		return grouped(int64(x))
	case int64:
		return grouped(x)
	case string:
		return shown(x)
	}
	return shown(cellText(v))
}

// grouped is a count as the report prints it: 1,234.
func grouped(n int64) string { return retention.GroupDigits(n) }

// shown drops control and format characters (and the line and paragraph
// separators) from text the report prints, and bounds it: HTML cannot
// carry a NUL, and no value may reorder or break the lines around it.
func shown(s string) string {
	const maxRunes = 2000
	var b strings.Builder
	n := 0
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == 0x2028 || r == 0x2029 {
			continue
		}
		if n == maxRunes {
			b.WriteString("…")
			break
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// printed is a value from outside the report's tables as the report prints
// it: masked, then shown.
func printed(s string) string {
	m, _ := links.Mask(s)
	return shown(m)
}

// svgChart is the sweep drawn as an inline SVG: budgets on a log scale,
// tokens kept inline on a linear one.
type svgChart struct {
	W, H, Left, Right, Top, Bottom float64
	Path                           string
	Points                         []svgPoint
	YTicks                         []svgTick
	Title, XLabel, YLabel          string
}

type svgPoint struct {
	X, Y   float64
	Label  string
	Budget string
}

type svgTick struct {
	Y     float64
	Label string
}

func sweepChart(rows []SweepRow, L reportLabels) *svgChart {
	if len(rows) == 0 {
		return nil
	}
	c := &svgChart{W: 720, H: 280, Left: 70, Right: 700, Top: 24, Bottom: 240, Title: L.Chart, XLabel: L.ChartX, YLabel: L.ChartY}
	// Points stand inside the axes, so their labels clear the tick labels
	// and the right edge.
	x0, x1 := c.Left+36, c.Right-36
	lo, hi := math.Inf(1), math.Inf(-1)
	var top int64 = 1
	for _, r := range rows {
		x := math.Log10(float64(max(r.Budget, 1)))
		lo, hi = math.Min(lo, x), math.Max(hi, x)
		top = max(top, r.InlineTokens)
	}
	span := hi - lo
	var path strings.Builder
	for i, r := range rows {
		x := (x0 + x1) / 2
		if span > 0 {
			x = x0 + (math.Log10(float64(max(r.Budget, 1)))-lo)/span*(x1-x0)
		}
		y := c.Bottom - float64(r.InlineTokens)/float64(top)*(c.Bottom-c.Top)
		x, y = math.Round(x*10)/10, math.Round(y*10)/10
		if i == 0 {
			fmt.Fprintf(&path, "M%g %g", x, y)
		} else {
			fmt.Fprintf(&path, " L%g %g", x, y)
		}
		c.Points = append(c.Points, svgPoint{X: x, Y: y, Label: grouped(r.InlineTokens), Budget: grouped(r.Budget)})
	}
	c.Path = path.String()
	for k := 0; k <= 4; k++ {
		val := top * int64(k) / 4
		c.YTicks = append(c.YTicks, svgTick{Y: math.Round((c.Bottom-float64(val)/float64(top)*(c.Bottom-c.Top))*10) / 10, Label: grouped(val)})
	}
	return c
}

// writeReportHTML renders the report.
func writeReportHTML(w io.Writer, r report) error {
	if err := reportTemplate.Execute(w, r.view); err != nil {
		return fmt.Errorf("app: report: %w", err)
	}
	return nil
}
