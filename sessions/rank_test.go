package sessions

import (
	"bytes"
	"database/sql"
	"encoding/base64"
	"image"
	"image/png"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"spillscope/retention"
	"spillscope/retention/imagecost"
)

func itoa(n int) string { return strconv.Itoa(n) }

func TestApproxTextTokens(t *testing.T) {
	for _, tc := range []struct {
		bytes, want int64
	}{
		{-1, 0}, {0, 0}, {1, 1}, {3, 1}, {4, 2}, {7, 2}, {8, 3}, {35, 10}, {36, 11}, {3500, 1000},
	} {
		if got := approxTextTokens(tc.bytes); got != tc.want {
			t.Errorf("approxTextTokens(%d) = %d, want %d", tc.bytes, got, tc.want)
		}
	}
}

// Images rank at what every decision charges for them: the route's visual
// tokens plus the estimate of dsh's handle text, computed here from the
// pieces rather than through the shared function.
func TestApproxTokensPricesImagesOnTheRoute(t *testing.T) {
	sha := strings.Repeat("ab", 32)
	imgs := []attachRef{{att: Attachment{SHA256: sha, MediaType: "image/png", Width: 1000, Height: 800}}, {att: Attachment{Width: 0, Height: 0}}}
	for _, route := range []string{"", imagecost.RouteAnthropic, imagecost.RouteOpenAITile, imagecost.RouteGemini, imagecost.RouteDeepSeek, imagecost.RouteDeepSeekV41, "no-such-route"} {
		_, rt, est := routeFor(route)
		want := approxTextTokens(700)
		if rt.Calc != nil {
			for _, a := range imgs {
				if n, err := rt.Calc(a.att.Width, a.att.Height); err == nil {
					rw, rh := rt.RequestSize(a.att.Width, a.att.Height)
					handle := "Image sha256:" + a.att.SHA256 + "; request preview " + itoa(rw) + "x" + itoa(rh) +
						"px. It may be resized or re-encoded; source dimensions, format, and byte size may differ."
					h, err := retention.CountTokens(est, handle)
					if est == retention.EstimatorMeter {
						h, err = (len([]rune(handle))+3)/4+4, nil
					}
					if err != nil {
						t.Fatal(err)
					}
					want += int64(n + h)
				}
			}
		}
		if got := approxTokens(700, imgs, route); got != want {
			t.Errorf("route %q: approxTokens = %d, want %d", route, got, want)
		}
	}
	if approxTokens(0, imgs, imagecost.RouteAnthropic) <= approxTokens(0, nil, imagecost.RouteAnthropic) {
		t.Error("an image added nothing to the approximation")
	}
}

