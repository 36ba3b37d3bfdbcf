package app

import (
	"cmp"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

// The lists are read page by page; these walk every page, as the window's
// virtualised lists do when scrolled to the end, checking each page's count
// against the rows the pages really hold.

func allPages[T any](page func(offset, limit int) ([]T, int, error)) ([]T, error) {
	const size = 3 // small, so the sample's lists span several pages
	var out []T
	for off := 0; ; off += size {
		rows, total, err := page(off, size)
		if err != nil {
			return out, err
		}
		out = append(out, rows...)
		if len(rows) < size {
			if total != len(out) {
				return out, errors.New("the pages' count disagrees with their rows")
			}
			return out, nil
		}
	}
}

func listAll(s *Sessions, q SessionQuery) ([]SessionRow, error) {
	return allPages(func(off, lim int) ([]SessionRow, int, error) {
		q.Offset, q.Limit = off, lim
		p, err := s.List(q)
		return p.Rows, p.Total, err
	})
}

func resultsAll(s *Sessions, sessionID int64) ([]ResultRow, error) {
	return allPages(func(off, lim int) ([]ResultRow, int, error) {
		p, err := s.Results(ResultsQuery{SessionID: sessionID, Offset: off, Limit: lim})
		return p.Rows, p.Total, err
	})
}

func searchAll(s *Sessions, q SearchQuery) ([]ResultRow, error) {
	return allPages(func(off, lim int) ([]ResultRow, int, error) {
		q.Offset, q.Limit = off, lim
		p, err := s.Search(q)
		return p.Rows, p.Total, err
	})
}

func linksAll(l *Links, q LinkQuery) ([]LinkRow, error) {
	return allPages(func(off, lim int) ([]LinkRow, int, error) {
		q.Offset, q.Limit = off, lim
		p, err := l.List(q)
		return p.Rows, p.Total, err
	})
}

func TestPagesCountWholeLists(t *testing.T) {
	s, _, l, man, _ := newIndexedApp(t)
	st, err := s.Status()
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.List(SessionQuery{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := listAll(s, SessionQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Sessions != st.Sessions || p.Sessions != man.Sessions || p.Total != len(rows) || len(p.Rows) != 2 {
		t.Errorf("first page counts %d sessions in %d rows (%d shown); index totals %d sessions, %d rows listed",
			p.Sessions, p.Total, len(p.Rows), st.Sessions, len(rows))
	}
	sub, err := s.Results(ResultsQuery{SessionID: rows[0].ID, Order: "tokens", Limit: MaxPage})
	if err != nil || !slices.IsSortedFunc(sub.Rows, func(a, b ResultRow) int { return cmp.Compare(b.Tokens, a.Tokens) }) {
		t.Errorf("a session's results by tokens: %v", err)
	}
	notices, err := s.Results(ResultsQuery{SessionID: rows[0].ID, OnlyNotices: true, Limit: MaxPage})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range notices.Rows {
		if r.NoticeKind == "" {
			t.Errorf("only notices: result %d has none", r.ID)
		}
	}
	top, err := s.Largest(PageQuery{Limit: 5})
	if err != nil || top.Total != st.ToolResults || len(top.Rows) != 5 {
		t.Errorf("largest: %d rows of %d (%v), the index holds %d results", len(top.Rows), top.Total, err, st.ToolResults)
	}
	hidden, err := l.List(LinkQuery{OnlyHidden: true, Limit: 1})
	if err != nil || hidden.Total < 2 || hidden.Hidden == 0 || hidden.Hidden > hidden.Total || len(hidden.Rows) != 1 {
		t.Errorf("flagged links: %+v (%v)", hidden, err)
	}
}

// Bound errors carry a stable code and params the window translates, and
// the detail underneath; they serialise as JSON so any message keeps them.
func TestBoundErrorsAreCoded(t *testing.T) {
	s, _, l, _, _ := newIndexedApp(t)
	for _, tc := range []struct {
		name   string
		call   func() error
		code   string
		params map[string]any
	}{
		{"page too long", func() error { _, err := s.Largest(PageQuery{Limit: MaxPage + 1}); return err }, "page-invalid", map[string]any{"limit": float64(MaxPage + 1), "max": float64(MaxPage)}},
		{"no page", func() error { _, err := s.List(SessionQuery{}); return err }, "page-invalid", map[string]any{"limit": float64(0)}},
		{"negative offset", func() error { _, err := l.List(LinkQuery{Offset: -1, Limit: 5}); return err }, "page-invalid", map[string]any{"offset": float64(-1)}},
		{"list by relevance", func() error { _, err := s.List(SessionQuery{Order: "relevance", Limit: 5}); return err }, "order-unknown", map[string]any{"order": "relevance"}},
		{"results by bogus", func() error { _, err := s.Results(ResultsQuery{SessionID: 1, Order: "bogus", Limit: 5}); return err }, "order-unknown", map[string]any{"order": "bogus"}},
		{"search by bogus", func() error { _, err := s.Search(SearchQuery{Query: "x", Order: "size", Limit: 5}); return err }, "order-unknown", map[string]any{"order": "size"}},
		{"search nothing", func() error { _, err := s.Search(SearchQuery{Query: "  ", Limit: 5}); return err }, "search-empty", nil},
		{"bad session", func() error { _, err := s.Results(ResultsQuery{SessionID: 0, Limit: 5}); return err }, "session-id-invalid", map[string]any{"id": float64(0)}},
		{"gone result", func() error { _, err := s.Result(ResultQuery{ID: 987654}); return err }, "not-found", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if err == nil {
				t.Fatal("no error")
			}
			got := AsError(err)
			if got.Code != tc.code {
				t.Errorf("code %q (%v), want %q", got.Code, err, tc.code)
			}
			var wire map[string]any
			if e := json.Unmarshal([]byte(err.Error()), &wire); e != nil && tc.code != "not-found" {
				t.Errorf("message %q is not JSON: %v", err.Error(), e)
			}
			formatted, _ := json.Marshal(FormatError(err))
			if e := json.Unmarshal(formatted, &wire); e != nil || wire["code"] != tc.code {
				t.Errorf("formatted %s, want code %q", formatted, tc.code)
			}
			params, _ := wire["params"].(map[string]any)
			for k, v := range tc.params {
				if params[k] != v {
					t.Errorf("param %s = %v, want %v (%s)", k, params[k], v, formatted)
				}
			}
			if tc.code == "not-found" && !strings.Contains(got.Detail, "987654") {
				t.Errorf("detail %q does not name the result", got.Detail)
			}
		})
	}
}
