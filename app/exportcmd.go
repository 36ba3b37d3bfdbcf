package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"spillscope/retention"
)

// ExportSummary is `spillscope export`'s line in the usage.
const ExportSummary = "write a screen's rows (sweep, results, links, compare) as CSV or JSON, or the HTML audit report"

const exportUsage = `usage: spillscope export --what sweep|results|links|compare|report [--format csv|json|html]
                        [--out FILE] [--db PATH] [--session ID | --session-row N] [filters]

Writes what the window's screen of that name lists, every row of it, through
the same services: CSV (RFC 4180; a header row, then one row per screen row)
or JSON (an array of objects keyed by the CSV header). --what report writes the
self-contained HTML audit report of a session or the whole index (summary,
largest results, the sweep with its chart, the links audit, a policy
comparison), or the same sections as JSON. Credential values are masked; a text
cell that begins with = + - @ gets a leading ' so no spreadsheet runs it.

--out is refused inside a session folder (and the app's data folder); without
it the export goes to standard output. --session takes the harness's session
id (as the window's sessions list shows it); a session with several
transcripts (subagents) needs --session-row, the window's row number.

Filters, by screen:
  sweep    --budgets LIST  --route R  --policy P  --estimator E  --result N
           --policies P,Q (one series each; budgets are slider tokens)
  results  --list largest|session|search  --order O  --only-notices  --query WORDS
  links    --only-flagged  --reason R  --family F  --host H  --class C
  compare  --result N (default: the scope's largest)  --policies P,Q  --param P.k=v
           --budget N (the shared slider)  --route R  --estimator E
  report   --budgets LIST  --policies P,Q  --route R  --lang en|zh  --largest N

Flags:
`

