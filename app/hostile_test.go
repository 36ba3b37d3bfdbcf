package app

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"spillscope/sessions/samplegen"
)

// newHostileApp writes a hostile corpus (smaller huge lines, a few extra
// sessions) and indexes it through the Sessions service as the window does.
func newHostileApp(t *testing.T) (*Sessions, *Retention, *Links, samplegen.HostileManifest, string) {
	t.Helper()
	root := t.TempDir()
	corpus := filepath.Join(root, "corpus")
	man, err := samplegen.GenerateHostile(corpus, samplegen.HostileOptions{Seed: 3, HugeLineBytes: 3 << 20, Images: 12, Sessions: 26})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{DataDir: filepath.Join(root, "data"), Roots: []string{corpus}, Home: root}
	store := NewStore(cfg, nil)
	t.Cleanup(func() { store.Close() })
	s := indexAll(t, store, 3*time.Minute)
	return s, NewRetention(store), NewLinks(store), man, corpus
}

// views collects what the services returned, as the window receives it.
type views struct {
	t    *testing.T
	json []string
	what []string
}

func (v *views) add(what string, x any, err error) {
	v.t.Helper()
	if err != nil {
		v.t.Fatalf("%s: %v", what, err)
	}
	b, err := json.Marshal(x)
	if err != nil {
		v.t.Fatal(err)
	}
	v.json, v.what = append(v.json, string(b)), append(v.what, what)
}

// leaks names each planted secret some view holds.
func (v *views) leaks(secrets []string) []string {
	var out []string
	for i, j := range v.json {
		for _, s := range secrets {
			if strings.Contains(j, s) {
				out = append(out, fmt.Sprintf("%s holds %s", v.what[i], s))
			}
		}
	}
	return out
}

