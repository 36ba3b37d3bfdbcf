package app

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"spillscope/retention/links"
	"spillscope/sessions"
)

// exportOf runs one export through Write.
func exportOf(t *testing.T, e *Exports, req ExportRequest) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := e.render(&b, req); err != nil {
		t.Fatalf("export %s as %s: %v", req.What, req.Format, err)
	}
	return b.Bytes()
}

// parseCSV reads an export's CSV back (RFC 4180, strict quotes).
func parseCSV(t *testing.T, b []byte) (header []string, rows [][]string) {
	t.Helper()
	r := csv.NewReader(bytes.NewReader(b))
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatalf("the CSV does not parse: %v", err)
	}
	if len(recs) == 0 {
		t.Fatal("the CSV has no header")
	}
	return recs[0], recs[1:]
}

// jsonRows reads an export's JSON back, each object's keys in order.
func jsonRows(t *testing.T, b []byte) (keys [][]string, rows []map[string]any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var raw []json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		t.Fatalf("the JSON does not parse: %v", err)
	}
	for _, r := range raw {
		d := json.NewDecoder(bytes.NewReader(r))
		d.UseNumber()
		var order []string
		d.Token()
		for d.More() {
			k, _ := d.Token()
			order = append(order, k.(string))
			var skip any
			d.Decode(&skip)
		}
		m := map[string]any{}
		d = json.NewDecoder(bytes.NewReader(r))
		d.UseNumber()
		if err := d.Decode(&m); err != nil {
			t.Fatal(err)
		}
		keys, rows = append(keys, order), append(rows, m)
	}
	return keys, rows
}

