package app

import (
	"bytes"
	"cmp"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"spillscope/sessions/samplegen"
)

// newIndexedApp generates the sample corpus, indexes it through the Sessions
// service exactly as the window does, and returns the services.
func newIndexedApp(t *testing.T) (*Sessions, *Retention, *Links, samplegen.Manifest, string) {
	t.Helper()
	root := t.TempDir()
	corpus := filepath.Join(root, "corpus")
	man, err := samplegen.Generate(corpus, samplegen.Options{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{DataDir: filepath.Join(root, "data"), Roots: []string{corpus}, Home: root}
	store := NewStore(cfg, nil)
	t.Cleanup(func() { store.Close() })
	s := indexAll(t, store, 2*time.Minute)
	return s, NewRetention(store), NewLinks(store), man, cfg.DataDir
}

// indexAll runs an index pass through the Sessions service, as the window
// does, and waits for it to finish.
func indexAll(t *testing.T, store *Store, within time.Duration) *Sessions {
	t.Helper()
	s := NewSessions(store)
	if _, err := s.Index(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(within); ; time.Sleep(20 * time.Millisecond) {
		st, err := s.Status()
		if err != nil {
			t.Fatal(err)
		}
		if !st.Running {
			if st.Error != "" {
				t.Fatalf("index failed: %s", st.Error)
			}
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("index did not finish in %s", within)
		}
	}
}

func TestSessionsServiceOnSample(t *testing.T) {
	s, _, l, man, dataDir := newIndexedApp(t)
	st, err := s.Status()
	if err != nil {
		t.Fatal(err)
	}
	// The list has a row per transcript (subagents included); the totals
	// count sessions and readable images as the generator's manifest does.
	wantRows := man.Sessions
	for _, c := range man.PerHarness {
		wantRows += c.Subagents
	}
	if st.ToolResults != man.ToolResults || st.Images != man.ToolResultImages || st.SpillNotices != man.SpillNotices {
		t.Errorf("status %+v, want results %d images %d notices %d", st, man.ToolResults, man.ToolResultImages, man.SpillNotices)
	}
	rows, err := listAll(s, SessionQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != wantRows {
		t.Fatalf("List: %d sessions, want %d", len(rows), wantRows)
	}
	if st.Sessions != man.Sessions {
		t.Errorf("status counts %d sessions, the generator wrote %d", st.Sessions, man.Sessions)
	}
	total := 0
	for _, r := range rows {
		results, err := resultsAll(s, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(results) != r.ToolResults {
			t.Errorf("session %s: %d results listed, row says %d", r.SessionID, len(results), r.ToolResults)
		}
		total += len(results)
	}
	if total != man.ToolResults {
		t.Errorf("results across sessions %d, want %d", total, man.ToolResults)
	}
	filtered, err := listAll(s, SessionQuery{Harness: rows[0].Harness})
	if err != nil || len(filtered) == 0 || len(filtered) > len(rows) {
		t.Errorf("harness filter: %d rows, %v", len(filtered), err)
	}
	for _, f := range filtered {
		if f.Harness != rows[0].Harness {
			t.Errorf("filter %q returned %q", rows[0].Harness, f.Harness)
		}
	}
	linkRows, err := linksAll(l, LinkQuery{OnlyHidden: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(linkRows) == 0 {
		t.Fatal("the sample has signed links; none listed as hidden")
	}
	for _, r := range linkRows {
		if r.Reason == "" {
			t.Errorf("hidden link without a reason: %+v", r)
		}
	}
	// No credential value reaches the database: signature-like parameters
	// never appear with a value in its bytes.
	secret := regexp.MustCompile(`(?i)(X-Amz-Signature|X-Goog-Signature|sig|access_token)=[A-Za-z0-9%]`)
	for _, name := range []string{"index.db", "index.db-wal"} {
		data, err := os.ReadFile(filepath.Join(dataDir, name))
		if err != nil {
			continue
		}
		if loc := secret.FindIndex(data); loc != nil {
			t.Errorf("%s holds a credential value: %q", name, data[loc[0]:min(loc[1]+20, len(data))])
		}
		for _, v := range samplegen.Secrets {
			if bytes.Contains(data, []byte(v)) {
				t.Errorf("%s holds the generator's fake credential value %.12s…", name, v)
			}
		}
	}
}

func TestResultDetailOnSample(t *testing.T) {
	s, _, _, _, _ := newIndexedApp(t)
	rows, err := listAll(s, SessionQuery{})
	if err != nil {
		t.Fatal(err)
	}
	var sawImage, sawText bool
	for _, sess := range rows {
		results, err := resultsAll(s, sess.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range results {
			d, err := s.Result(ResultQuery{ID: r.ID})
			if err != nil {
				t.Fatalf("result %d (%s line %d): %v", r.ID, r.File, r.Line, err)
			}
			var textBytes int64
			images := 0
			for _, b := range d.Blocks {
				switch b.Kind {
				case "text":
					textBytes += b.TextBytes
					sawText = true
				case "image":
					images++
					if b.Reason == "" && (b.ImageURL == "" || b.Width <= 0) {
						t.Errorf("result %d image block %d has no URL or size: %+v", r.ID, b.Index, b)
					}
					sawImage = true
				}
			}
			if textBytes != r.TextBytes {
				t.Errorf("result %d: blocks hold %d text bytes, row says %d", r.ID, textBytes, r.TextBytes)
			}
			if images != r.Images {
				t.Errorf("result %d: %d images shown, row says %d", r.ID, images, r.Images)
			}
		}
	}
	if !sawImage || !sawText {
		t.Errorf("sample shows text %v images %v; want both", sawText, sawImage)
	}
}

func TestSearchOnSample(t *testing.T) {
	s, _, _, _, _ := newIndexedApp(t)
	rows, err := searchAll(s, SearchQuery{Query: "panic recovered"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatal("no result found for words the sample's logs hold")
	}
	for _, r := range rows {
		d, err := s.Result(ResultQuery{ID: r.ID})
		if err != nil {
			t.Fatal(err)
		}
		var text strings.Builder
		for _, b := range d.Blocks {
			text.WriteString(b.Text)
		}
		if !strings.Contains(strings.ToLower(text.String()), "panic") {
			t.Errorf("result %d matched but holds no 'panic' in what is shown", r.ID)
		}
	}
	// Credential values are redacted before the full-text index sees them.
	for _, secret := range samplegen.Secrets {
		got, err := searchAll(s, SearchQuery{Query: secret})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 0 {
			t.Errorf("searching a credential value found %d results", len(got))
		}
	}
	for _, q := range []string{`"unbalanced`, `AND OR NOT`, `col:thing*`, `a"b`} {
		if _, err := searchAll(s, SearchQuery{Query: q}); err != nil {
			t.Errorf("query %q: %v (user text must never be read as FTS syntax)", q, err)
		}
	}
	if _, err := searchAll(s, SearchQuery{Query: "   "}); err == nil {
		t.Error("an empty search was accepted")
	}
}

// The rankings through the bindings: every order sorted as it says, the
// largest list equal to the top of every result, unsupported orders and
// limits refused with the value named.
func TestRankingsOnSample(t *testing.T) {
	s, _, _, _, _ := newIndexedApp(t)
	list, err := listAll(s, SessionQuery{})
	if err != nil {
		t.Fatal(err)
	}
	var all []ResultRow
	for _, sess := range list {
		rows, err := resultsAll(s, sess.ID)
		if err != nil {
			t.Fatal(err)
		}
		var sum int64
		for _, r := range rows {
			if !r.TokensExact || r.Tokens != r.EstimatedTokens {
				t.Errorf("result %d after indexing: tokens %d exact %v estimated %d", r.ID, r.Tokens, r.TokensExact, r.EstimatedTokens)
			}
			if r.Project != sess.Project {
				t.Errorf("result %d project %q, its session's %q", r.ID, r.Project, sess.Project)
			}
			sum += r.Tokens
		}
		if sess.Tokens != sum || !sess.TokensExact {
			t.Errorf("session %d tokens %d (exact %v), its results sum to %d", sess.ID, sess.Tokens, sess.TokensExact, sum)
		}
		all = append(all, rows...)
	}
	if len(all) < 10 {
		t.Fatalf("sample has %d results", len(all))
	}
	page, err := s.Largest(PageQuery{Limit: 10})
	top := page.Rows
	if err != nil || len(top) != 10 || page.Total != len(all) {
		t.Fatalf("Largest: %d rows of %d, %v; want 10 of %d", len(top), page.Total, err, len(all))
	}
	tokens := make([]int64, len(all))
	for i, r := range all {
		tokens[i] = r.Tokens
	}
	slices.Sort(tokens)
	slices.Reverse(tokens)
	for i, r := range top {
		if r.Tokens != tokens[i] {
			t.Errorf("largest #%d has %d tokens, the %d-th largest of all results has %d", i+1, r.Tokens, i+1, tokens[i])
		}
	}
	byTokens, err := listAll(s, SessionQuery{Order: "tokens"})
	if err != nil || len(byTokens) != len(list) {
		t.Fatalf("List by tokens: %d rows, %v", len(byTokens), err)
	}
	if !slices.IsSortedFunc(byTokens, func(a, b SessionRow) int { return cmp.Compare(b.Tokens, a.Tokens) }) {
		t.Error("sessions by tokens are not sorted")
	}
	hits, err := searchAll(s, SearchQuery{Query: "the", Order: "tokens"})
	if err != nil || len(hits) < 2 {
		t.Fatalf("search by tokens: %d hits, %v", len(hits), err)
	}
	if !slices.IsSortedFunc(hits, func(a, b ResultRow) int { return cmp.Compare(b.Tokens, a.Tokens) }) {
		t.Error("search by tokens is not sorted")
	}
	// Bad queries are refused with codes: TestBoundErrorsAreCoded.
}
