package sessions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"spillscope/retention"
	"spillscope/retention/imagecost"
	"spillscope/sessions/dsh"
)

// HarnessDsh is dsh's (the DeepSeek Harness's) name in the index.
const HarnessDsh = "dsh"

func init() { Register(dshHarness{}) }

// dshHarness reads dsh's session logs through the sessions/dsh reader:
// $DSH_HOME/sessions/--<projectKey>--/<encoded id>/session[.vN].jsonl[.zstd],
// formats 0 to 4, raw JSONL or independent zstd frames (FORMATS.md section
// 5). A pass resumes at the frame and line the last one stopped at; a torn
// tail is read again by the next pass once it is complete.
//
// How the index holds dsh's facts:
//   - one session per log, keyed by the header's id; a subagent (header
//     origin "subagent") is nested under its parent as Claude Code's are:
//     its session id is the parent's and its agent id its own;
//   - one result per call id (the first tool/result; a prune's replacing
//     tool/result is what the model saw last, not a second result), and
//     one per run_code sub-call's log copy (tool/code-dispatch,
//     tool/ptc-dispatch: the copy dsh's log arm bounds, and may spill,
//     under the sub-call's id); a fork's inherited seed is its parent's and
//     is not counted again;
//   - what replaced a result (a prune, a compaction) in the replacement
//     columns, with the locator of what the model saw last;
//   - usage per (turn, step) of each model call, failed attempts and
//     compaction summaries apart;
//   - each compaction/summary and compaction/prune as a compaction;
//   - images are attachment blocks: their bytes are read from dsh's
//     attachment store through the file rule into Spillscope's own.
type dshHarness struct{}

func (dshHarness) Name() string  { return HarnessDsh }
func (dshHarness) Label() string { return "DeepSeek Harness (dsh)" }

// DshHome is dsh's home folder: $DSH_HOME (blank counts as unset; a
// relative value, which only dsh's own working folder could resolve, too),
// else ~/.dsh.
func DshHome(env Env) string {
	if h := dsh.DefaultHome(env.Get, env.Home()); filepath.IsAbs(h) {
		return h
	}
	return filepath.Join(env.Home(), ".dsh")
}

// DshSessionFolder is the spill folder dsh gives a session:
// session-<first 12 hex of sha256(session id)>.
func DshSessionFolder(sessionID string) string { return dsh.SpillFolder(sessionID) }

// DefaultRoots: $DSH_HOME/sessions (else ~/.dsh/sessions). Older TUI
// builds kept ./.sessions in the folder they were launched from; add those
// roots by hand.
func (dshHarness) DefaultRoots(env Env) []string {
	return []string{filepath.Join(DshHome(env), dsh.SessionsFolder)}
}

// dshChildName is the name dsh's snapshot-test layout gives a child log
// beside its parent's (session.1.jsonl; on a real disk each child has its
// own folder).
var dshChildName = regexp.MustCompile(`^session\.[1-9][0-9]{0,5}\.jsonl$`)

// dshLogName says whether a file's name and place are dsh's: a canonical
// generation name (session.jsonl, session.vN.jsonl, each optionally
// .zstd), a snapshot child's, or the flat layout before 2026-07-24
// (<12-hex cwd hash>/<id>.jsonl). Replay scripts, expected logs and
// temporary or superseded files are not.
func dshLogName(path string) bool {
	base := filepath.Base(path)
	if _, ok := dsh.ParseLogName(base); ok || dshChildName.MatchString(base) {
		return true
	}
	stem, ok := strings.CutSuffix(strings.TrimSuffix(base, ".zstd"), ".jsonl")
	if !ok || stem == "" || strings.Contains(stem, ".") {
		return false
	}
	dir := filepath.Base(filepath.Dir(path))
	return len(dir) == 12 && strings.Trim(dir, "0123456789abcdef") == ""
}

// Detect: one of dsh's log names whose first line (decompressed for a
// zstd log) is a dsh session header, and that is the live generation of
// its folder: an older generation beside a newer one is the same session
// before dsh migrated it, and is not read as another.
func (dshHarness) Detect(p *Probe) Match {
	if !dshLogName(p.Path) {
		return MatchNone
	}
	if strings.HasSuffix(p.Base(), ".zstd") {
		if ok, err := dsh.IsSessionFile(p.Path); !ok || err != nil {
			return MatchNone
		}
	} else if lines := p.Lines(); len(lines) == 0 || !dsh.LooksLikeHeader(lines[0]) {
		return MatchNone
	}
	if old, err := dsh.IsSuperseded(p.Path); err != nil || old {
		return MatchNone
	}
	return MatchPath
}