// jsonCell is a JSON value as its CSV cell reads, the formula guard
// undone: what a reader of both files must find equal.
func jsonCell(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func unguard(s string) string {
	if len(s) > 1 && s[0] == '\'' && strings.ContainsRune("=+-@\t\r", rune(s[1])) {
		return s[1:]
	}
	return s
}

// sameRows checks an export's CSV against its JSON: the same header in the
// same order, the same rows, cell for cell.
func sameRows(t *testing.T, csvB, jsonB []byte) ([]string, [][]string) {
	t.Helper()
	header, rows := parseCSV(t, csvB)
	keys, objs := jsonRows(t, jsonB)
	if len(rows) != len(objs) {
		t.Fatalf("CSV has %d rows, JSON %d", len(rows), len(objs))
	}
	for i, rec := range rows {
		if !slices.Equal(keys[i], header) {
			t.Fatalf("row %d: JSON keys %v, CSV header %v", i, keys[i], header)
		}
		for j, k := range header {
			if got, want := unguard(rec[j]), jsonCell(objs[i][k]); got != want {
				t.Fatalf("row %d %s: CSV %q, JSON %q", i, k, rec[j], want)
			}
		}
	}
	return header, rows
}

func newExports(s *Sessions, r *Retention, l *Links) *Exports { return NewExports(s.store, s, r, l) }

// Every table export is the screen's list, every page of it: its CSV parses
// back (RFC 4180) to its JSON, cell for cell, and holds the rows the
// screen's own call lists, in its order.
func TestExportCSVEqualsJSON(t *testing.T) {
	s, r, l, _, _ := newIndexedApp(t)
	e := newExports(s, r, l)
	sess, err := listAll(s, SessionQuery{Order: "tokens"})
	if err != nil || len(sess) == 0 {
		t.Fatal(err)
	}
	largest, err := s.Largest(PageQuery{Limit: 1})
	if err != nil || len(largest.Rows) == 0 {
		t.Fatal(err)
	}
	top := largest.Rows[0]
	all, err := resultsAll(s, sess[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	type check func(t *testing.T, header []string, rows [][]string)
	col := func(header []string, name string) int {
		i := slices.Index(header, name)
		if i < 0 {
			t.Fatalf("no column %s in %v", name, header)
		}
		return i
	}
	linkIDs := func(q LinkQuery) check {
		return func(t *testing.T, header []string, rows [][]string) {
			want, err := linksAll(l, q)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != len(want) || len(want) == 0 {
				t.Fatalf("%d rows exported, the screen lists %d", len(rows), len(want))
			}
			for i, w := range want {
				if rows[i][col(header, "uri")] != w.URI || rows[i][col(header, "resultId")] != strconv.FormatInt(w.ResultID, 10) {
					t.Fatalf("row %d: %v, the screen's %+v", i, rows[i], w)
				}
			}
		}
	}
	cases := []struct {
		name string
		req  ExportRequest
		want check
	}{
		{"sweep", ExportRequest{What: ExportSweep, Sweep: SweepRequest{Budgets: []int64{0, 500, 4000}}}, func(t *testing.T, h []string, rows [][]string) {
			want, err := r.Sweep(SweepRequest{Budgets: []int64{0, 500, 4000}})
			if err != nil || len(rows) != len(want) {
				t.Fatalf("%d rows, the screen %d (%v)", len(rows), len(want), err)
			}
			for i, w := range want {
				if rows[i][col(h, "inlineTokens")] != strconv.FormatInt(w.InlineTokens, 10) {
					t.Errorf("budget %d: %v, want %+v", w.Budget, rows[i], w)
				}
			}
		}},
		{"policy sweep", ExportRequest{What: ExportSweep, Policies: SweepPoliciesRequest{SessionID: sess[0].ID, Budgets: []int64{1000, 8000},
			Columns: []CompareColumnSpec{{Policy: "dsh-tokens"}, {Policy: "codex"}}}}, func(t *testing.T, h []string, rows [][]string) {
			if len(rows) != 4 || rows[0][col(h, "policy")] != "dsh-tokens" || rows[3][col(h, "policy")] != "codex" {
				t.Errorf("rows %v", rows)
			}
		}},
		{"largest", ExportRequest{What: ExportResults, Results: ResultsExport{List: "largest"}}, func(t *testing.T, h []string, rows [][]string) {
			p, err := s.Largest(PageQuery{Limit: MaxPage})
			if err != nil || len(rows) != p.Total || rows[0][col(h, "id")] != strconv.FormatInt(p.Rows[0].ID, 10) {
				t.Errorf("%d rows, the list holds %d (%v)", len(rows), p.Total, err)
			}
		}},
		{"session", ExportRequest{What: ExportResults, Results: ResultsExport{List: "session", SessionID: sess[0].ID}}, func(t *testing.T, h []string, rows [][]string) {
			if len(rows) != len(all) {
				t.Fatalf("%d rows, the session lists %d", len(rows), len(all))
			}
			for i, w := range all {
				if rows[i][col(h, "id")] != strconv.FormatInt(w.ID, 10) {
					t.Fatalf("row %d is result %s, the screen's %d", i, rows[i][0], w.ID)
				}
			}
		}},
		{"search", ExportRequest{What: ExportResults, Results: ResultsExport{List: "search", Query: "the"}}, func(t *testing.T, h []string, rows [][]string) {
			hits, err := searchAll(s, SearchQuery{Query: "the"})
			if err != nil || len(rows) != len(hits) || len(hits) == 0 {
				t.Errorf("%d rows, the search finds %d (%v)", len(rows), len(hits), err)
			}
		}},
		{"links", ExportRequest{What: ExportLinks}, linkIDs(LinkQuery{})},
		{"links flagged aws", ExportRequest{What: ExportLinks, Links: LinkQuery{OnlyHidden: true, Family: links.FamilyAWS}},
			linkIDs(LinkQuery{OnlyHidden: true, Family: links.FamilyAWS})},
		{"links plain on a host", ExportRequest{What: ExportLinks, Links: LinkQuery{Class: sessions.ClassPlain, Host: "example.com"}},
			linkIDs(LinkQuery{Class: sessions.ClassPlain, Host: "example.com"})},
		{"compare", ExportRequest{What: ExportCompare, Compare: CompareRequest{ResultID: top.ID}}, func(t *testing.T, h []string, rows [][]string) {
			v, err := r.Compare(CompareRequest{ResultID: top.ID})
			if err != nil || len(rows) != len(v.Columns) {
				t.Fatalf("%d rows, %d columns (%v)", len(rows), len(v.Columns), err)
			}
			for i, c := range v.Columns {
				if rows[i][col(h, "policy")] != c.Policy || rows[i][col(h, "yardstickTokens")] != strconv.Itoa(c.Yardstick.Total) {
					t.Errorf("row %d %v, column %s at %d", i, rows[i], c.Policy, c.Yardstick.Total)
				}
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.req.Format = FormatCSV
			c := exportOf(t, e, tc.req)
			if !bytes.Contains(c, []byte("\r\n")) {
				t.Error("CSV lines do not end in CRLF")
			}
			tc.req.Format = FormatJSON
			j := exportOf(t, e, tc.req)
			h, rows := sameRows(t, c, j)
			tc.want(t, h, rows)
		})
	}
}

// A text cell a spreadsheet would run as a formula is written with a
// leading apostrophe; numbers (a negative one too) as they are.
func TestCSVGuard(t *testing.T) {
	tb := table{keys: []string{"s", "n"}, rows: [][]any{{"=HYPERLINK(\"x\")", int64(-1)}, {"+1", 2}, {"@SUM(A1)", 3}, {"-x", 4}, {"plain", 5}, {"a,b\n\"c\"", 6}}}
	var b bytes.Buffer
	if err := writeCSV(&b, tb); err != nil {
		t.Fatal(err)
	}
	_, rows := parseCSV(t, b.Bytes())
	want := [][]string{{"'=HYPERLINK(\"x\")", "-1"}, {"'+1", "2"}, {"'@SUM(A1)", "3"}, {"'-x", "4"}, {"plain", "5"}, {"a,b\n\"c\"", "6"}}
	if !slices.EqualFunc(rows, want, slices.Equal) {
		t.Errorf("rows %q, want %q", rows, want)
	}
}

// An export is written where the user chose, whole, and never inside a
// session folder (by any spelling: a symlink into one too) or the app's
// data folder; each refusal names the path.
func TestExportPathGuard(t *testing.T) {
	s, r, l, _, dataDir := newIndexedApp(t)
	e := newExports(s, r, l)
	root := s.store.Roots()[0]
	out := t.TempDir()
	link := filepath.Join(out, "into-root")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	req := ExportRequest{What: ExportLinks, Format: FormatCSV}
	for _, tc := range []struct {
		name, path, code string
	}{
		{"relative", "links.csv", "export-path-invalid"},
		{"empty", "", "export-path-invalid"},
		{"a folder", out, "export-path-invalid"},
		{"no such folder", filepath.Join(out, "nope", "x.csv"), "export-path-invalid"},
		{"in a session folder", filepath.Join(root, "links.csv"), "export-path-in-session"},
		{"through a symlink", filepath.Join(link, "links.csv"), "export-path-in-session"},
		{"in the data folder", filepath.Join(dataDir, "links.csv"), "export-path-in-data"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req.Path = tc.path
			_, err := e.Export(req)
			if got := AsError(err); err == nil || got.Code != tc.code {
				t.Fatalf("Export(%q) = %v, want %s", tc.path, err, tc.code)
			}
			if tc.path != "" && !filepath.IsAbs(tc.path) {
				return
			}
			if _, err := os.Stat(filepath.Join(root, "links.csv")); err == nil {
				t.Fatal("a file was written into the session folder")
			}
		})
	}
	req.Path = filepath.Join(out, "links.csv")
	res, err := e.Export(req)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(req.Path)
	if err != nil {
		t.Fatal(err)
	}
	if want := exportOf(t, e, req); !bytes.Equal(got, want) || res.Bytes != int64(len(want)) || res.Rows == 0 {
		t.Errorf("wrote %d bytes (%+v), render gives %d", len(got), res, len(want))
	}
	left, _ := filepath.Glob(filepath.Join(out, ".links.csv.*"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	e.saveDialog = func(_ context.Context, title, name string) (string, error) { return filepath.Join(out, name), nil }
	if p, err := e.ChoosePath(ExportPathQuery{Title: "t", Name: "../../links.csv"}); err != nil || p != filepath.Join(out, "links.csv") {
		t.Errorf("ChoosePath = %q, %v", p, err)
	}
}

// A subject and format that do not go together are refused, naming both.
func TestExportRefusesUnknownRequests(t *testing.T) {
	s, r, l, _, _ := newIndexedApp(t)
	e := newExports(s, r, l)
	for _, tc := range []struct {
		req  ExportRequest
		code string
	}{
		{ExportRequest{What: ExportReport, Format: FormatCSV}, "export-format-unsupported"},
		{ExportRequest{What: ExportLinks, Format: FormatHTML}, "export-format-unsupported"},
		{ExportRequest{What: ExportLinks, Format: "xlsx"}, "export-format-unsupported"},
		{ExportRequest{What: "sessions"}, "export-what-unknown"},
		{ExportRequest{What: ExportResults, Results: ResultsExport{List: "recent"}}, "export-list-unknown"},
		{ExportRequest{What: ExportLinks, Links: LinkQuery{Family: "paypal"}}, "link-family-unknown"},
		{ExportRequest{What: ExportLinks, Links: LinkQuery{Class: "hidden"}}, "link-class-unknown"},
		{ExportRequest{What: ExportSweep}, "budgets-none"},
	} {
		t.Run(tc.code+" "+tc.req.What, func(t *testing.T) {
			var b bytes.Buffer
			_, err := e.render(&b, tc.req)
			if AsError(err).Code != tc.code {
				t.Errorf("Write(%+v) = %v, want %s", tc.req, err, tc.code)
			}
		})
	}
}

// `spillscope export` reads through the same service: its output is render's
// for the same request, its refusals exit 2 naming the flag or the folder,
// and it writes nothing into a session folder.
func TestExportCommand(t *testing.T) {
	s, r, l, _, dataDir := newIndexedApp(t)
	e := newExports(s, r, l)
	root := s.store.Roots()[0]
	home := t.TempDir()
	env := func(k string) string {
		switch k {
		case "HOME":
			return home
		case "SPILLSCOPE_ROOTS":
			return root
		}
		return ""
	}
	db := filepath.Join(dataDir, "index.db")
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := RunExport(&out, &errb, env, append([]string{"--db", db}, args...))
		return code, out.String(), errb.String()
	}
	for _, tc := range []struct {
		args []string
		req  ExportRequest
	}{
		{[]string{"--what", "links", "--only-flagged", "--family", "aws"}, ExportRequest{What: ExportLinks, Links: LinkQuery{OnlyHidden: true, Family: "aws"}}},
		{[]string{"--what", "links", "--class", "plain", "--host", "example.com", "--format", "json"},
			ExportRequest{What: ExportLinks, Format: FormatJSON, Links: LinkQuery{Class: "plain", Host: "example.com"}}},
		{[]string{"--what", "sweep", "--budgets", "100,4000"}, ExportRequest{What: ExportSweep, Sweep: SweepRequest{Budgets: []int64{100, 4000}}}},
		{[]string{"--what", "results", "--list", "search", "--query", "the", "--order", "tokens"},
			ExportRequest{What: ExportResults, Results: ResultsExport{List: "search", Query: "the", Order: "tokens"}}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errs := run(tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			if want := exportOf(t, e, tc.req); out != string(want) {
				t.Errorf("the command wrote %d bytes, render %d", len(out), len(want))
			}
		})
	}
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--what", "links", "--out", filepath.Join(root, "x.csv")}, 2, "export-path-in-session"},
		{[]string{"--what", "report", "--format", "csv"}, 2, "export-format-unsupported"},
		{[]string{"--what", "nope"}, 2, "--what"},
		{[]string{}, 2, "--what is required"},
		{[]string{"--what", "links", "--family", "nope"}, 2, "link-family-unknown"},
		{[]string{"--what", "report", "--lang", "fr"}, 2, "--lang"},
		{[]string{"--what", "sweep", "--budgets", "x"}, 2, "--budgets"},
		{[]string{"--what", "results", "--session", "no-such-session"}, 1, "no such session"},
	} {
		t.Run("refuses "+strings.Join(tc.args, " "), func(t *testing.T) {
			code, _, errs := run(tc.args...)
			if code != tc.code || !strings.Contains(errs, tc.msg) {
				t.Errorf("exit %d (%q), want %d naming %s", code, errs, tc.code, tc.msg)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(root, "x.csv")); err == nil {
		t.Fatal("the command wrote into the session folder")
	}
	out := filepath.Join(t.TempDir(), "r.html")
	if code, _, errs := run("--what", "report", "--lang", "zh", "--out", out); code != 0 || !strings.Contains(errs, out) {
		t.Fatalf("report: exit %d: %s", code, errs)
	}
	if b, err := os.ReadFile(out); err != nil || !bytes.Contains(b, []byte(`lang="zh"`)) || len(readReport(b).problems) > 0 {
		t.Errorf("report file: %v %v", err, readReport(b).problems)
	}
	sess, _ := listAll(s, SessionQuery{})
	code, csvOut, errs := run("--what", "results", "--session", sess[0].SessionID)
	if code != 0 && !strings.Contains(errs, "--session-row") {
		t.Fatalf("--session %s: exit %d %s", sess[0].SessionID, code, errs)
	}
	if code == 0 && !strings.Contains(csvOut, "\r\n") {
		t.Errorf("--session: %q", csvOut)
	}
}