// Every view the bound services return over a hostile corpus holds none of
// the planted credential values unless the result's credentials are
// revealed; revealed, the same views hold them; figures are the same both
// ways.
func TestHostileCorpusNeverShowsASecretUnrevealed(t *testing.T) {
	s, r, l, man, corpus := newHostileApp(t)
	if len(man.Secrets) < 100 {
		t.Fatalf("the hostile corpus planted %d secrets", len(man.Secrets))
	}
	v := &views{t: t}
	sessionsList, err := listAll(s, SessionQuery{})
	v.add("sessions", sessionsList, err)
	if len(sessionsList) != man.Sessions {
		t.Fatalf("%d sessions listed, %d written", len(sessionsList), man.Sessions)
	}
	largestPage, err := s.Largest(PageQuery{Limit: MaxPage})
	largest := largestPage.Rows
	v.add("largest", largest, err)
	budgets := []*int64{nil, ptr(0), ptr(300), ptr(2000), ptr(12500)}
	var all []ResultRow
	for _, sess := range sessionsList {
		rows, err := resultsAll(s, sess.ID)
		v.add("results", rows, err)
		all = append(all, rows...)
	}
	byTool := map[string]ResultRow{}
	for _, row := range all {
		byTool[row.Tool] = row
		d, err := s.Result(ResultQuery{ID: row.ID})
		v.add("result "+row.Tool, d, err)
		if err == nil && d.Revealed {
			t.Errorf("result %d says revealed without being asked", row.ID)
		}
		for _, b := range budgets {
			p, err := r.Retain(RetainRequest{ResultID: row.ID, Budget: b})
			v.add(fmt.Sprintf("retain %s at %v", row.Tool, b), p, err)
		}
		// Spill pages of the corpus's own spill files (forged notices name
		// files the file rule must refuse; that rule is tested on its own).
		if row.NoticePath != "" && strings.HasPrefix(row.NoticePath, corpus) && row.NoticeFileExists {
			for off, pages := int64(0), 0; pages < 8; pages++ {
				sl, err := s.SpillFile(SpillQuery{ResultID: row.ID, Offset: off, Limit: 64 << 10})
				v.add(fmt.Sprintf("spill %s page %d", row.Tool, pages), sl, err)
				if err != nil || sl.EOF {
					break
				}
				off = sl.Next
			}
		}
	}
	if sp, ok := byTool[samplegen.HostileToolSparse]; ok {
		mid := man.SparseBytes/2 - 100
		sl, err := s.SpillFile(SpillQuery{ResultID: sp.ID, Offset: mid, Limit: 64 << 10})
		v.add("sparse middle page", sl, err)
		if err == nil && !strings.Contains(sl.Text, "sparse spill middle") {
			t.Errorf("sparse middle page does not hold its text: %.80q", sl.Text)
		}
	} else {
		t.Error("no sparse spill result")
	}
	for _, q := range []string{"fetched", "Links written", "HTTP", "sparse spill", "export", "request done"} {
		hits, err := searchAll(s, SearchQuery{Query: q})
		v.add("search "+q, hits, err)
		ids := make([]int64, 0, len(hits))
		for _, h := range hits {
			ids = append(ids, h.ID)
		}
		sn, err := s.Snippets(SnippetQuery{Query: q, IDs: ids})
		v.add("snippets "+q, sn, err)
	}
	linkRows, err := linksAll(l, LinkQuery{})
	v.add("links", linkRows, err)
	withURI := 0
	for _, lr := range linkRows {
		if lr.URI != "" {
			withURI++
		}
	}
	if withURI < len(linkRows)*9/10 {
		t.Errorf("%d of %d link rows have a redacted URI", withURI, len(linkRows))
	}
	for _, f := range man.Secrets[:20] {
		row, err := l.Check("https://x.example/?token=" + f)
		v.add("check", row, err)
	}
	if leaks := v.leaks(man.Secrets); len(leaks) > 0 {
		t.Fatalf("%d views hold a planted secret, first: %s", len(leaks), strings.Join(leaks[:min(len(leaks), 5)], "; "))
	}
	if len(v.json) < 200 {
		t.Fatalf("only %d views checked", len(v.json))
	}
	// The known limits show, as the help says (so the planted values above
	// are masked by the rule, not by luck).
	if n := len(v.leaks(man.Unrecognised)); n == 0 {
		t.Error("values outside the link rules are hidden too: the corpus no longer tests the rule")
	}

	// Revealed, the same result shows what it holds, in every pane, with the
	// same figures.
	plain, ok := byTool[samplegen.HostileToolCredentials+"_plain"]
	if !ok {
		t.Fatal("no plain-credentials result")
	}
	masked, err := s.Result(ResultQuery{ID: plain.ID})
	if err != nil {
		t.Fatal(err)
	}
	shown, err := s.Result(ResultQuery{ID: plain.ID, Reveal: true})
	if err != nil {
		t.Fatal(err)
	}
	rv := &views{t: t}
	rv.add("revealed result", shown, nil)
	mp, _ := r.Retain(RetainRequest{ResultID: plain.ID, Budget: ptr(12500)})
	rp, err := r.Retain(RetainRequest{ResultID: plain.ID, Budget: ptr(12500), Reveal: true})
	rv.add("revealed retain", rp, err)
	for _, sec := range man.SecretsBySpelling["plain"] {
		for i, j := range rv.json {
			if !strings.Contains(j, sec) {
				t.Errorf("%s does not show %s", rv.what[i], sec)
			}
		}
	}
	if !shown.Revealed || shown.Masked != 0 || masked.Masked == 0 || !rp.Revealed {
		t.Errorf("revealed %v masked %d; masked view masked %d; projection revealed %v", shown.Revealed, shown.Masked, masked.Masked, rp.Revealed)
	}
	if masked.Blocks[0].TextBytes != shown.Blocks[0].TextBytes || masked.Blocks[0].ShownBytes != shown.Blocks[0].ShownBytes {
		t.Errorf("byte figures differ: masked %d/%d, revealed %d/%d", masked.Blocks[0].TextBytes, masked.Blocks[0].ShownBytes, shown.Blocks[0].TextBytes, shown.Blocks[0].ShownBytes)
	}
	if mp.Tokens != rp.Tokens || mp.OriginalTokens != rp.OriginalTokens || mp.OmittedBytes != rp.OmittedBytes {
		t.Errorf("token figures differ: masked %+v/%d, revealed %+v/%d", mp.Tokens, mp.OriginalTokens, rp.Tokens, rp.OriginalTokens)
	}

	// The spill file's value across the first page edge: masked on both
	// pages, whole when revealed.
	spill := byTool[samplegen.HostileToolSpill]
	var joined, revealed strings.Builder
	for _, reveal := range []bool{false, true} {
		for off := int64(0); ; {
			sl, err := s.SpillFile(SpillQuery{ResultID: spill.ID, Offset: off, Limit: 64 << 10, Reveal: reveal})
			if err != nil {
				t.Fatal(err)
			}
			if reveal {
				revealed.WriteString(sl.Text)
			} else {
				joined.WriteString(sl.Text)
			}
			if sl.EOF {
				break
			}
			off = sl.Next
		}
	}
	pc := man.PageCrossing
	for cut := 4; cut < len(pc); cut++ {
		if strings.Contains(joined.String(), pc[:cut]) || strings.Contains(joined.String(), pc[len(pc)-cut:]) {
			t.Fatalf("a piece of the page-crossing value shows: %d bytes", cut)
		}
	}
	if !strings.Contains(revealed.String(), pc) {
		t.Error("revealed pages do not show the page-crossing value")
	}

	// The playground masks pasted text the same way.
	paste := fmt.Sprintf(`{"content":[{"type":"text","text":"see https://b.s3.amazonaws.com/k?X-Amz-Signature=%s ok"}]}`, man.Secrets[0])
	pm, err := r.Retain(RetainRequest{JSON: paste})
	if b, _ := json.Marshal(pm); err != nil || strings.Contains(string(b), man.Secrets[0]) {
		t.Errorf("pasted result shows its secret (err %v)", err)
	}
	pr, err := r.Retain(RetainRequest{JSON: paste, Reveal: true})
	if b, _ := json.Marshal(pr); err != nil || !strings.Contains(string(b), man.Secrets[0]) {
		t.Errorf("revealed pasted result hides its secret (err %v)", err)
	}
}