// pngOf returns a base64 PNG of the given size.
func pngOf(t testing.TB, w, h int) string {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

func resultByCall(t testing.TB, rows []ResultRow, call string) ResultRow {
	t.Helper()
	for _, r := range rows {
		if r.CallID == call {
			return r
		}
	}
	t.Fatalf("no result %s in %d rows", call, len(rows))
	return ResultRow{}
}

// The ranking uses the size-based approximation until the token phase has
// counted a result, and the exact count from then on. The two texts are
// chosen so the orders disagree: a long run of one letter tokenizes far
// below its size, a run of CJK ideographs far above.
func TestRankingSwitchesToExactCounts(t *testing.T) {
	dense := strings.Repeat("a", 6000)   // few tokens for many bytes
	sparse := strings.Repeat("龘鬱齉", 600) // 5,400 bytes, about a token per byte pair or more
	enc := retention.DefaultEncoding
	nd, err := retention.CountTokens(enc, dense)
	if err != nil {
		t.Fatal(err)
	}
	ns, err := retention.CountTokens(enc, sparse)
	if err != nil {
		t.Fatal(err)
	}
	if !(approxTextTokens(int64(len(dense))) > approxTextTokens(int64(len(sparse))) && ns > nd) {
		t.Fatalf("premise broken: approx %d vs %d, exact %d vs %d", approxTextTokens(int64(len(dense))), approxTextTokens(int64(len(sparse))), nd, ns)
	}
	root := t.TempDir()
	img := []any{map[string]any{"type": "text", "text": "screenshot"},
		map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": pngOf(t, 1000, 800)}}}
	writeFile(t, filepath.Join(root, "p", "r1.jsonl"),
		cAssistant("r1", "m1", "q1", "toolu_dense", "Bash", 1)+cResult("r1", "toolu_dense", dense)+
			cAssistant("r1", "m2", "q2", "toolu_sparse", "Read", 1)+cResult("r1", "toolu_sparse", sparse)+
			cAssistant("r1", "m3", "q3", "toolu_img", "Screenshot", 1)+cResult("r1", "toolu_img", img)+
			cAssistant("r1", "m4", "q4", "toolu_small", "Bash", 1)+cResult("r1", "toolu_small", "ok"))
	d := openTemp(t)
	index(t, d, root)

	before, err := d.Results(t.Context(), ResultFilter{Order: OrderTokens})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range before {
		if r.TokensExact || r.EstTokens != nil {
			t.Fatalf("%s is exact before the token phase: %+v", r.CallID, r)
		}
	}
	imgRow := resultByCall(t, before, "toolu_img")
	// The structure pass prices the image exactly as a decision does.
	_, imgRes, err := d.LoadResult(t.Context(), imgRow.ID)
	if err != nil {
		t.Fatal(err)
	}
	a, err := retention.Options{Route: imgRow.Route}.Analyse(imgRes)
	if err != nil {
		t.Fatal(err)
	}
	imgTokens := 0
	for i, b := range imgRes.Content {
		if b.Type == retention.TypeImage {
			_, p, ok := a.Image(i)
			if !ok {
				t.Fatalf("image block %d unpriced on %s", i, imgRow.Route)
			}
			imgTokens += p.Total()
		}
	}
	if want := approxTextTokens(int64(len("screenshot"))) + int64(imgTokens); imgRow.Tokens != want {
		t.Errorf("image result ranks at %d before counting, want %d (text approximation + image priced on %s)", imgRow.Tokens, want, imgRow.Route)
	}
	if i, j := indexOfCall(before, "toolu_dense"), indexOfCall(before, "toolu_sparse"); i > j {
		t.Errorf("before counting, dense (%d bytes) ranks below sparse (%d bytes)", len(dense), len(sparse))
	}
	if last := before[len(before)-1]; last.CallID != "toolu_small" {
		t.Errorf("smallest result is %s", last.CallID)
	}
	for i := 1; i < len(before); i++ {
		if before[i-1].Tokens < before[i].Tokens {
			t.Errorf("not sorted by tokens: %d before %d", before[i-1].Tokens, before[i].Tokens)
		}
	}

	if err := d.EstimateTokens(t.Context(), EnrichOptions{}); err != nil {
		t.Fatal(err)
	}
	after, err := d.Results(t.Context(), ResultFilter{Order: OrderTokens})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range after {
		if !r.TokensExact || r.EstTokens == nil || *r.EstTokens != r.Tokens {
			t.Errorf("%s after the token phase: exact %v est %v tokens %d", r.CallID, r.TokensExact, r.EstTokens, r.Tokens)
		}
	}
	// One price per result: the token phase's count is the Analysis's
	// original, image included.
	for _, r := range after {
		_, res, err := d.LoadResult(t.Context(), r.ID)
		if err != nil {
			t.Fatal(err)
		}
		a, err := retention.Options{Route: r.Route}.Analyse(res)
		if err != nil {
			t.Fatal(err)
		}
		if orig, exact := a.Original(); !exact || int64(orig.Total) != r.Tokens {
			t.Errorf("%s: the list says %d tokens, the Analysis %d (exact %v)", r.CallID, r.Tokens, orig.Total, exact)
		}
	}
	if got := resultByCall(t, after, "toolu_dense").Tokens; got != int64(nd) {
		t.Errorf("dense ranks at %d, its exact count is %d", got, nd)
	}
	if got := resultByCall(t, after, "toolu_sparse").Tokens; got != int64(ns) {
		t.Errorf("sparse ranks at %d, its exact count is %d", got, ns)
	}
	if i, j := indexOfCall(after, "toolu_dense"), indexOfCall(after, "toolu_sparse"); i < j {
		t.Errorf("after counting, dense (%d tokens) still ranks above sparse (%d tokens)", nd, ns)
	}
	limited, err := d.Results(t.Context(), ResultFilter{Order: OrderTokens, Limit: 2})
	if err != nil || len(limited) != 2 || limited[0].ID != after[0].ID || limited[1].ID != after[1].ID {
		t.Errorf("limit 2 gave %d rows (%v), want the first two of the full ranking", len(limited), err)
	}
	source, err := d.Results(t.Context(), ResultFilter{})
	if err != nil || len(source) != 4 || source[0].CallID != "toolu_dense" || source[3].CallID != "toolu_small" {
		t.Errorf("default order is not file order: %v", err)
	}

	sess, err := d.BrowseSessions(t.Context(), SessionFilter{Order: OrderTokens})
	if err != nil || len(sess) != 1 {
		t.Fatalf("sessions %v %v", sess, err)
	}
	var sum int64
	for _, r := range after {
		sum += r.Tokens
	}
	if sess[0].Tokens != sum || sess[0].TokensPending != 0 {
		t.Errorf("session sums tokens %d (pending %d), want %d", sess[0].Tokens, sess[0].TokensPending, sum)
	}
}

func indexOfCall(rows []ResultRow, call string) int {
	for i, r := range rows {
		if r.CallID == call {
			return i
		}
	}
	return -1
}

func TestSessionsByTokensAndPending(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "p", "small.jsonl"), cAssistant("small", "m1", "q1", "toolu_1", "Bash", 1)+cResult("small", "toolu_1", "tiny"))
	writeFile(t, filepath.Join(root, "p", "big.jsonl"), cAssistant("big", "m1", "q1", "toolu_2", "Bash", 1)+cResult("big", "toolu_2", strings.Repeat("word ", 4000)))
	d := openTemp(t)
	index(t, d, root)
	list, err := d.BrowseSessions(t.Context(), SessionFilter{Order: OrderTokens})
	if err != nil || len(list) != 2 {
		t.Fatalf("%v %v", list, err)
	}
	if list[0].SessionID != "big" || list[0].TokensPending != 1 || list[0].Tokens != approxTextTokens(20000) {
		t.Errorf("first by tokens: %+v", list[0])
	}
}

