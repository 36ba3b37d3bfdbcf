package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode"

	"golang.org/x/net/html"

	"spillscope/retention/links"
	"spillscope/sessions"
)

// reportDoc is what a browser would make of a report: its text and what
// its markup asks for.
type reportDoc struct {
	text     string
	problems []string
}

// readReport tokenizes a report as a browser would, noting everything that
// would run or fetch: a script element, an event-handler attribute, an
// attribute that loads a URL, CSS that fetches (url(), @import), a tag that
// embeds or navigates.
func readReport(b []byte) reportDoc {
	var d reportDoc
	var text strings.Builder
	if bytes.Contains(bytes.ToLower(b), []byte("<script")) {
		d.problems = append(d.problems, "<script in the markup")
	}
	z := html.NewTokenizer(bytes.NewReader(b))
	inStyle := false
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		tok := z.Token()
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken:
			switch tok.Data {
			case "script", "iframe", "object", "embed", "link", "img", "base", "form", "frame", "frameset", "audio", "video", "source", "image", "use", "foreignobject", "a":
				d.problems = append(d.problems, "tag <"+tok.Data+">")
			case "meta":
				for _, a := range tok.Attr {
					if a.Key == "http-equiv" && strings.EqualFold(a.Val, "refresh") {
						d.problems = append(d.problems, "meta refresh")
					}
				}
			}
			inStyle = tok.Data == "style"
			for _, a := range tok.Attr {
				k, v := strings.ToLower(a.Key), strings.ToLower(a.Val)
				switch {
				case strings.HasPrefix(k, "on"):
					d.problems = append(d.problems, "handler "+k+" on <"+tok.Data+">")
				case k == "src" || k == "href" || k == "xlink:href" || k == "action" || k == "formaction" || k == "srcset" || k == "poster" || k == "background":
					d.problems = append(d.problems, "URL attribute "+k+"="+a.Val)
				case k == "style" || k == "srcdoc" || k == "content" && strings.Contains(v, "url"):
					d.problems = append(d.problems, "attribute "+k+"="+a.Val)
				case k != "title" && k != "aria-label" && (strings.Contains(v, "http://") || strings.Contains(v, "https://")):
					d.problems = append(d.problems, "URL in "+k+"="+a.Val)
				}
			}
		case html.EndTagToken:
			inStyle = false
		case html.TextToken:
			if inStyle {
				css := strings.ToLower(tok.Data)
				if strings.Contains(css, "url(") || strings.Contains(css, "@import") || strings.Contains(css, "//") {
					d.problems = append(d.problems, "CSS that fetches")
				}
				continue
			}
			text.WriteString(tok.Data)
			text.WriteString("\n")
		}
	}
	if z.Err() != nil && z.Err().Error() != "EOF" {
		d.problems = append(d.problems, "tokenizer: "+z.Err().Error())
	}
	if _, err := html.Parse(bytes.NewReader(b)); err != nil {
		d.problems = append(d.problems, "parse: "+err.Error())
	}
	d.text = text.String()
	return d
}

// asPrinted is a value as the report prints it, by the test's own reading
// of the rule: masked, without control or format characters.
func asPrinted(s string) string {
	m, _ := links.Mask(s)
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == 0x2028 || r == 0x2029 {
			return -1
		}
		return r
	}, strings.ToValidUTF8(m, "\uFFFD"))
}

