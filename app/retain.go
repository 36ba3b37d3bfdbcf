package app

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"

	"spillscope/retention"
	"spillscope/sessions"
)

// maxPastedJSON bounds a pasted tool result; larger ones belong in a file
// the indexer reads.
const maxPastedJSON = 64 << 20

// Retain runs the decision on one result at one budget and route: an indexed
// result read back from its source, or pasted tool-result JSON.
func (r *Retention) Retain(req RetainRequest) (Projection, error) {
	if req.Budget != nil {
		if _, err := retention.ValidateBudget(float64(*req.Budget)); err != nil {
			return Projection{}, err
		}
	}
	db, err := r.store.DB()
	if err != nil {
		return Projection{}, err
	}
	res, opts, row, err := r.input(db, req)
	if err != nil {
		return Projection{}, err
	}
	opts.Budget = req.Budget
	out, err := retention.Retain(res, opts)
	if err != nil {
		return Projection{}, err
	}
	if row != nil {
		sessions.UseCountedTotal(&out, *row)
	}
	return projection(out, res, req.Budget, db.AttachmentDir()), nil
}

// input resolves a request to content and options (route, encoding, tool,
// the spill path the notice would name), and for an indexed result its row.
func (r *Retention) input(db *sessions.DB, req RetainRequest) (retention.Result, retention.Options, *sessions.ResultRow, error) {
	opts := retention.Options{Route: req.Route, Encoding: req.Encoding, ToolName: req.ToolName, ReadTools: r.store.ReadTools()}
	if req.ResultID > 0 {
		row, res, err := db.LoadResult(context.Background(), req.ResultID)
		if err != nil {
			return res, opts, nil, err
		}
		if opts.Route == "" {
			opts.Route = row.Route
		}
		if opts.ToolName == "" {
			opts.ToolName = row.ToolName
		}
		opts.SpillPath = filepath.Join(r.store.cfg.DataDir, "spills", fmt.Sprintf("result-%d.txt", row.ID))
		return res, opts, &row, nil
	}
	if strings.TrimSpace(req.JSON) == "" {
		return retention.Result{}, opts, nil, coded("retain-no-input")
	}
	if len(req.JSON) > maxPastedJSON {
		return retention.Result{}, opts, nil, coded("json-too-long", "bytes", len(req.JSON), "max", maxPastedJSON)
	}
	res, err := retention.ParseResult([]byte(req.JSON))
	if err != nil {
		return res, opts, nil, err
	}
	storePastedImages(&res, db.AttachmentDir())
	sum := sha256.Sum256([]byte(req.JSON))
	opts.SpillPath = filepath.Join(r.store.cfg.DataDir, "spills", "pasted-"+hex.EncodeToString(sum[:8])+".txt")
	return res, opts, nil, nil
}

// storePastedImages writes pasted image data into the attachment store so
// the images have readable paths, as the indexer does for recorded ones. An
// image whose bytes cannot be read stays as pasted; the decision then keeps
// the result whole and says why.
func storePastedImages(res *retention.Result, dir string) {
	for i := range res.Content {
		b := &res.Content[i]
		if b.Type != retention.TypeImage || b.Data == "" || b.Path != "" {
			continue
		}
		data, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(b.Data), ""))
		if err != nil {
			continue
		}
		_, path, err := sessions.StoreAttachment(dir, data, sessions.StoreOptions{MediaType: b.MimeType})
		if err != nil {
			continue
		}
		b.Path, b.Data = path, ""
	}
}

