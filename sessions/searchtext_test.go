package sessions

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"

	"spillscope/retention"
	"spillscope/retention/links"
)

// longText is about n bytes of log words with credentials planted in
// several spellings all around every multiple of searchPartBytes (where a
// naive cut would fall), plus runs without whitespace: base64 (no "=") and
// a query string (with "=").
func longText(r *rand.Rand, n int, secrets *[]string) string {
	words := strings.Fields("GET /api/v1/items status=200 bytes=1234 done region=eu-west-1 ok retry=0 cache=hit")
	spell := []func(v string) string{
		func(v string) string {
			return "https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=" + v
		},
		func(v string) string { return "access_token=" + v },
		func(v string) string {
			return url.QueryEscape("https://api.example.com/v2?q=1&api_key=" + v)
		},
		func(v string) string { return `{"url":"https:\/\/x.example\/cb#access_token=` + v + `"}` },
	}
	var b strings.Builder
	next := searchPartBytes
	for b.Len() < n {
		if b.Len() >= next-1000 {
			for b.Len() < next+1000 {
				put := spell[r.IntN(len(spell))]
				v := fmt.Sprintf("SECRET%08d", r.IntN(1e8))
				*secrets = append(*secrets, v)
				b.WriteString(put(v))
				b.WriteByte(" \n"[r.IntN(2)])
			}
			next += searchPartBytes
		}
		switch k := r.IntN(400); {
		case k == 0 && b.Len()+130<<10 < next-1000:
			b.WriteString(strings.Repeat("QUJDRGVmZ2hpams0NTY3", 6<<10)) // base64, no "="
		case k == 1 && b.Len()+90<<10 < next-1000:
			b.WriteString("?" + strings.Repeat("a=1&", 20<<10))
		default:
			b.WriteString(words[r.IntN(len(words))])
		}
		b.WriteByte(" \n\t"[r.IntN(3)])
	}
	return b.String()
}

// A long text is indexed in parts whose concatenation is exactly the one
// row it would have been (so no credential is split where redaction cannot
// see it), each part bounded, and no planted value in any part.
func TestSearchPartsJoinToTheWholeRedaction(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	var secrets []string
	long := longText(r, 5*searchPartBytes+12345, &secrets)
	run := strings.Repeat("A", 3*searchPartBytes) // one run without any stop character
	tests := []struct {
		name   string
		blocks []retention.Block
	}{
		{"one long text", []retention.Block{{Type: retention.TypeText, Text: long}}},
		{"short, long, short", []retention.Block{{Type: retention.TypeText, Text: "head access_token=SECRETshort1"},
			{Type: retention.TypeImage, Data: "AAAA"}, {Type: retention.TypeText, Text: long}, {Type: retention.TypeText, Text: "tail"}}},
		{"a run without stops", []retention.Block{{Type: retention.TypeText, Text: run}}},
		{"short texts only", []retention.Block{{Type: retention.TypeText, Text: "a"}, {Type: retention.TypeText, Text: "b"}}},
	}
	secrets = append(secrets, "SECRETshort1")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want strings.Builder
			for _, b := range tt.blocks {
				if b.Type == retention.TypeText {
					want.WriteString(links.ScrubValues(links.Redact(b.Text)) + "\n")
				}
			}
			var parts []string
			if err := searchParts(tt.blocks, func(p string) error { parts = append(parts, p); return nil }); err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(parts, ""); got != want.String() {
				t.Fatalf("parts join to %d bytes, the whole redaction is %d", len(got), want.Len())
			}
			for i, p := range parts {
				if len(p) > 2*searchPartBytes {
					t.Errorf("part %d is %d bytes", i, len(p))
				}
				for _, s := range secrets {
					if strings.Contains(p, s) {
						t.Errorf("part %d holds %s", i, s)
					}
				}
			}
			if total := want.Len(); total > 2*searchPartBytes && len(parts) < total/(2*searchPartBytes) {
				t.Errorf("%d bytes in %d parts", total, len(parts))
			}
		})
	}
}

// Every planted word of a result indexed in parts is found, the parts fold
// into the one result, and re-reading the result drops every part's terms.
func TestSearchFindsWordsInEveryPart(t *testing.T) {
	root := t.TempDir()
	var b strings.Builder
	var marks []string
	for i := 0; b.Len() < 5*searchPartBytes; i++ {
		if i%20000 == 0 {
			m := fmt.Sprintf("zzmark%dq", len(marks))
			marks = append(marks, m)
			b.WriteString(m + " ")
		}
		b.WriteString("plain words of output ")
	}
	path := root + "/proj/" + "0b7c3c1e-1111-4222-8333-944445555666.jsonl"
	writeFile(t, path, cAssistant("s", "m1", "r1", "t1", "Bash", 1)+"\n"+cResult("s", "t1", b.String())+"\n")
	d := openTemp(t)
	index(t, d, root)
	if err := d.Enrich(t.Context(), EnrichOptions{}); err != nil {
		t.Fatal(err)
	}
	var parts int
	if err := d.db.QueryRow(`SELECT COUNT(*) FROM result_fts WHERE rowid < 0`).Scan(&parts); err != nil {
		t.Fatal(err)
	}
	if parts < 2 {
		t.Fatalf("%d extra parts for a %d-byte text", parts, b.Len())
	}
	for _, o := range []Order{"", OrderTokens, OrderSource} {
		for _, m := range marks {
			rows, err := d.Search(t.Context(), `"`+m+`"`, o, 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 1 {
				t.Errorf("order %q: %s found in %d results, want 1", o, m, len(rows))
			}
		}
	}
	if _, err := d.db.Exec(`UPDATE tool_results SET fts_done = 0`); err != nil {
		t.Fatal(err)
	}
	var left int
	if err := d.db.QueryRow(`SELECT COUNT(*) FROM result_fts WHERE result_fts MATCH ?`, marks[len(marks)-1]).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Errorf("%d rows still match after the result was marked for re-indexing", left)
	}
	if err := d.IndexText(t.Context(), EnrichOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := d.db.QueryRow(`SELECT COUNT(*) FROM result_fts WHERE rowid < 0`).Scan(&left); err != nil || left != parts {
		t.Fatalf("%d parts after re-indexing, want %d (%v)", left, parts, err)
	}
	if _, err := d.db.Exec(`DELETE FROM tool_results`); err != nil {
		t.Fatal(err)
	}
	if err := d.db.QueryRow(`SELECT COUNT(*) FROM result_fts WHERE rowid < 0`).Scan(&left); err != nil || left != 0 {
		t.Errorf("%d parts left after the result was deleted (%v)", left, err)
	}
}