// A session whose model (so its route) changes in a later pass is counted
// again on the new route: counts on the old route would rank it wrongly.
func TestRouteChangeRecounts(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "p", "rc.jsonl")
	writeFile(t, path, cAssistant("rc", "m1", "q1", "toolu_1", "Bash", 1)+cResult("rc", "toolu_1", strings.Repeat("héllo wörld ", 300)))
	d := openTemp(t)
	index(t, d, root)
	if err := d.EstimateTokens(t.Context(), EnrichOptions{}); err != nil {
		t.Fatal(err)
	}
	first, err := d.Results(t.Context(), ResultFilter{})
	if err != nil || len(first) != 1 || !first[0].TokensExact {
		t.Fatalf("%v %v", first, err)
	}
	appendFile(t, path, mustJSON(map[string]any{
		"type": "assistant", "sessionId": "rc", "timestamp": "2026-01-01T00:00:09.000Z", "requestId": "q9",
		"message": map[string]any{"id": "m9", "model": "gpt-4-turbo", "role": "assistant", "content": []any{map[string]any{"type": "text", "text": "done"}}},
	}))
	index(t, d, root)
	mid, err := d.Results(t.Context(), ResultFilter{})
	if err != nil || len(mid) != 1 {
		t.Fatalf("%v %v", mid, err)
	}
	if mid[0].Route == first[0].Route {
		t.Fatalf("route stayed %q: the test's model line did not change it", mid[0].Route)
	}
	if mid[0].TokensExact {
		t.Errorf("count on route %s kept after the session moved to %s", first[0].Route, mid[0].Route)
	}
	if err := d.EstimateTokens(t.Context(), EnrichOptions{}); err != nil {
		t.Fatal(err)
	}
	var estRoute string
	if err := d.db.QueryRow(`SELECT est_route FROM tool_results`).Scan(&estRoute); err != nil || estRoute != mid[0].Route {
		t.Errorf("recounted on %q (%v), want %q", estRoute, err, mid[0].Route)
	}
}