// The report of the hostile corpus, for the whole index and for one
// session, in both languages: it parses, nothing in it runs or fetches,
// none of the planted values is in it (markup or text), every largest
// result's name is, and every section is there.
func TestReportOfHostileCorpus(t *testing.T) {
	s, r, l, man, _ := newHostileApp(t)
	e := newExports(s, r, l)
	e.now = func() time.Time { return time.Date(2026, 3, 2, 9, 15, 0, 0, time.UTC) }
	list, err := listAll(s, SessionQuery{Order: "tokens"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		req  ReportRequest
	}{
		{"index en", ReportRequest{Language: "en"}},
		{"index zh", ReportRequest{Language: "zh", Largest: 60}},
		{"session", ReportRequest{SessionID: list[0].ID, Budgets: []int64{0, 300, 12500}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := exportOf(t, e, ExportRequest{What: ExportReport, Format: FormatHTML, Report: tc.req})
			d := readReport(b)
			if len(d.problems) > 0 {
				t.Fatalf("%d problems, first: %s", len(d.problems), strings.Join(d.problems[:min(5, len(d.problems))], "; "))
			}
			for _, sec := range man.Secrets {
				if bytes.Contains(b, []byte(sec)) || strings.Contains(d.text, sec) {
					t.Fatalf("the report holds the planted value %s", sec)
				}
			}
			var largest []ResultRow
			if tc.req.SessionID > 0 {
				p, err := s.Results(ResultsQuery{SessionID: tc.req.SessionID, Order: "tokens", Limit: 25})
				if err != nil {
					t.Fatal(err)
				}
				largest = p.Rows
			} else {
				p, err := s.Largest(PageQuery{Limit: max(tc.req.Largest, 25)})
				if err != nil {
					t.Fatal(err)
				}
				largest = p.Rows
			}
			if len(largest) < 10 {
				t.Fatalf("only %d largest results", len(largest))
			}
			for _, row := range largest {
				if name := asPrinted(row.Tool); !strings.Contains(d.text, name) {
					t.Errorf("the report lacks largest result %d's name %q", row.ID, name)
				}
			}
			L := labelsFor(tc.req.Language)
			for _, h := range []string{L.Summary, L.Largest, L.Sweep, L.Links, L.Compare, L.Chart} {
				if !strings.Contains(d.text, h) {
					t.Errorf("no section %q", h)
				}
			}
			if !bytes.Contains(b, []byte("<svg")) || !bytes.Contains(b, []byte(`lang="`+L.Lang+`"`)) {
				t.Error("no inline chart, or not in its language")
			}
			if !strings.Contains(d.text, "X-Amz-Signature=…") || !strings.Contains(d.text, "[redacted]") {
				t.Error("the links audit lists no redacted URI")
			}
			// The JSON of the same report holds the same tables.
			j := exportOf(t, e, ExportRequest{What: ExportReport, Format: FormatJSON, Report: tc.req})
			var v map[string]json.RawMessage
			if err := json.Unmarshal(j, &v); err != nil {
				t.Fatal(err)
			}
			var rows []map[string]any
			if err := json.Unmarshal(v["largest"], &rows); err != nil || len(rows) != len(largest) {
				t.Errorf("JSON largest: %d rows (%v), want %d", len(rows), err, len(largest))
			}
			for _, sec := range man.Secrets {
				if bytes.Contains(j, []byte(sec)) {
					t.Fatalf("the report's JSON holds %s", sec)
				}
			}
		})
	}
}

// Both languages of the report say everything: every label and key filled.
func TestReportLabelsComplete(t *testing.T) {
	en, zh := reportText["en"], reportText["zh"]
	for _, L := range []reportLabels{en, zh} {
		b, _ := json.Marshal(L)
		var m map[string]any
		json.Unmarshal(b, &m)
		for k, v := range m {
			if s, ok := v.(string); ok && s == "" {
				t.Errorf("%s: %s is empty", L.Lang, k)
			}
		}
		for _, pair := range [][2]map[string]string{{en.Cols, L.Cols}, {en.Facts, L.Facts}, {en.ClassNames, L.ClassNames}, {en.ClassShort, L.ClassShort}} {
			if len(pair[0]) != len(pair[1]) {
				t.Errorf("%s: %d labels, en has %d", L.Lang, len(pair[1]), len(pair[0]))
			}
			for k := range pair[0] {
				if pair[1][k] == "" {
					t.Errorf("%s: no label for %s", L.Lang, k)
				}
			}
		}
	}
	for _, k := range []string{sessions.ClassPlain, sessions.ClassRedacted, sessions.ClassStubbed, sessions.ClassMarker} {
		if en.ClassNames[k] == "" {
			t.Errorf("no name for class %s", k)
		}
	}
}

// hostileStrings are values a tool result can carry into the report.
var hostileStrings = []string{
	`<script>alert(1)</script>`, `"><img src=x onerror=alert(1)>`, `</style><script>x</script>`, `</title><svg onload=alert(1)>`,
	"a\x00b\x1b[31mc\u2028d\u202ee", `javascript:alert(1)`, `' onmouseover='x`, `<a href="https://evil.example/">x</a>`,
	`url(https://evil.example/x.png)`, `@import "https://evil.example/x.css";`, "https://h.example/?token=SECRETVALUE123&x=1",
	`{{.L.Title}}`, `]]><!--`, strings.Repeat("<b>", 50),
}

// reportWith is a report whose every value is s.
func reportWith(s string, lang string) reportInput {
	row := ResultRow{ID: 7, SessionID: 2, Project: s, CallID: s, Tool: s, Time: s, TextBytes: 9, Tokens: 12, NoticeKind: s, NoticePath: s, File: s, Line: 3}
	sess := SessionRow{ID: 2, HarnessLabel: s, SessionID: s, Project: s, Model: s, Route: s, Started: s, Ended: s}
	link := LinkRow{ResultID: 7, Block: 1, Shown: s, Reason: s, Parameter: s, Tool: s, Project: s, File: s, Class: s, Host: s,
		URI: links.RedactURI(s), Families: []string{s}}
	cmp := CompareView{Yardstick: s, Columns: []CompareColumn{{Policy: s, Harness: s, Status: s, BudgetParam: s, BudgetUnit: s,
		Params: map[string]string{s: s}, Own: TokenFigures{Estimator: s}, Locator: s, Error: s}}}
	return reportInput{Lang: lang, Session: &sess, Largest: []ResultRow{row, row}, Sweep: []SweepRow{{Budget: 0}, {Budget: 100, InlineTokens: 5}},
		Links: []LinkRow{link}, LinkCounts: LinkPage{Total: 1, Plain: 1}, Flagged: 3,
		Facets:  LinkFacets{Reasons: []FacetCount{{s, 1}}, Families: []FacetCount{{s, 1}}, Hosts: []FacetCount{{s, 2}}},
		Compare: &cmp, CompareOf: &row, Notes: []string{s}, Generated: time.Unix(0, 0), AppVersion: s, LargestSize: 2}
}

// FuzzReportHTML: whatever the values, the report parses, nothing in it
// runs or fetches, a credential value in them is masked, and each value is
// printed as text (the tool's name is readable).
func FuzzReportHTML(f *testing.F) {
	for _, s := range hostileStrings {
		f.Add(s, false)
	}
	f.Add("plain tool", true)
	f.Fuzz(func(t *testing.T, s string, zh bool) {
		lang := "en"
		if zh {
			lang = "zh"
		}
		secret := "SECRETVALUE" + fmt.Sprint(len(s)) + "Q"
		for _, v := range []string{s, s + " https://h.example/?token=" + secret + "&x=1"} {
			var b bytes.Buffer
			if err := writeReportHTML(&b, buildReport(reportWith(v, lang))); err != nil {
				t.Fatal(err)
			}
			d := readReport(b.Bytes())
			if len(d.problems) > 0 {
				t.Fatalf("value %q: %v", v, d.problems)
			}
			if strings.Contains(b.String(), secret) {
				t.Fatalf("value %q: the credential value shows", v)
			}
			if name := asPrinted(v); len(name) <= 200 && !strings.Contains(d.text, name) {
				t.Fatalf("value %q: the text lacks %q", v, name)
			}
		}
	})
}
