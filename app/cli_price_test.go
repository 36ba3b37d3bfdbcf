package app_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strconv"
	"testing"

	"spillscope/app"
	"spillscope/app/cli"
	"spillscope/retention"
)

// The CLI's retain reads an indexed result's content (images as the stored
// attachments) at the budget the list shows and prices it as the list does:
// within budget, the same original figure on the same estimator.
func TestCLIRetainPricesAsTheList(t *testing.T) {
	root := t.TempDir()
	app.WriteImageSession(t, root, 200)
	s, r := app.IndexRoot(t, root, filepath.Join(t.TempDir(), "data"))
	page, err := s.Largest(app.PageQuery{Limit: 10})
	rows := page.Rows
	if err != nil || len(rows) != 1 {
		t.Fatalf("rows %v, %v", rows, err)
	}
	row := rows[0]
	detail, err := s.Result(app.ResultQuery{ID: row.ID})
	if err != nil {
		t.Fatal(err)
	}
	var blocks []map[string]string
	for _, b := range r.LoadedContent(t, row.ID) {
		if b.Type == retention.TypeImage {
			blocks = append(blocks, map[string]string{"type": "image", "mimeType": b.MimeType, "path": b.Path})
		} else {
			blocks = append(blocks, map[string]string{"type": "text", "text": b.Text})
		}
	}
	in, _ := json.Marshal(blocks)
	var out, errb bytes.Buffer
	if code := cli.Run(cli.Env{Stdin: bytes.NewReader(in), Stdout: &out, Stderr: &errb}, []string{"retain", "--route", detail.Route, "--budget", strconv.FormatInt(row.Tokens, 10)}); code != 0 {
		t.Fatalf("cli exit %d: %s", code, errb.String())
	}
	var o struct {
		Status         string
		OriginalTokens int64
		Estimator      string
	}
	if err := json.Unmarshal(out.Bytes(), &o); err != nil {
		t.Fatal(err)
	}
	if o.OriginalTokens != row.Tokens || o.Status != retention.StatusWithinBudget || o.Estimator != detail.Estimator {
		t.Fatalf("CLI says %+v, the list %d", o, row.Tokens)
	}
}