// Superseded: a log indexed before dsh wrote a newer generation beside it
// leaves the index although the file itself did not change.
func (dshHarness) Superseded(path string) bool {
	old, err := dsh.IsSuperseded(path)
	return err == nil && old
}

// dsh's notice kinds: the eras of its spill policy (retention's policy
// names). The dsh reader recognises them where dsh writes them (closing the
// last text block, with dsh's own recogniser) and tells the era from the
// content, so these rules carry no text recogniser of their own: the same
// text in another harness's result stays the retention core's convention.
var dshNotices = []NoticeRule{{Kind: dsh.PolicyBytes}, {Kind: dsh.PolicyTokens}}

func (dshHarness) Notices() []NoticeRule { return dshNotices }

// dshHomeFor is the dsh home a log belongs to: the folder above the
// "sessions" folder its layout puts it in (project or flat layout), else
// the home the environment names. A root copied from another machine (the
// sample's) keeps its attachment store beside its sessions.
func dshHomeFor(path string, env Env) string {
	d := filepath.Dir(path)
	for i := 0; i < 2; i++ {
		d = filepath.Dir(d)
		if filepath.Base(d) == dsh.SessionsFolder {
			return filepath.Dir(d)
		}
	}
	return DshHome(env)
}

// dshSpillShape is the shape of one session's spill files under a spill
// root's parent: dsh-spill-XXXXXX/session-<sha12>/<12 hex>-<encoded tool>.txt.
func dshSpillShape(sessionID string) string {
	return dsh.SpillRootPrefix + `[A-Za-z0-9]+/` + regexp.QuoteMeta(dsh.SpillFolder(sessionID)) + `/[0-9a-f]{12}-[A-Za-z0-9._~-]+\.txt$`
}

// Locations: the session's own spill folder in every dsh-spill-* root of
// the temp folders (one root per dsh process, so one session's files
// spread over several), and in dsh-spill-* roots kept under a configured
// root (a copied or generated corpus); and the attachment store of the
// session's dsh home and of $DSH_HOME: objects/<2 hex>/<64 hex> and the
// request-sized copies. The spill folder is the session's own by its
// sha12, so another session's files are never opened for it.
func (dshHarness) Locations(s SessionRef) []Location {
	shape := dshSpillShape(dshOwnID(s))
	out := TempLocations(s.Env, "^"+shape)
	roots := s.Roots
	if s.Root != "" {
		roots = append([]string{s.Root}, roots...)
	}
	seen := map[string]bool{}
	for _, r := range roots {
		if !seen[r] {
			seen[r] = true
			out = append(out, RootLocations([]string{r}, shape)...)
		}
	}
	homes := []string{DshHome(s.Env)}
	if s.Path != "" {
		if h := dshHomeFor(s.Path, s.Env); h != homes[0] {
			homes = append(homes, h)
		}
	}
	for _, h := range homes {
		att := filepath.Join(h, "attachments", "v1")
		out = append(out, NewLocation(att, `^objects/[0-9a-f]{2}/[0-9a-f]{64}$`, false),
			NewLocation(att, `^request-images/[^/]+$`, false))
	}
	return out
}

// dshOwnIDs caches each log's own session id (its header's) by path and
// modification time: a subagent's index row carries its parent's id, while
// its spill folder is named after its own.
var dshOwnIDs sync.Map

type dshOwnID0 struct {
	mtime int64
	id    string
}

// dshOwnID is the id a session's own files are named after: the header's
// id of its log, else the session id the index gives it.
func dshOwnID(s SessionRef) string {
	if s.Path == "" {
		return s.SessionID
	}
	st, err := os.Stat(s.Path)
	if err != nil {
		return s.SessionID
	}
	if v, ok := dshOwnIDs.Load(s.Path); ok && v.(dshOwnID0).mtime == st.ModTime().UnixNano() {
		return v.(dshOwnID0).id
	}
	h, err := dsh.ReadHeader(s.Path)
	if err != nil {
		return s.SessionID
	}
	dshOwnIDs.Store(s.Path, dshOwnID0{mtime: st.ModTime().UnixNano(), id: h.ID})
	return h.ID
}

