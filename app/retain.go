package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strconv"
	"strings"

	"spillscope/retention"
	"spillscope/retention/imagecost"
	"spillscope/retention/links"
	"spillscope/sessions"
)

// maxPastedJSON bounds a pasted tool result; larger ones belong in a file
// the indexer reads.
const maxPastedJSON = 64 << 20

// reviewSpillRoot is the spill root a re-run's notice names when the record
// names none (sessions owns it).
const reviewSpillRoot = sessions.ReviewSpillRoot

// Retain runs a policy on one result at one budget: an indexed result read
// back from its source, or pasted tool-result JSON. The Analysis is kept, so
// the next budget or policy only re-decides.
func (r *Retention) Retain(req RetainRequest) (Projection, error) {
	ct := startCall("Retain")
	defer ct.done()
	db, err := r.store.DB()
	if err != nil {
		return Projection{}, err
	}
	c, out, err := r.decide(db, req, ct)
	if err != nil {
		return Projection{}, err
	}
	var pages *loadedResult
	if req.Paged {
		pages = c.src
	}
	p := projection(out, c.res, db.AttachmentDir(), req.Reveal, pages)
	ct.mark("project")
	if y := r.yardstick(c); y != nil {
		t := tokenFigures(retention.Price(out, y).Yardstick)
		p.Yardstick = &t
	}
	ct.mark("yardstick")
	r.startWarm(c, req)
	return p, nil
}

// decide runs the request's policy on its cached Analysis.
func (r *Retention) decide(db *sessions.DB, req RetainRequest, ct *callTrace) (*cached, retention.Outcome, error) {
	pol, s, err := settingsFor(req.Policy, req.Params, req.Budget)
	if err != nil {
		return nil, retention.Outcome{}, err
	}
	c, err := r.analysis(db, req)
	if err != nil {
		return nil, retention.Outcome{}, err
	}
	ct.mark("analysis")
	out := c.analysis().Run(pol, s)
	if c.row != nil {
		sessions.UseCountedTotal(&out, *c.row)
	}
	ct.mark("run")
	return c, out, nil
}

// settingsFor resolves a policy ("" is the default) with its parameters and
// a budget in the policy's own unit (nil switches it off).
func settingsFor(policy string, params map[string]string, budget *int64) (retention.Policy, retention.Settings, error) {
	// The policy checks the budget, so its error names the harness's own
	// setting (maxInlineTokens, maxInlineBytes, thresholdChars).
	opts := retention.Options{Policy: policy, Params: params}
	return opts.Settings(budget)
}