func TestSearchOrders(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "p", "so.jsonl"),
		cAssistant("so", "m1", "q1", "toolu_a", "Bash", 1)+cResult("so", "toolu_a", "kestrel "+strings.Repeat("filler text ", 2000))+
			cAssistant("so", "m2", "q2", "toolu_b", "Bash", 1)+cResult("so", "toolu_b", "kestrel kestrel kestrel")+
			cAssistant("so", "m3", "q3", "toolu_c", "Bash", 1)+cResult("so", "toolu_c", "no bird here"))
	d := openTemp(t)
	index(t, d, root)
	if err := d.Enrich(t.Context(), EnrichOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		order Order
		want  []string
	}{
		{"", []string{"toolu_b", "toolu_a"}}, // bm25: the short, dense match first
		{OrderRelevance, []string{"toolu_b", "toolu_a"}},
		{OrderTokens, []string{"toolu_a", "toolu_b"}}, // the big one first
		{OrderSource, []string{"toolu_a", "toolu_b"}},
	} {
		rows, err := d.Search(t.Context(), `"kestrel"`, tc.order, 10)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range rows {
			got = append(got, r.CallID)
		}
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("order %q: %v, want %v", tc.order, got, tc.want)
		}
	}
	if rows, err := d.Search(t.Context(), `"kestrel"`, "", 1); err != nil || len(rows) != 1 {
		t.Errorf("limit 1: %d rows, %v", len(rows), err)
	}
}

func TestParseOrder(t *testing.T) {
	for _, ok := range []string{"", "source", "tokens", "relevance"} {
		if _, err := ParseOrder(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"Tokens", "rank; DROP TABLE files", "size"} {
		if _, err := ParseOrder(bad); err == nil || !strings.Contains(err.Error(), "unknown order") {
			t.Errorf("%q accepted (%v)", bad, err)
		}
	}
}

// An index written before the ranking migration opens with every row
// ranked: approximations backfilled from text sizes, exact counts kept.
func TestRankMigrationOnAnOlderIndex(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db")
	raw, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	first, err := migrations.ReadFile("migrations/0001_init.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		string(first),
		`CREATE TABLE migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)`,
		`INSERT INTO migrations VALUES ('0001_init.sql', '2026-11-01T00:00:00Z')`,
		`INSERT INTO files (id, path, root, harness, size, mtime_ns, fingerprint, parsed_offset, parsed_line, indexed_at) VALUES (1, '/x/a.jsonl', '/x', 'claude-code', 10, 1, 'f', 10, 1, 'now')`,
		`INSERT INTO sessions (id, file_id, harness, session_id) VALUES (1, 1, 'claude-code', 'old')`,
		`INSERT INTO tool_results (id, session_id, file_id, call_id, tool_name, at, is_error, text_bytes, image_count, block_count, src_offset, src_length, src_line, src_index)
		 VALUES (1, 1, 1, 'a', 'Bash', '', 0, 7000, 0, 1, 0, 1, 1, 0), (2, 1, 1, 'b', 'Bash', '', 0, 70, 0, 1, 0, 1, 2, 0)`,
		`UPDATE tool_results SET est_tokens = 5000 WHERE id = 2`,
	} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%.60s: %v", q, err)
		}
	}
	raw.Close()
	d, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	rows, err := d.Results(t.Context(), ResultFilter{Order: OrderTokens})
	if err != nil || len(rows) != 2 {
		t.Fatalf("%v %v", rows, err)
	}
	if rows[0].CallID != "b" || rows[0].Tokens != 5000 || !rows[0].TokensExact {
		t.Errorf("exact count not kept first: %+v", rows[0])
	}
	if rows[1].CallID != "a" || rows[1].Tokens != approxTextTokens(7000) || rows[1].TokensExact {
		t.Errorf("approximation not backfilled: %+v", rows[1])
	}
}