// RunExport runs `spillscope export` (args after its name) and returns the
// exit code: 0 written, 1 a failure while reading or writing, 2 a usage
// error (the flag named). It reads through an Exports service over the
// app's own index (or --db), as the window's Export buttons do.
func RunExport(stdout, stderr io.Writer, getenv func(string) string, args []string) int {
	if getenv == nil {
		getenv = os.Getenv
	}
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	what := fs.String("what", "", "sweep, results, links, compare or report")
	format := fs.String("format", "", "csv or json (default csv); html or json for the report (default html)")
	out := fs.String("out", "", "the file to write (default: standard output)")
	dbPath := fs.String("db", "", "database file (default: the app's own)")
	session := fs.String("session", "", "the harness's session id")
	sessionRow := fs.Int64("session-row", 0, "the window's session row number")
	budgets := fs.String("budgets", "", "comma-separated budgets (sweep, report; default "+joinInts(DefaultReportBudgets)+")")
	route := fs.String("route", "", "image pricing route (default: each session's)")
	policy := fs.String("policy", "", "the sweep's retention policy (default "+retention.DefaultPolicy+")")
	policies := fs.String("policies", "", "comma-separated policies (sweep: one series each; compare, report: the columns)")
	estimator := fs.String("estimator", "", "text estimator (the yardstick of compare)")
	result := fs.Int64("result", 0, "one result's id (sweep, compare)")
	list := fs.String("list", "", "largest, session or search (default: session with --session, else largest)")
	order := fs.String("order", "", "the list's order (session: \"\" or tokens; search: relevance, tokens or source)")
	onlyNotices := fs.Bool("only-notices", false, "only results with a spill notice (session list)")
	query := fs.String("query", "", "the search words (search list)")
	onlyFlagged := fs.Bool("only-flagged", false, "only flagged links")
	reason := fs.String("reason", "", "only links with this reason code")
	family := fs.String("family", "", "only links whose parameter is of this credential family")
	host := fs.String("host", "", "only links to this host or its subdomains")
	class := fs.String("class", "", "only links shown so: plain, redacted, stubbed or marker")
	slider := fs.String("budget", "", "the compare's shared budget slider in tokens")
	lang := fs.String("lang", "en", "the report's language: en or zh")
	largest := fs.Int("largest", 25, "how many largest results the report lists")
	params := PolicyParams{}
	fs.Var(params, "param", "a compared policy's parameter policy.name=value (repeatable)")
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "spillscope export: "+format+"\n", a...)
		if code == 2 {
			fmt.Fprintln(stderr, "Run 'spillscope export -h' for usage.")
		}
		return code
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, exportUsage)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return 0
		}
		return fail(2, "%v", err)
	}
	if fs.NArg() > 0 {
		return fail(2, "unexpected argument %q", fs.Arg(0))
	}
	switch *what {
	case ExportSweep, ExportResults, ExportLinks, ExportCompare, ExportReport:
	case "":
		return fail(2, "--what is required: sweep, results, links, compare or report")
	default:
		return fail(2, "--what %q: want sweep, results, links, compare or report", *what)
	}
	if *lang != "en" && *lang != "zh" {
		return fail(2, "--lang %q: want en or zh", *lang)
	}
	var bs []int64
	if *budgets != "" {
		var err error
		if bs, err = ParseBudgets(*budgets); err != nil {
			return fail(2, "%v", err)
		}
	}
	var sliderTokens *int64
	if *slider != "" {
		n, err := strconv.ParseInt(strings.TrimSpace(*slider), 10, 64)
		if err != nil || n < 0 {
			return fail(2, "--budget %q: want a whole number of tokens", *slider)
		}
		sliderTokens = &n
	}

	cfg, err := ConfigFromEnv(getenv)
	if err != nil {
		return fail(1, "%v", err)
	}
	settings := NewSettingsStore(cfg.ConfigDir)
	store := NewStore(cfg, settings)
	if *dbPath != "" {
		store = NewStoreAt(cfg, settings, *dbPath)
	}
	defer store.Close()
	if _, err := os.Stat(store.DBPath()); err != nil {
		return fail(1, "no index at %s: run 'spillscope index' first", store.DBPath())
	}
	s, r, l := NewSessions(store), NewRetention(store), NewLinks(store)
	e := NewExports(store, s, r, l)

	rowID := *sessionRow
	if *session != "" {
		if rowID != 0 {
			return fail(2, "--session and --session-row name the same thing: give one")
		}
		db, err := store.DB()
		if err != nil {
			return fail(1, "%v", err)
		}
		ids, err := db.SessionRowIDs(context.Background(), *session)
		if err != nil {
			return fail(1, "%v", err)
		}
		switch len(ids) {
		case 0:
			return fail(1, "--session %q: no such session in the index", *session)
		case 1:
			rowID = ids[0]
		default:
			return fail(2, "--session %q has %d transcripts (subagents); pass --session-row with one of %s", *session, len(ids), joinInts(ids))
		}
	}
	cols := func() []CompareColumnSpec {
		var out []CompareColumnSpec
		for _, p := range splitList(*policies) {
			out = append(out, CompareColumnSpec{Policy: p, Params: params[p]})
		}
		return out
	}
	req := ExportRequest{What: *what, Format: *format}
	switch *what {
	case ExportSweep:
		if len(bs) == 0 {
			bs = DefaultReportBudgets
		}
		if c := cols(); len(c) > 0 {
			req.Policies = SweepPoliciesRequest{ResultID: *result, SessionID: rowID, Budgets: bs, Columns: c, Route: *route, Estimator: *estimator}
		} else {
			req.Sweep = SweepRequest{ResultID: *result, SessionID: rowID, Budgets: bs, Route: *route, Policy: *policy, Estimator: *estimator}
		}
	case ExportResults:
		l := *list
		if l == "" {
			l = "largest"
			if rowID > 0 {
				l = "session"
			}
		}
		if l == "session" && rowID == 0 {
			return fail(2, "--list session needs --session or --session-row")
		}
		req.Results = ResultsExport{List: l, SessionID: rowID, Order: *order, OnlyNotices: *onlyNotices, Query: *query}
	case ExportLinks:
		req.Links = LinkQuery{OnlyHidden: *onlyFlagged, SessionID: rowID, Reason: *reason, Family: *family, Host: *host, Class: *class}
	case ExportCompare:
		id := *result
		if id == 0 {
			var top ResultPage
			if rowID > 0 {
				top, err = s.Results(ResultsQuery{SessionID: rowID, Order: "tokens", Limit: 1})
			} else {
				top, err = s.Largest(PageQuery{Limit: 1})
			}
			if err != nil {
				return fail(1, "%s", errorText(err))
			}
			if len(top.Rows) == 0 {
				return fail(1, "no result to compare: the index (or session) holds none")
			}
			id = top.Rows[0].ID
		}
		req.Compare = CompareRequest{ResultID: id, Columns: cols(), Slider: sliderTokens, Route: *route, Estimator: *estimator}
	case ExportReport:
		req.Report = ReportRequest{SessionID: rowID, Budgets: bs, Policies: splitList(*policies), Route: *route, Language: *lang, Largest: *largest}
	}
	if *out != "" {
		abs, err := filepath.Abs(*out)
		if err != nil {
			return fail(2, "--out %q: %v", *out, err)
		}
		req.Path = abs
		res, err := e.Export(req)
		if err != nil {
			return fail(exportExit(err), "%s", errorText(err))
		}
		fmt.Fprintf(stderr, "spillscope export: %d rows, %d bytes written to %s\n", res.Rows, res.Bytes, res.Path)
		return 0
	}
	if _, err := e.render(stdout, req); err != nil {
		return fail(exportExit(err), "%s", errorText(err))
	}
	return 0
}

// exportExit is 2 for a request the flags got wrong, 1 otherwise.
func exportExit(err error) int {
	switch AsError(err).Code {
	case "export-format-unsupported", "export-list-unknown", "link-family-unknown", "link-class-unknown",
		"export-path-invalid", "export-path-in-session", "export-path-in-data", "order-unknown", "search-empty",
		"budgets-none", "budgets-too-many", "session-id-invalid":
		return 2
	}
	return 1
}

// errorText is a failure as the CLI prints it: the code, its params and
// what went wrong underneath.
func errorText(err error) string {
	e := AsError(err)
	var b strings.Builder
	b.WriteString(e.Code)
	for k, v := range e.Params {
		fmt.Fprintf(&b, " %s=%v", k, v)
	}
	if e.Detail != "" && e.Detail != e.Code {
		b.WriteString(": " + e.Detail)
	}
	return b.String()
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func joinInts(ns []int64) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = strconv.FormatInt(n, 10)
	}
	return strings.Join(parts, ",")
}
