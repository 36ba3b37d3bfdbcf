package sessions

import (
	"path/filepath"
	"strings"

	"spillscope/retention"
)

// RetainedSuffix names the records `spillscope retain --spill-dir` writes.
const RetainedSuffix = ".retained.json"

// ReadRetained reads one record of this project's spill layout
// (DIR/<id>.retained.json). It becomes a session of one tool result: the
// original input, so it can be re-run at other budgets. path is the record's
// own path, used to name the session and resolve relative image paths.
func ReadRetained(doc []byte, path string, p *Parsed) {
	s := &p.Session
	s.ID = strings.TrimSuffix(filepath.Base(path), RetainedSuffix)
	s.Project = filepath.Dir(path)
	var input, outcome []byte
	var inputAt int
	var tool, created, route string
	_, err := wholeObject(doc, func(k []byte, vs, ve int) bool {
		v := doc[vs:ve]
		switch string(k) {
		case "toolName":
			tool, _ = str(v)
		case "createdAt":
			created, _ = str(v)
		case "route":
			route, _ = str(v)
		case "input":
			input, inputAt = v, vs
		case "outcome":
			outcome = v
		}
		return true
	})
	if err != nil {
		p.diag(1, "retained record is not one JSON object")
		return
	}
	s.Route = route
	p.seeTime(created)
	if input == nil {
		p.diag(1, `retained record has no "input"`)
		return
	}
	res, perr := retention.ParseResult(input)
	if perr != nil {
		p.diag(1, "retained input: "+perr.Error())
		return
	}
	dir := filepath.Dir(path)
	for i := range res.Content {
		b := &res.Content[i]
		if b.Type == retention.TypeImage && b.Path != "" && !filepath.IsAbs(b.Path) {
			b.Path = filepath.Join(dir, b.Path)
		}
	}
	r := ToolResult{CallID: s.ID, ToolName: tool, Time: created, IsError: res.IsError,
		Offset: int64(inputAt), Length: int64(len(input)), Line: 1 + int64(strings.Count(string(doc[:inputAt]), "\n")),
		Blocks: res.Content}
	if outcome != nil {
		if sp, ok := field(outcome, "spillPath"); ok {
			if v, _ := str(sp); v != "" {
				r.Notice = &SpillNotice{Kind: NoticeSpillscope, Path: v}
			}
		}
		if r.Notice == nil {
			if nv, ok := field(outcome, "notice"); ok {
				if v, _ := str(nv); v != "" {
					if n, ok := RecogniseSpill(v); ok {
						r.Notice = &n
					}
				}
			}
		}
	}
	notice := r.Notice
	p.addResult(r)
	if notice != nil && p.Results[len(p.Results)-1].Notice == nil {
		p.Results[len(p.Results)-1].Notice = notice
	}
}