// A first pass that saw no model line leaves the route empty (priced like
// Anthropic); when a later pass finds the model, those counts are redone.
func TestRouteFromEmptyRecounts(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "p", "er.jsonl")
	writeFile(t, path, cResult("er", "toolu_1", strings.Repeat("héllo wörld ", 300)))
	d := openTemp(t)
	index(t, d, root)
	if err := d.EstimateTokens(t.Context(), EnrichOptions{}); err != nil {
		t.Fatal(err)
	}
	first, err := d.Results(t.Context(), ResultFilter{})
	if err != nil || len(first) != 1 || !first[0].TokensExact || first[0].Route != "" {
		t.Fatalf("first pass: %+v %v", first, err)
	}
	appendFile(t, path, mustJSON(map[string]any{
		"type": "assistant", "sessionId": "er", "timestamp": "2026-01-01T00:00:09.000Z", "requestId": "q9",
		"message": map[string]any{"id": "m9", "model": "gpt-4-turbo", "role": "assistant", "content": []any{map[string]any{"type": "text", "text": "done"}}},
	}))
	index(t, d, root)
	mid, err := d.Results(t.Context(), ResultFilter{})
	if err != nil || len(mid) != 1 || mid[0].Route == "" {
		t.Fatalf("second pass: %+v %v", mid, err)
	}
	if mid[0].TokensExact {
		t.Errorf("count made with no route kept after the session moved to %s", mid[0].Route)
	}
}

// A count read before a route change and written after it is dropped: the
// token phase's list is a snapshot, the write checks the session's route.
func TestStaleRouteCountIsNotWritten(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "p", "st.jsonl")
	writeFile(t, path, cAssistant("st", "m1", "q1", "toolu_1", "Bash", 1)+cResult("st", "toolu_1", strings.Repeat("héllo wörld ", 300)))
	d := openTemp(t)
	index(t, d, root)
	list, err := d.todos(t.Context(), todoTokens)
	if err != nil || len(list) != 1 {
		t.Fatalf("%v %v", list, err)
	}
	appendFile(t, path, mustJSON(map[string]any{
		"type": "assistant", "sessionId": "st", "timestamp": "2026-01-01T00:00:09.000Z", "requestId": "q9",
		"message": map[string]any{"id": "m9", "model": "gpt-4-turbo", "role": "assistant", "content": []any{map[string]any{"type": "text", "text": "done"}}},
	}))
	index(t, d, root)
	if err := d.estimate(t.Context(), EnrichOptions{}, list); err != nil {
		t.Fatal(err)
	}
	rows, err := d.Results(t.Context(), ResultFilter{})
	if err != nil || len(rows) != 1 {
		t.Fatalf("%v %v", rows, err)
	}
	if rows[0].TokensExact {
		t.Fatalf("a count made on %s was written to a session now on %s", list[0].route, rows[0].Route)
	}
	if err := d.EstimateTokens(t.Context(), EnrichOptions{}); err != nil {
		t.Fatal(err)
	}
	var estRoute string
	if err := d.db.QueryRow(`SELECT est_route FROM tool_results`).Scan(&estRoute); err != nil || estRoute != rows[0].Route {
		t.Errorf("next phase counted on %q (%v), want %q", estRoute, err, rows[0].Route)
	}
}