// analysis returns the cached Analysis for a request, building it on a miss.
func (r *Retention) analysis(db *sessions.DB, req RetainRequest) (*cached, error) {
	// The read-tool names come from the settings: a change of them is a
	// different decision, so they are part of the cache key.
	readTools := r.store.ReadTools()
	if _, err := imagecost.Lookup(orDefault(req.Route, retention.DefaultRoute)); req.Route != "" && err != nil {
		return nil, err
	}
	if req.ResultID > 0 {
		row, err := db.Result(context.Background(), req.ResultID)
		if err != nil {
			return nil, err
		}
		route := sessions.ReviewRoute(row, req.Route)
		tool := orDefault(req.ToolName, row.ToolName)
		est, err := retention.EstimatorFor(req.Estimator, route)
		if err != nil {
			return nil, err
		}
		key := analysisKey{resultID: row.ID, source: row.Path, offset: row.Offset, length: row.Length,
			estimator: est.Name(), route: route, tool: tool, readTools: strings.Join(readTools, "\x00"), locator: sessions.ReviewLocator(row)}
		if c, ok := r.cache.get(key); ok {
			return c, nil
		}
		var src *loadedResult
		if prev, ok := r.cache.sameSource(key); ok {
			src = prev.src
		} else if src, err = r.store.results.load(context.Background(), db, req.ResultID); err != nil {
			return nil, err
		}
		row, res := src.row, src.res
		a, err := retention.Analyse(res, est, route, retention.AnalyseOptions{
			Call: retention.Call{ToolName: tool, ReadTools: readTools, Spill: retention.SpillRef{Locator: key.locator}}})
		if err != nil {
			return nil, err
		}
		c := newCached(key, a, res)
		c.row, c.src = &row, src
		r.cache.put(c)
		return c, nil
	}
	if strings.TrimSpace(req.JSON) == "" {
		return nil, coded("retain-no-input")
	}
	if len(req.JSON) > maxPastedJSON {
		return nil, coded("json-too-long", "bytes", len(req.JSON), "max", maxPastedJSON)
	}
	sum := sha256.Sum256([]byte(req.JSON))
	id := hex.EncodeToString(sum[:])
	route := orDefault(req.Route, retention.DefaultRoute)
	est, err := retention.EstimatorFor(req.Estimator, route)
	if err != nil {
		return nil, err
	}
	tool := req.ToolName
	key := analysisKey{source: "pasted:" + id, estimator: est.Name(), route: route, tool: tool, readTools: strings.Join(readTools, "\x00"),
		locator: retention.DshSpillLocator(reviewSpillRoot, "pasted", id[:12], orDefault(tool, "tool"))}
	if c, ok := r.cache.get(key); ok {
		return c, nil
	}
	var res retention.Result
	if prev, ok := r.cache.sameSource(key); ok {
		res = prev.res
	} else {
		// A copy of the pasted text of our own: its strings are decoded in it.
		if res, err = retention.ParseResultInPlace([]byte(req.JSON)); err != nil {
			return nil, err
		}
		storePastedImages(&res, db.AttachmentDir())
	}
	a, err := retention.Analyse(res, est, route, retention.AnalyseOptions{
		Call: retention.Call{ToolName: tool, ReadTools: readTools, Spill: retention.SpillRef{Locator: key.locator}}})
	if err != nil {
		return nil, err
	}
	c := newCached(key, a, res)
	r.cache.put(c)
	return c, nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// storePastedImages writes pasted image data into the attachment store so
// the images have readable paths, as the indexer does for recorded ones. An
// image whose bytes cannot be read stays as pasted; the decision then keeps
// the result whole and says why. A pasted path is a tool result's choice,
// so it is kept only inside the attachment store (the file rule): nothing
// else it names is ever opened.
func storePastedImages(res *retention.Result, dir string) {
	rule := sessions.AttachmentStoreRule(filepath.Dir(dir))
	for i := range res.Content {
		b := &res.Content[i]
		if b.Type == retention.TypeImage && b.Path != "" && rule.Check(b.Path).State != sessions.FileExists {
			b.Path = ""
		}
		if b.Type != retention.TypeImage || b.Data == "" || b.Path != "" {
			continue
		}
		data, err := imagecost.DecodeBase64(b.Data)
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

// projection maps an outcome to what the middle pane shows: one view per
// span, so a block dsh merged (head text, the [...] gap, tail text and the
// notice) still shows which part is which. Each kept piece of text is masked
// as it reads in its source block, so a credential the cut went through is
// masked in the head and in the tail alike; figures are the outcome's,
// counted on the real text.
//
// With pages (the result as read back), kept text and the complete file
// are paged: a view names the span it shows and carries the page holding
// its start, masked with what was found once over the whole text.
func projection(out retention.Outcome, orig retention.Result, attachDir string, reveal bool, pages *loadedResult) Projection {
	p := Projection{
		Status: out.Status, Policy: out.Policy, Notice: out.Notice, OmittedBytes: out.OmittedBytes, OmittedImages: out.OmittedImages,
		Tokens:         TokenFigures{Estimator: out.Tokens.Estimator, Total: out.Tokens.Total, Text: out.Tokens.Text, Images: out.Tokens.Images, Notice: out.Tokens.Notice},
		OriginalTokens: out.OriginalTokens, OriginalTokensExact: out.OriginalTokensExact, Diagnostics: out.Diagnostics,
		Route: out.Route, Estimator: out.Estimator, Budget: out.Budget, BudgetUnit: out.BudgetUnit,
		Recovery: out.Recovery.Kind, Locator: out.Recovery.Locator, Revealed: reveal,
	}
	if p.Diagnostics == nil {
		p.Diagnostics = []string{}
	}
	// Spans fill the text of the blocks they cut; without spans a block is
	// the original's at its index, paged as the recorded pane pages it.
	tp := textPages{skip: len(out.Spans) > 0}
	if pages != nil {
		tp.pages = func(i int) *links.Masker {
			if i < len(orig.Content) && orig.Content[i].Text == out.Content[i].Text {
				return pages.masker(i)
			}
			return nil
		}
	}
	views, masked := blockViews(out.Content, attachDir, reveal, tp)
	if len(out.Spans) == 0 {
		p.Blocks = views
	}
	// A block dsh merged is one view per span: its whole-block masks are
	// taken out of the count once, each span's own are added back.
	uncounted := map[int]bool{}
	for _, sp := range out.Spans {
		v := views[sp.Out]
		c := out.Content[sp.Out]
		if c.Type == retention.TypeText {
			if !uncounted[sp.Out] {
				masked -= len(v.Masks)
				uncounted[sp.Out] = true
			}
			masked += spanView(&v, c.Text[sp.OutStart:sp.OutEnd], sp, orig, reveal, pages)
		}
		switch sp.Kind {
		case retention.SpanMarker:
			v.Kind = "omitted"
		case retention.SpanNotice:
			v.Kind = "notice"
		case retention.SpanWrapper, retention.SpanHeader:
			v.Kind = sp.Kind
		default:
			// A kept span with no source block is a range of the complete
			// file (Claude Code's preview of its .json file).
			if sp.Block < 0 || sp.Block >= len(orig.Content) {
				break
			}
			v.Index = sp.Block
			if ob := orig.Content[sp.Block]; ob.Type == retention.TypeText {
				v.SourceStart = sp.Start
				switch {
				case sp.Start > 0:
					v.Cut = "tail"
				case sp.End < int64(len(ob.Text)):
					v.Cut = "head"
				}
			}
		}
		p.Blocks = append(p.Blocks, v)
	}
	if cf := out.CompleteFile; cf != "" {
		p.CompleteFileBytes = int64(len(cf))
		if pages != nil {
			m := pages.fileMasker(cf)
			pg := textPage(cf, m, 0, reveal)
			p.CompleteFilePage, p.CompleteFileKey, p.CompleteFileShownBytes = &pg, fileKey(cf), int64(len(cf))
			if !reveal {
				p.CompleteFileMasked = m.Count(0, len(cf))
				masked += p.CompleteFileMasked
			}
		} else {
			st := show(cf, reveal)
			p.CompleteFile, p.CompleteFileShownBytes, p.CompleteFileMasks = st.text, st.shownBytes, st.masks
			masked += len(st.masks)
		}
	}
	p.Masked = masked
	return p
}

// spanView fills v with one span's text and returns the values it masks. A
// kept piece is text[start:end] of its source block, masked as it reads
// there (a credential the cut went through is masked on both sides) and
// paged when pages is set; the core reads invalid UTF-8 as U+FFFD, so a
// piece not found in its source as it stands is masked on its own.
func spanView(v *BlockView, piece string, sp retention.Span, orig retention.Result, reveal bool, pages *loadedResult) int {
	v.TextBytes = int64(len(piece))
	var st shownText
	inSource := false
	if sp.Kind == retention.SpanKept && sp.Block >= 0 && sp.Block < len(orig.Content) {
		src := orig.Content[sp.Block].Text
		if sp.Start >= 0 && sp.End <= int64(len(src)) && src[sp.Start:sp.End] == piece {
			if pages != nil {
				return pagedView(v, src, pages.masker(sp.Block), sp.Block, sp.Start, sp.End, reveal)
			}
			st, inSource = showRange(src, int(sp.Start), int(sp.End), reveal), true
		}
	}
	if !inSource {
		st = show(piece, reveal)
	}
	v.Text, v.ShownBytes, v.Truncated, v.Masks = st.text, st.shownBytes, st.truncated, st.masks
	return len(v.Masks)
}

// Sweep runs the decision at many budgets: for one result (per budget, its
// own figures, from one Analysis), or for a session or the whole index
// through the same aggregation the CLI's sweep prints.
func (r *Retention) Sweep(req SweepRequest) ([]SweepRow, error) {
	if len(req.Budgets) == 0 {
		return nil, coded("budgets-none")
	}
	if len(req.Budgets) > 1000 {
		return nil, coded("budgets-too-many", "n", len(req.Budgets), "max", 1000)
	}
	settings := make([]retention.Settings, len(req.Budgets))
	var pol retention.Policy
	for i := range req.Budgets {
		var err error
		if pol, settings[i], err = settingsFor(req.Policy, nil, &req.Budgets[i]); err != nil {
			return nil, err
		}
	}
	db, err := r.store.DB()
	if err != nil {
		return nil, err
	}
	if req.ResultID > 0 {
		c, err := r.analysis(db, RetainRequest{ResultID: req.ResultID, Route: req.Route, Estimator: req.Estimator})
		if err != nil {
			return nil, err
		}
		rows := make([]SweepRow, len(req.Budgets))
		for i := range req.Budgets {
			o := c.analysis().Run(pol, settings[i])
			lower := sessions.UseCountedTotal(&o, *c.row)
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
		Filter: sessions.ResultFilter{SessionRowID: req.SessionID}, Route: req.Route,
		Policy: req.Policy, Estimator: req.Estimator, ReadTools: r.store.ReadTools(),
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

// Policies declares every retention policy, for the window's selector.
func (r *Retention) Policies() ([]PolicyInfo, error) {
	var out []PolicyInfo
	for _, p := range retention.Policies() {
		info := PolicyInfo{Name: p.Name, Harness: p.Harness, Version: p.Version, Summary: p.Summary,
			Estimator: p.Estimator, Budget: p.Budget, Unit: p.Unit, Recoverable: p.Recoverable,
			Source: p.Source, RecoverNote: p.RecoverNote, UnitsPerToken: retention.UnitsPerToken(p.Unit)}
		info.DefaultBudget, _ = shippedBudget(p)
		for _, d := range p.Params {
			info.Params = append(info.Params, ParamInfo{Name: d.Name, Kind: d.Kind, Unit: d.Unit, Default: d.Default,
				Min: d.Min, Max: d.Max, Choices: d.Choices, Off: d.Off, Doc: d.Doc})
		}
		out = append(out, info)
	}
	return out, nil
}

// shippedBudget is p's budget parameter at the harness's shipped value: the
// budget the window moves to when the user picks p. False when p has no
// budget parameter or its default is not a number.
func shippedBudget(p retention.PolicyInfo) (int64, bool) {
	for _, d := range p.Params {
		if d.Name == p.Budget {
			n, err := strconv.ParseInt(d.Default, 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// Estimators lists the registered text estimators.
func (r *Retention) Estimators() ([]string, error) { return retention.EstimatorNames(), nil }
