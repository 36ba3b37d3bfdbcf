package sessions

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"spillscope/retention"
)

// HarnessSpillscope is this project's own retained records in the index.
const HarnessSpillscope = "spillscope"

// RetainedSuffix names the records `spillscope retain --spill-dir` writes.
const RetainedSuffix = ".retained.json"

func init() { Register(retainedRecords{}) }

// retainedRecords reads the records `spillscope retain --spill-dir` writes:
// DIR/<id>.retained.json beside DIR/<id>.txt (the complete result) and
// DIR/attachments/<sha256>.<ext>. Each record is a session of one result.
type retainedRecords struct{}

func (retainedRecords) Name() string  { return HarnessSpillscope }
func (retainedRecords) Label() string { return "Spillscope records" }

// DefaultRoots: none; records live where --spill-dir put them.
func (retainedRecords) DefaultRoots(Env) []string { return nil }

func (retainedRecords) Detect(p *Probe) Match {
	if strings.HasSuffix(p.Base(), RetainedSuffix) {
		return MatchPath
	}
	return MatchNone
}

// NoticeSpillscope is the notice the retention core writes (the seed
// policy's, which dsh writes too).
const NoticeSpillscope = "spillscope"

// Notices: the retention core's own notice, recognised by the core's own
// recogniser wherever it sits in the text.
func (retainedRecords) Notices() []NoticeRule {
	return []NoticeRule{{Kind: NoticeSpillscope, Marker: "Full formatted result stored at:", Match: func(text string) (string, bool) {
		m, ok := retention.RecogniseNotice(text)
		return m.Path, ok && m.Path != ""
	}}}
}

// attachmentShape is the attachment store's file name: a sha256 and an
// image extension (StoreAttachment's only output).
const attachmentShape = `[0-9a-f]{64}\.[a-z]{2,4}$`

// recordImageShape is an image file in a record's own attachments folder.
const recordImageShape = `[A-Za-z0-9][A-Za-z0-9_.-]*\.(?:png|jpe?g|gif|webp|bmp|tiff?|bin)$`

// Locations: the record's own complete-result file and its folder's
// attachments; and Spillscope's own attachment store.
func (retainedRecords) Locations(s SessionRef) []Location {
	dir := filepath.Dir(s.Path)
	id := regexp.QuoteMeta(strings.TrimSuffix(filepath.Base(s.Path), RetainedSuffix))
	var out []Location
	if l, ok := SessionLocation(s.Root, dir, id+`\.txt$`); ok {
		out = append(out, l)
	}
	if l, ok := SessionLocation(s.Root, dir, `attachments/`+recordImageShape); ok {
		out = append(out, l)
	}
	if s.DataDir != "" {
		out = append(out, NewLocation(filepath.Join(s.DataDir, "attachments"), "^"+attachmentShape, false))
	}
	return out
}

func (retainedRecords) SpillCandidates(named string, s SessionRef) []string {
	return []string{namedPath(named, s.Path), filepath.Join(filepath.Dir(s.Path), filepath.Base(filepath.FromSlash(named)))}
}

func (retainedRecords) Read(ctx context.Context, src Source, p *Parsed) (ReadState, error) {
	if doc, ok := readDoc(src, p); ok {
		ReadRetained(doc, src.Path, p)
	}
	return ReadState{Mode: ReadAll}, nil
}

// ReadResult: the locator's span is the record's "input" value.
func (retainedRecords) ReadResult(path string, loc Locator, callID string) (retention.Result, error) {
	buf, err := readSpan(path, loc)
	if err != nil {
		return retention.Result{}, err
	}
	// The span's buffer is ours: its texts are decoded in place.
	r, err := retention.ParseResultInPlace(buf)
	if err != nil {
		return retention.Result{}, fmt.Errorf("%w: %s at %d: %v", ErrResultGone, path, loc.Offset, err)
	}
	resolveImagePaths(r.Content, filepath.Dir(path))
	return r, nil
}

// resolveImagePaths makes a record's relative image paths absolute from
// its folder. They are still only paths: the file rule decides whether
// they are ever opened.
func resolveImagePaths(blocks []retention.Block, dir string) {
	for i := range blocks {
		b := &blocks[i]
		if b.Type == retention.TypeImage && b.Path != "" && !filepath.IsAbs(b.Path) {
			b.Path = filepath.Join(dir, b.Path)
		}
	}
}

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
		p.badShape(1, "$", "object")
		return
	}
	s.Route = route
	p.SeeTime(created)
	if input == nil {
		p.Diag(1, DiagMissingField, map[string]string{"field": "input"})
		return
	}
	res, perr := retention.ParseResult(input)
	if perr != nil {
		p.Diag(1, DiagResultProblem, map[string]string{"callId": s.ID, "detail": perr.Error()})
		return
	}
	resolveImagePaths(res.Content, filepath.Dir(path))
	r := ToolResult{CallID: s.ID, ToolName: tool, Time: created, IsError: res.IsError,
		Locator: Locator{Offset: int64(inputAt), Length: int64(len(input))}, Line: 1 + int64(strings.Count(string(doc[:inputAt]), "\n")),
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
	p.AddResult(r)
	if notice != nil && p.Results[len(p.Results)-1].Notice == nil {
		p.Results[len(p.Results)-1].Notice = notice
	}
}