// SpillCandidates: the named path only. dsh's spill files live in
// per-process temp roots, not beside the session, so a copy of a session
// folder has no place of its own to look.
func (dshHarness) SpillCandidates(named string, s SessionRef) []string {
	return []string{namedPath(named, s.Path)}
}

// OtherSession: a notice whose path points into another session's
// session-<sha12> folder (a fork inherits its parent's notices; a tool
// result can forge one) is marked as such and never followed.
func (dshHarness) OtherSession(named string, s SessionRef) bool {
	return dsh.ClassifySpillPath(named, dshOwnID(s), "").Owner == dsh.SpillOtherSession
}

// Read brings one log up to date from its cursor (the dsh reader's, as
// JSON), or reads it whole when there is none or the log was rewritten.
func (dshHarness) Read(ctx context.Context, src Source, p *Parsed) (ReadState, error) {
	var from *dsh.Cursor
	if src.Cursor != "" {
		var c dsh.Cursor
		if json.Unmarshal([]byte(src.Cursor), &c) == nil {
			from = &c
		}
	}
	opts := dsh.Options{Home: dshHomeFor(src.Path, src.Env)}
	rd := &dshPass{ctx: ctx, p: p}
	pass, err := dsh.Read(src.Path, from, opts, rd.handler())
	if from != nil && errors.Is(err, dsh.ErrRewritten) {
		*p = Parsed{OnResult: p.OnResult}
		from = nil
		pass, err = dsh.Read(src.Path, nil, opts, rd.handler())
	}
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return ReadState{}, cerr
		}
		*p = Parsed{OnResult: p.OnResult}
		p.NotSession = true
		p.Diag(0, DiagUnreadable, map[string]string{"error": errText(err)})
		return ReadState{Mode: ReadAll}, nil
	}
	if pass.Pending != nil && !pass.Pending.Inherited {
		// A step the log ends inside: its chunk sample stands for it until
		// its message arrives, which replaces it under the same key.
		rd.usage(*pass.Pending)
	}
	rd.session(pass.Session)
	if src.Progress != nil {
		src.Progress(src.Size)
	}
	cur, err := json.Marshal(pass.Cursor)
	if err != nil {
		return ReadState{}, fmt.Errorf("sessions: dsh cursor of %s: %w", src.Path, err)
	}
	mode := ReadAll
	if from != nil {
		mode = ReadAppended
	}
	return ReadState{Cursor: string(cur), Mode: mode}, nil
}

// dshPass maps one pass of the dsh reader into Parsed.
type dshPass struct {
	ctx context.Context
	p   *Parsed
	n   int
}

func (d *dshPass) handler() dsh.Handler {
	return dsh.Handler{
		Result: d.result,
		Replace: func(r *dsh.Replacement) error {
			rep := Replacement{CallID: r.CallID, Kind: r.Kind, Seq: r.Seq, EventSeq: r.EventSeq, Line: r.Line, Ref: r.CompactionID}
			if r.Locator != nil {
				rep.LastKey = r.Locator.String()
			}
			d.p.AddReplacement(rep)
			return nil
		},
		Usage: func(u dsh.Usage) error {
			if !u.Inherited {
				d.usage(u)
			}
			return nil
		},
		Compaction: d.compaction,
		Diagnostic: d.diagnostic,
	}
}

// dshTime is a dsh time (ms since the epoch) as the index spells times.
func dshTime(ms int64) string {
	if ms <= 0 {
		return ""
	}
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
}

func (d *dshPass) result(r *dsh.Result) error {
	d.n++
	if d.n%256 == 0 {
		if err := d.ctx.Err(); err != nil {
			return err
		}
	}
	if r.Inherited {
		return nil
	}
	tr := ToolResult{CallID: r.CallID, ToolName: r.Tool, Time: dshTime(r.At), IsError: r.IsError,
		Locator: Locator{Offset: r.Locator.Offset, Index: r.Locator.Skip, Key: r.Locator.String()},
		Line:    r.Line, Blocks: r.Blocks}
	if n := r.Notice; n != nil {
		kind := n.Policy
		if kind == "" {
			// A notice with no preview: either era writes it; the image
			// clause, when there is one, says the token era.
			kind = dsh.PolicyBytes
			if n.Kind == retention.NoticeTokens {
				kind = dsh.PolicyTokens
			}
		}
		if n.Kind == retention.NoticeLegacy {
			kind = NoticeSpillscope
		}
		tr.Notice = &SpillNotice{Kind: kind, Path: n.Path}
	}
	d.p.SeeTime(tr.Time)
	d.p.AddResult(tr)
	return nil
}

