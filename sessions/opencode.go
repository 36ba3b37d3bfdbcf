package sessions

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"

	"spillscope/retention"
	"spillscope/sessions/opencode"
)

// HarnessOpenCode is OpenCode's name in the index.
const HarnessOpenCode = opencode.Harness

// CompactionOpenCode: OpenCode's compaction part (the user message asking
// for a summary of the conversation so far) and the summary message that
// answers it (its parentID is that user message), one compaction.
const CompactionOpenCode = "opencode-compaction"

func init() { Register(openCode{}) }

// openCode reads OpenCode sessions through sessions/opencode from the three
// places they live (FORMATS.md section 3): the database the current
// OpenCode writes (opencode.db, opencode-<channel>.db or $OPENCODE_DB in
// its data folder), one source with many sessions read by its rows'
// time_updated; the JSON storage folder of versions before it, one source
// per session file, read only where no database sits beside it (OpenCode
// migrated it there on first start and reads only the database since); and
// `opencode export` documents.
type openCode struct{}

func (openCode) Name() string  { return HarnessOpenCode }
func (openCode) Label() string { return "OpenCode" }

// DefaultRoots: the data folder, and the folder of $OPENCODE_DB when it
// lies elsewhere (opencode.DefaultRoots).
func (openCode) DefaultRoots(env Env) []string { return opencode.DefaultRoots(env.Get) }

// dbName is OpenCode's own name for its database: opencode.db, or
// opencode-<channel>.db for a non-release build.
var dbName = regexp.MustCompile(`^opencode(-[A-Za-z0-9_.-]+)?\.db$`)

// Detect: a SQLite file with OpenCode's session, message and part tables
// (by its own name: its layout); a session file of a storage folder; a
// JSON document whose info is an OpenCode session (an export).
func (openCode) Detect(p *Probe) Match {
	switch {
	case isSQLite(p):
		if !opencode.DetectDB(p.Path) {
			return MatchNone
		}
		if dbName.MatchString(p.Base()) {
			return MatchPath
		}
		return MatchContent
	case !strings.HasSuffix(p.Base(), ".json"):
		return MatchNone
	case opencode.StorageRoot(p.Path) != "":
		return MatchPath
	}
	// An export opens with its info; the probe spares opening every JSON
	// file of the roots as a document.
	var head []byte
	for _, l := range p.Lines() {
		head = append(append(head, l...), '\n')
	}
	if strings.Contains(string(head), `"info"`) && opencode.DetectExport(p.Path) {
		return MatchContent
	}
	return MatchNone
}

// Notices: the truncation every tool's output passes through ("…The tool
// call succeeded but the output was truncated. Full output saved to:
// <path>"), and the shell tool's own ("...output truncated...\n\nFull
// output saved to: <path>").
func (openCode) Notices() []NoticeRule { return openCodeNotices }

func recogniseOpenCode(text string) (string, string, bool) {
	n, ok := retention.RecogniseOpenCodeTruncation(text)
	return n.Kind, n.Path, ok
}

var openCodeNotices = []NoticeRule{
	kitNotice(opencode.NoticeTruncate, "The tool call succeeded but the output was truncated.", recogniseOpenCode),
	kitNotice(opencode.NoticeShell, "...output truncated...", recogniseOpenCode),
}

// Locations: <data>/tool-output/tool_<id> (opencode.Spill), or copied
// beside the sessions under a root.
func (openCode) Locations(s SessionRef) []Location {
	return spillLocations(opencode.Spill(s.Env.Get), false, s.Roots, "tool-output")
}

// SpillCandidates: the named path, then the same name in the tool-output
// folder of the data folder the source lies in (a copied data folder keeps
// its spill files beside its database or storage folder).
func (openCode) SpillCandidates(named string, s SessionRef) []string {
	out := []string{namedPath(named, s.Path)}
	data := filepath.Dir(s.Path)
	if root := opencode.StorageRoot(s.Path); root != "" {
		data = filepath.Dir(root)
	}
	return append(out, filepath.Join(data, "tool-output", filepath.Base(filepath.FromSlash(named))))
}

// ChangeStamp: a database's commits land in its -wal first; a storage
// session file stays as it is while its messages and parts are written
// beside it, and is superseded once a database sits in its data folder.
func (openCode) ChangeStamp(path string, size, mtime int64) (int64, int64) {
	root := opencode.StorageRoot(path)
	if root == "" {
		if strings.HasSuffix(path, ".json") {
			return size, mtime
		}
		return walStamp(path, size, mtime)
	}
	if _, ok := beside(filepath.Dir(root), "opencode.db"); ok {
		return size, -mtime - 1
	}
	newest, files := opencode.StorageStamp(root, strings.TrimSuffix(filepath.Base(path), ".json"))
	return size + int64(files), max(mtime, newest)
}

func (openCode) Read(ctx context.Context, src Source, p *Parsed) (ReadState, error) {
	if root := opencode.StorageRoot(src.Path); root != "" {
		if _, ok := beside(filepath.Dir(root), "opencode.db"); ok {
			// Migrated into the database, which is indexed in its stead.
			p.NotSession = true
			return ReadState{Mode: ReadAll}, nil
		}
		err := opencode.ReadStorageSession(ctx, root, src.Path, openCodeHandler(p, false))
		return openCodeDone(ctx, p, err)
	}
	if strings.HasSuffix(src.Path, ".json") {
		err := opencode.ReadExportFile(ctx, src.Path, openCodeHandler(p, false))
		return openCodeDone(ctx, p, err)
	}
	var from openCodeCursor
	mode := ReadChanged
	if src.Cursor == "" || json.Unmarshal([]byte(src.Cursor), &from) != nil {
		from, mode = openCodeCursor{}, ReadAll
	}
	p.NotSession = true
	next, err := opencode.ReadDB(ctx, src.Path, from.DB, openCodeHandler(p, true))
	if st, done, err := dbRead(ctx, src, p, err, "OpenCode"); done {
		return st, err
	}
	b, _ := json.Marshal(openCodeCursor{DB: next})
	return ReadState{Cursor: string(b), Mode: mode}, nil
}