// Images rank on the session's current route: a route change reprices the
// approximation before the token phase recounts.
func TestRouteChangeRepricesImages(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "p", "ri.jsonl")
	img := []any{map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": pngOf(t, 1500, 1000)}}}
	writeFile(t, path, cAssistant("ri", "m1", "q1", "toolu_1", "Screenshot", 1)+cResult("ri", "toolu_1", img))
	d := openTemp(t)
	index(t, d, root)
	before, err := d.Results(t.Context(), ResultFilter{})
	if err != nil || len(before) != 1 {
		t.Fatalf("%v %v", before, err)
	}
	appendFile(t, path, mustJSON(map[string]any{
		"type": "assistant", "sessionId": "ri", "timestamp": "2026-01-01T00:00:09.000Z", "requestId": "q9",
		"message": map[string]any{"id": "m9", "model": "gpt-4-turbo", "role": "assistant", "content": []any{map[string]any{"type": "text", "text": "done"}}},
	}))
	index(t, d, root)
	after, err := d.Results(t.Context(), ResultFilter{})
	if err != nil || len(after) != 1 || after[0].Route == before[0].Route {
		t.Fatalf("%v %v", after, err)
	}
	_, res, err := d.LoadResult(t.Context(), after[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []ResultRow{before[0], after[0]} {
		a, err := retention.Options{Route: r.Route}.Analyse(res)
		if err != nil {
			t.Fatal(err)
		}
		_, p, ok := a.Image(0)
		n := p.Total()
		if !ok {
			t.Fatalf("unpriced on %s", r.Route)
		}
		if r.Tokens != int64(n) {
			t.Errorf("on %s the image ranks at %d, want %d", r.Route, r.Tokens, n)
		}
	}
}

// A result kept whole at a small budget is summed at its exact count (the
// token phase's), not at the partial count the decision stopped at; before
// the token phase the sweep says its sum is a lower bound.
func TestSweepUsesCountedTotals(t *testing.T) {
	root := t.TempDir()
	big := strings.Repeat("line of a long build log with words and numbers 12345\n", 2000)
	writeFile(t, filepath.Join(root, "p", "sw.jsonl"), cAssistant("sw", "m1", "q1", "toolu_1", "Bash", 1)+cResult("sw", "toolu_1", big))
	d := openTemp(t)
	index(t, d, root)
	budgets := []int64{0, 3000}
	before, err := d.Sweep(t.Context(), budgets, SweepOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if before[0].Preserved != 1 || !before[0].InlineTokensLowerBound {
		t.Errorf("budget 0 before counting: %+v (want preserved, a lower bound)", before[0])
	}
	if err := d.EstimateTokens(t.Context(), EnrichOptions{}); err != nil {
		t.Fatal(err)
	}
	rows, err := d.Results(t.Context(), ResultFilter{})
	if err != nil || len(rows) != 1 || rows[0].EstTokens == nil {
		t.Fatalf("%v %v", rows, err)
	}
	after, err := d.Sweep(t.Context(), budgets, SweepOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if after[0].InlineTokensLowerBound || after[0].InlineTokens != *rows[0].EstTokens {
		t.Errorf("budget 0 after counting: %+v, want exactly %d", after[0], *rows[0].EstTokens)
	}
	if after[1].Replaced != 1 || after[1].InlineTokens > 3000 || after[0].InlineTokens <= after[1].InlineTokens {
		t.Errorf("the whole result at budget 0 (%d) must cost more than its cut at 3000 (%+v)", after[0].InlineTokens, after[1])
	}
	// Another route than the count's: the stored count does not apply.
	other, err := d.Sweep(t.Context(), budgets[:1], SweepOptions{Route: imagecost.RouteGemini})
	if err != nil {
		t.Fatal(err)
	}
	if !other[0].InlineTokensLowerBound {
		t.Errorf("a count made on %s was used for route %s: %+v", rows[0].Route, imagecost.RouteGemini, other[0])
	}
}

// The sessions filter matches the user's text literally.
func TestSessionFilterIsLiteral(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "p", "lit.jsonl"), cAssistant("lit", "m1", "q1", "toolu_1", "Bash", 1)+cResult("lit", "toolu_1", "x"))
	d := openTemp(t)
	index(t, d, root)
	for _, tc := range []struct {
		q    string
		want int
	}{
		{"", 1}, {"sonnet", 1}, {"SONNET-4", 1}, {"%", 0}, {"_", 0}, {"claude%sonnet", 0}, {"claude_sonnet", 0}, {`\`, 0}, {"claude-sonnet-4-5", 1},
	} {
		got, err := d.BrowseSessions(t.Context(), SessionFilter{Search: tc.q})
		if err != nil || len(got) != tc.want {
			t.Errorf("search %q: %d sessions (%v), want %d", tc.q, len(got), err, tc.want)
		}
	}
}