// projection maps an outcome to what the middle pane shows: kept blocks
// with where each was cut, the [...] marker at the omitted interval, then
// the notice.
func projection(out retention.Outcome, orig retention.Result, budget *int64, attachDir string) Projection {
	p := Projection{
		Status: out.Status, Notice: out.Notice, OmittedBytes: out.OmittedBytes, OmittedImages: out.OmittedImages,
		Tokens:         TokenFigures{Total: out.Tokens.Total, Text: out.Tokens.Text, Images: out.Tokens.Images, Notice: out.Tokens.Notice},
		OriginalTokens: out.OriginalTokens, OriginalTokensExact: out.OriginalTokensExact, Diagnostics: out.Diagnostics, Route: out.Route, Encoding: out.Encoding,
		Budget: budget,
	}
	if p.Diagnostics == nil {
		p.Diagnostics = []string{}
	}
	views := blockViews(out.Content, attachDir)
	for i := range views {
		if i < len(out.Spans) {
			sp := out.Spans[i]
			if sp.Block < 0 {
				if out.Content[i].Type == retention.TypeText && out.Content[i].Text == out.Notice {
					views[i].Kind = "notice"
				} else {
					views[i].Kind = "omitted"
				}
				continue
			}
			views[i].Index = sp.Block
			if ob := orig.Content[sp.Block]; ob.Type == retention.TypeText {
				switch {
				case sp.Start > 0:
					views[i].Cut = "tail"
				case sp.End < int64(len(ob.Text)):
					views[i].Cut = "head"
				}
			}
		}
	}
	p.Blocks = views
	if out.CompleteFile != "" {
		text, n, _ := shownText(out.CompleteFile)
		p.CompleteFile, p.CompleteFileBytes = text, n
	}
	return p
}

// Sweep runs the decision at many budgets: for one result (per budget, its
// own figures), or for a session or the whole index through the same
// aggregation the CLI's sweep prints.
func (r *Retention) Sweep(req SweepRequest) ([]SweepRow, error) {
	if len(req.Budgets) == 0 {
		return nil, coded("budgets-none")
	}
	if len(req.Budgets) > 1000 {
		return nil, coded("budgets-too-many", "n", len(req.Budgets), "max", 1000)
	}
	for _, b := range req.Budgets {
		if _, err := retention.ValidateBudget(float64(b)); err != nil {
			return nil, err
		}
	}
	db, err := r.store.DB()
	if err != nil {
		return nil, err
	}
	if req.ResultID > 0 {
		res, opts, row, err := r.input(db, RetainRequest{ResultID: req.ResultID, Route: req.Route})
		if err != nil {
			return nil, err
		}
		outs, err := retention.Sweep(res, req.Budgets, opts)
		if err != nil {
			return nil, err
		}
		rows := make([]SweepRow, len(outs))
		for i := range outs {
			o := &outs[i]
			lower := sessions.UseCountedTotal(o, *row)
			rows[i] = SweepRow{Budget: req.Budgets[i], Results: 1, InlineTokens: int64(o.Tokens.Total),
				OmittedBytes: o.OmittedBytes, OmittedImages: o.OmittedImages,
				InlineTokensLowerBound: lower}
			switch o.Status {
			case retention.StatusReplaced:
				rows[i].Replaced = 1
			case retention.StatusNoticeOnly:
				rows[i].Replaced, rows[i].NoticeOnly = 1, 1
			case retention.StatusPreserved:
				rows[i].Preserved = 1
			}
		}
		return rows, nil
	}
	got, err := db.Sweep(context.Background(), req.Budgets, sessions.SweepOptions{
		Filter: sessions.ResultFilter{SessionRowID: req.SessionID}, Route: req.Route, ReadTools: r.store.ReadTools(),
	})
	if err != nil {
		return nil, err
	}
	rows := make([]SweepRow, len(got))
	for i, g := range got {
		rows[i] = SweepRow{Budget: g.Budget, Results: g.Results, Replaced: g.Replaced, NoticeOnly: g.NoticeOnly,
			Preserved: g.Preserved, InlineTokens: g.InlineTokens, OmittedBytes: g.OmittedBytes, OmittedImages: g.OmittedImages,
			InlineTokensLowerBound: g.InlineTokensLowerBound}
	}
	return rows, nil
}