// dshUsageKey keys a model call's usage: its (turn, step) for the call
// that ended the step (a message's usage replaces the chunk sample of its
// step under the same key), a failed attempt or a compaction summary by
// the event that recorded it.
func dshUsageKey(u dsh.Usage) string {
	ts := strconv.Itoa(u.Turn) + "." + strconv.Itoa(u.Step)
	switch u.Kind {
	case dsh.UsageAttempt:
		return ts + "#attempt@" + strconv.FormatInt(u.Seq, 10)
	case dsh.UsageCompaction:
		if u.CompactionID != "" {
			return "compaction:" + u.CompactionID
		}
		return "compaction@" + strconv.FormatInt(u.Seq, 10)
	}
	return ts
}

// usage records one model call: dsh's buckets are already disjoint (input
// uncached; reasoning part of output), as every per-call record is. Failed
// attempts and compaction summaries are calls of their own.
func (d *dshPass) usage(u dsh.Usage) {
	t := u.Tokens
	d.p.AddModelCall(ModelCall{Key: dshUsageKey(u), At: dshTime(u.At), Line: u.Line,
		Input: t.InputTokens, CacheRead: t.CacheReadTokens, CacheWrite: t.CacheWriteTokens,
		Output: t.OutputTokens, Reasoning: t.ReasoningTokens, Model: u.Model, ContextWindow: u.ContextWindow})
	d.p.SeeTime(dshTime(u.At))
}

// dsh's compaction kinds in the index.
const (
	// CompactionDsh: a compaction/summary, whose summary replaced a span
	// of the model's surface.
	CompactionDsh = "dsh-compaction"
	// CompactionDshPrune: a compaction/prune, which cut one result's text
	// to its head and tail.
	CompactionDshPrune = "dsh-prune"
)

// compaction records a summary or a prune of the session's own (a fork's
// inherited ones are its parent's); a compaction that ended without a
// summary changed nothing the model sees.
func (d *dshPass) compaction(c dsh.Compaction) error {
	if c.Inherited {
		return nil
	}
	cp := Compaction{At: dshTime(c.At), Line: c.Line}
	switch c.Kind {
	case dsh.CompactionSummary:
		cp.Kind, cp.Key = CompactionDsh, "compaction:"+c.ID
		if c.ID == "" {
			cp.Key = "seq:" + strconv.FormatInt(c.Seq, 10)
		}
	case dsh.CompactionPrune:
		cp.Kind, cp.Key = CompactionDshPrune, "prune:"+strconv.FormatInt(c.Seq, 10)
	default:
		return nil
	}
	d.p.AddCompaction(cp)
	return nil
}

// diagnostic maps a reader diagnostic to the index's codes: unknown event
// types as unknown line types (one per type, counted across passes), a
// torn tail as the transient DiagTornTail, anything else as a log problem
// with the reader's own code and English text.
func (d *dshPass) diagnostic(g dsh.Diagnostic) error {
	line := g.Line
	switch g.Code {
	case dsh.CodeUnknownEvent:
		d.p.Diag(line, DiagUnknownType, map[string]string{"type": g.Params["type"], "count": g.Params["count"], "firstLine": strconv.FormatInt(line, 10)})
	case dsh.CodeTornFrame, dsh.CodePartialLine:
		d.p.Diag(line, DiagTornTail, map[string]string{"offset": strconv.FormatInt(g.Offset, 10)})
	default:
		d.p.Diag(line, DiagLogProblem, map[string]string{"problem": g.Code, "detail": g.String()})
	}
	return nil
}

// session fills the source's session from what the log says of it: the
// header's id and cwd (never the folder's lossy project key), the latest
// route, and the parent a subagent is nested under.
func (d *dshPass) session(s dsh.Session) {
	p := d.p
	info := &p.Session
	info.ID = s.ID
	if s.Origin == "subagent" && s.ParentSession != "" {
		info.ID, info.AgentID = s.ParentSession, s.ID
		info.Kind = TranscriptSubagent
		if s.Descriptor != nil {
			info.AgentType, info.AgentDescription = s.Descriptor.Mode, s.Descriptor.Label
		}
	}
	if s.Title != "" {
		info.Title = s.Title
	}
	info.Cwd, info.Project = s.Cwd, s.Cwd
	info.Model = s.Model
	info.Route = imagecost.RouteFor(s.Provider, s.Model)
	p.SeeTime(dshTime(s.CreatedAt))
}