// A credential the retention cut goes through is masked in the head and in
// the tail, and the panes' cut markers stay where the real text was cut.
func TestProjectionMasksACredentialTheCutGoesThrough(t *testing.T) {
	const value = "Zq7sEcReTvAlUe0123456789abcdefghijklmnopqrstuvwxyz"
	signed := "GET https://b.s3.amazonaws.com/k?X-Amz-Signature=" + value + " 200\n"
	text := strings.Repeat("line of log output\n", 6) + signed + strings.Repeat("more ordinary log output\n", 400) + signed + strings.Repeat("end of it\n", 5)
	raw, _ := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}})
	store := NewStore(Config{DataDir: t.TempDir(), Home: t.TempDir()}, nil)
	t.Cleanup(func() { store.Close() })
	r := NewRetention(store)
	cutThrough := 0
	for budget := int64(20); budget <= 400; budget += 3 {
		p, err := r.Retain(RetainRequest{JSON: string(raw), Budget: ptr(budget)})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(p)
		for cut := 6; cut <= len(value); cut++ {
			if strings.Contains(string(b), value[:cut]) || strings.Contains(string(b), value[len(value)-cut:]) {
				t.Fatalf("budget %d: %d bytes of the value show", budget, cut)
			}
		}
		// The count is what the panes mask, each value once.
		shownMasks := len(p.CompleteFileMasks)
		for _, v := range p.Blocks {
			shownMasks += len(v.Masks)
		}
		if p.Masked != shownMasks {
			t.Fatalf("budget %d: masked says %d, the panes mask %d", budget, p.Masked, shownMasks)
		}
		revealed, err := r.Retain(RetainRequest{JSON: string(raw), Budget: ptr(budget), Reveal: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Blocks) != len(revealed.Blocks) {
			t.Fatalf("budget %d: %d blocks masked, %d revealed", budget, len(p.Blocks), len(revealed.Blocks))
		}
		for i := range p.Blocks {
			m, rb := p.Blocks[i], revealed.Blocks[i]
			if m.Cut != rb.Cut || m.Kind != rb.Kind || m.TextBytes != rb.TextBytes || m.ShownBytes != rb.ShownBytes {
				t.Fatalf("budget %d block %d: masked %s/%s/%d, revealed %s/%s/%d", budget, i, m.Kind, m.Cut, m.TextBytes, rb.Kind, rb.Cut, rb.TextBytes)
			}
			// The masks map the shown text back to the real one.
			if got := unmask(m.Text, m.Masks, rb.Text); got != rb.Text {
				t.Fatalf("budget %d block %d: masks do not map the masked text back", budget, i)
			}
			if m.Cut != "" && strings.Contains(rb.Text, value[:4]) && !strings.Contains(rb.Text, value) {
				cutThrough++
			}
		}
	}
	if cutThrough == 0 {
		t.Fatal("no budget cut through the value; the test proves nothing")
	}
}

// unmask rebuilds the real text from a masked one and its masks, taking each
// masked range from the real text: it equals the real text exactly when the
// masks' offsets are right.
func unmask(masked string, masks []MaskSpan, real string) string {
	var b strings.Builder
	last, lastAt := 0, 0
	for _, m := range masks {
		b.WriteString(masked[lastAt:m.At])
		b.WriteString(real[m.Start:m.End])
		last, lastAt = m.End, m.At+len("[redacted]")
	}
	_ = last
	b.WriteString(masked[lastAt:])
	return b.String()
}

func ptr(n int64) *int64 { return &n }