// openCodeCursor is the database cursor as the index keeps it.
type openCodeCursor struct {
	DB opencode.DBCursor `json:"db"`
}

// openCodeDone ends a pass over a document or a storage session, read
// whole each time.
func openCodeDone(ctx context.Context, p *Parsed, err error) (ReadState, error) {
	if err != nil {
		if ctx.Err() != nil {
			return ReadState{}, ctx.Err()
		}
		p.Diag(0, DiagUnreadable, map[string]string{"error": errText(err)})
	}
	if p.Session.ID == "" && len(p.Results) == 0 {
		p.NotSession = true
	}
	return ReadState{Mode: ReadAll}, nil
}

// openCodeHandler maps what every OpenCode source reports into p; many
// says the source holds many sessions (a database: records name theirs).
func openCodeHandler(p *Parsed, many bool) opencode.Handler {
	sess := func(id string) string {
		if many {
			return id
		}
		return ""
	}
	return opencode.Handler{
		Session: func(s opencode.Session) error {
			if s.Deleted {
				p.Gone = append(p.Gone, s.ID)
				return nil
			}
			info := SessionInfo{ID: s.ID, Project: s.Directory, Cwd: s.Directory, Model: s.Model, Started: kitTime(s.Created), Ended: kitTime(s.Updated)}
			if !many {
				p.Session = info
				return nil
			}
			p.AddSession(info)
			if s.Complete {
				p.Whole = append(p.Whole, s.ID)
			}
			return nil
		},
		Result: func(r opencode.Result) error {
			s := sess(r.SessionID)
			call := r.CallID
			if call == "" {
				call = r.PartID
			}
			if r.Tool != "" {
				p.AddCallIn(s, call, r.Tool)
			}
			at := r.Ended
			if at.IsZero() {
				at = r.Started
			}
			off := r.Locator.Offset
			if r.Locator.Source == opencode.SourceDB {
				off = r.Row
			}
			t := ToolResult{CallID: call, ToolName: r.Tool, Time: kitTime(at), IsError: r.IsError, Blocks: r.Blocks, Arguments: r.Arguments,
				Session: s, Line: r.Line, Locator: kitLocator(r.Locator, off, r.Locator.Length, 0)}
			switch {
			case r.Notice != nil:
				t.Notice = &SpillNotice{Kind: r.Notice.Kind, Path: r.Notice.Path}
			case r.Truncated && r.OutputPath != "":
				// The shell tool records the saved output in its metadata.
				t.Notice = &SpillNotice{Kind: opencode.NoticeShell, Path: r.OutputPath}
			}
			if !many {
				p.SeeTime(t.Time)
				if r.Model != "" {
					p.Session.Model = r.Model // an export's info names none
				}
			}
			p.AddResult(t)
			return nil
		},
		Usage: func(u opencode.Usage) error {
			// One call per step-finish part (or an assistant message's
			// own tokens). OpenCode's input is already without the cache;
			// its output leaves out the reasoning, which is output too.
			p.AddModelCall(ModelCall{Session: sess(u.SessionID), Key: u.Key, At: kitTime(u.Time), Line: u.Line, Model: u.Model,
				Input: u.Input, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite, Output: u.Output + u.Reasoning, Reasoning: u.Reasoning})
			return nil
		},
		Compaction: func(c opencode.Compaction) error {
			// Both records are keyed by the user message that asked.
			cp := Compaction{Session: sess(c.SessionID), Key: "message:" + c.MessageID, Kind: CompactionOpenCode, At: kitTime(c.Time), Line: c.Line}
			switch {
			case c.Kind == opencode.CompactionRequest:
				cp.Trigger = "manual"
				if c.Auto {
					cp.Trigger = "auto"
				}
				p.AddCompaction(cp)
			case c.ParentID != "":
				cp.Key = "message:" + c.ParentID
				p.CloseCompaction(cp)
			default:
				p.AddCompaction(cp) // a summary that names no request
			}
			return nil
		},
		Diagnostic: func(d opencode.Diagnostic) error {
			kitDiag(p, "OpenCode", d, openCodeDiagCodes[d.Code])
			return nil
		},
	}
}

// openCodeDiagCodes maps the subpackage's diagnostic codes to this
// package's.
var openCodeDiagCodes = map[string]string{
	opencode.DiagNotExport: DiagNotSource, opencode.DiagBadJSON: DiagBadRecord, opencode.DiagUnknownPart: DiagUnknownItem,
	opencode.DiagNotDatabase: DiagNotSource,
}

// ReadResult: the locator names the part's row, file or place in the
// document.
func (openCode) ReadResult(path string, loc Locator, callID string) (retention.Result, error) {
	var ol opencode.Locator
	if err := json.Unmarshal([]byte(loc.Key), &ol); err != nil {
		return retention.Result{}, kitGone(path)
	}
	source := path
	if ol.Source == opencode.SourceStorage {
		source = opencode.StorageRoot(path)
	}
	r, err := opencode.ReadResult(context.Background(), source, ol)
	got := r.CallID
	if got == "" {
		got = r.PartID
	}
	return kitResult(got, r.Blocks, r.IsError, err, opencode.ErrResultGone, path, callID)
}