// ReadResult reads a result back from the event its locator key names (a
// prune's replacing tool/result too: the same call id).
func (dshHarness) ReadResult(path string, loc Locator, callID string) (retention.Result, error) {
	r, err := readDshResult(path, loc, SystemEnv())
	if err != nil {
		return retention.Result{}, err
	}
	if r.CallID != callID {
		return retention.Result{}, fmt.Errorf("%w: %s at %s holds call %q, not %q", ErrResultGone, path, loc.Key, r.CallID, callID)
	}
	return retention.Result{Content: r.Blocks, IsError: r.IsError}, nil
}

// readDshResult reads the dsh result event a locator's key names.
func readDshResult(path string, loc Locator, env Env) (*dsh.Result, error) {
	dl, err := dsh.ParseLocator(loc.Key)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrResultGone, err)
	}
	r, err := dsh.ReadResultAt(path, dl, dsh.Options{Home: dshHomeFor(path, env)})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrResultGone, err)
	}
	return r, nil
}

// dshAttachmentObject matches the path of an object in a dsh attachment
// store: .../attachments/v1/objects/<2 hex>/<64 hex>, the only paths a
// complete result file's image lines name.
var dshAttachmentObject = regexp.MustCompile(`[/\\]attachments[/\\]v1[/\\]objects[/\\]([0-9a-f]{2})[/\\]([0-9a-f]{64})$`)

func isDshObject(path string) bool {
	m := dshAttachmentObject.FindStringSubmatch(path)
	return m != nil && strings.HasPrefix(m[2], m[1])
}

// ReplayInputs: the era the notice shows (dsh-bytes or dsh-tokens; a
// notice with no preview, which either writes, tries both, the shown kind
// first), the recorded locator and hint (taken from the notice by the
// replay), dsh's meter, the session's route, and the tool as the log names
// it. A run_code sub-call's log copy was bounded by the log arm, which does
// not pass the read tool through. The original is the spill file's text:
// one text block for the byte era, which joins all text; for the token era
// the text runs and, for each image line, the image from dsh's attachment
// store, stored in Spillscope's, with dsh's path for its handle text and the
// name the record gives that attachment.
func (dshHarness) ReplayInputs(r RecordedResult) ([]retention.ReplayInput, error) {
	res, err := readDshResult(r.Row.Path, r.Row.Locator, r.Ref.Env)
	if err != nil {
		return nil, err
	}
	var eras []string
	switch r.Row.Spill.Kind {
	case dsh.PolicyBytes:
		eras = []string{dsh.PolicyBytes, dsh.PolicyTokens}
	case dsh.PolicyTokens:
		eras = []string{dsh.PolicyTokens, dsh.PolicyBytes}
	default:
		return nil, nil
	}
	if res.Notice != nil && res.Notice.Policy != "" {
		eras = eras[:1]
	}
	call := retention.Call{ToolName: res.Tool}
	if res.Dispatch {
		call.ReadTools = []string{}
	}
	names := map[string]string{}
	for _, im := range res.Images {
		if im.Name != "" {
			names[strings.TrimPrefix(im.AttachmentID, "sha256:")] = im.Name
		}
	}
	var out []retention.ReplayInput
	for _, era := range eras {
		in := retention.ReplayInput{Recorded: r.Recorded.Content, Policy: era, Budget: r.Budget, Route: r.Row.Route, Call: call}
		switch {
		case r.Original != nil:
			in.Original = *r.Original
		case era == dsh.PolicyBytes:
			in.Original = retention.Result{Content: []retention.Block{{Type: retention.TypeText, Text: r.Text}}}
		default:
			blocks, _ := retention.ParseDshComplete(r.Text, isDshObject)
			in.HandlePaths = map[int]string{}
			for i := range blocks {
				b := &blocks[i]
				if b.Type != retention.TypeImage {
					continue
				}
				named := b.Path
				in.HandlePaths[i] = named
				b.Name = names[filepath.Base(named)]
				// An image the store no longer holds stays without a path:
				// the policy then keeps the result whole and says why.
				b.Path = ""
				if stored, err := r.Image(named); err == nil {
					b.Path = stored
				}
			}
			in.Original = retention.Result{Content: blocks}
		}
		out = append(out, in)
	}
	return out, nil
}
