package sessions

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"spillscope/retention"
)

// HarnessGemini is Gemini CLI's name in the index.
const HarnessGemini = "gemini-cli"

func init() { Register(geminiCLI{}) }

// geminiCLI reads Gemini CLI chat files, one JSON document each:
// <gemini dir>/tmp/<project>/chats/session-*.json (FORMATS.md section 3).
// Gemini CLI rewrites the file every turn, so it is read whole each time;
// results keep their ids through their natural keys.
type geminiCLI struct{}

func (geminiCLI) Name() string  { return HarnessGemini }
func (geminiCLI) Label() string { return "Gemini CLI" }

// DefaultRoots: the tmp folder of Gemini CLI's global folder, .gemini
// under its home: $GEMINI_CLI_HOME when set (packages/core/src/utils/
// paths.ts homedir()), else the user's home.
func (geminiCLI) DefaultRoots(env Env) []string {
	home := env.Dir("GEMINI_CLI_HOME", env.Home())
	return []string{filepath.Join(home, ".gemini", "tmp")}
}

// Detect: session-*.json in a chats folder.
func (geminiCLI) Detect(p *Probe) Match {
	base := p.Base()
	if strings.HasPrefix(base, "session-") && strings.HasSuffix(base, ".json") && filepath.Base(filepath.Dir(p.Path)) == "chats" {
		return MatchPath
	}
	return MatchNone
}

// Gemini CLI's notice kinds.
const (
	NoticeGemini       = "gemini-cli"
	NoticeGeminiLegacy = "gemini-cli-legacy"
)

// Notices: "Output too large. Showing first X and last Y characters. For
// full output see: <file>", and the older "Tool output was too large and
// has been truncated. The full output has been saved to: <file>".
func (geminiCLI) Notices() []NoticeRule { return geminiNotices }

var geminiNotices = []NoticeRule{
	{Kind: NoticeGemini, Marker: "For full output see:",
		Pattern: regexp.MustCompile(`Output too large\. Showing first [^\n]*? For full output see:[ \t]*([^\n]+?)[ \t]*(?:\n|$)`)},
	{Kind: NoticeGeminiLegacy, Marker: "The full output has been saved to:",
		Pattern: regexp.MustCompile(`Tool output was too large and has been truncated\.\s*The full output has been saved to:[ \t]*([^\n]+?)[ \t]*(?:\n|$)`)},
}

// geminiProject is a chat file's project temp folder, <tmp>/<project>.
func geminiProject(path string) string { return filepath.Dir(filepath.Dir(path)) }

// Locations: <project>/tool-outputs/[session-<id>/]<tool>_<call>.txt
// (packages/core/src/utils/fileUtils.ts), and the older
// <project>/<call id>.output.
func (geminiCLI) Locations(s SessionRef) []Location {
	var out []Location
	sub := ""
	if s.SessionID != "" {
		sub = `(?:session-` + regexp.QuoteMeta(s.SessionID) + `/)?`
	}
	proj := geminiProject(s.Path)
	if l, ok := SessionLocation(s.Root, proj, `tool-outputs/`+sub+`[A-Za-z0-9][A-Za-z0-9_.-]*\.txt$`); ok {
		out = append(out, l)
	}
	if l, ok := SessionLocation(s.Root, proj, `[A-Za-z0-9][A-Za-z0-9_.-]*\.output$`); ok {
		out = append(out, l)
	}
	return out
}

// SpillCandidates: the named path, then its place under this project's
// folder (a copied tmp folder).
func (geminiCLI) SpillCandidates(named string, s SessionRef) []string {
	proj := geminiProject(s.Path)
	out := []string{namedPath(named, s.Path)}
	if _, rest, ok := strings.Cut(filepath.ToSlash(named), "/tool-outputs/"); ok {
		out = append(out, filepath.Join(proj, "tool-outputs", filepath.FromSlash(rest)))
	}
	return append(out, filepath.Join(proj, filepath.Base(filepath.FromSlash(named))))
}

func (geminiCLI) Read(ctx context.Context, src Source, p *Parsed) (ReadState, error) {
	doc, ok := readDoc(src, p)
	if ok && midRewrite(src, doc) {
		// Gemini CLI rewrites the file in place each turn: a document cut
		// short while it does is read again once the writer is done, so
		// its results neither leave the index nor come back under new ids.
		return ReadState{Mode: ReadAll, Retry: true}, nil
	}
	if ok {
		ReadGeminiDoc(doc, p)
	}
	return ReadState{Mode: ReadAll}, nil
}

// rewriteGrace is how long after its last write a document that does not
// parse is taken for one still being written; after it, the document is
// read as it is, with diagnostics.
const rewriteGrace = 2 * time.Second

// midRewrite reports whether a document written moments ago is not yet
// whole JSON.
func midRewrite(src Source, doc []byte) bool {
	return time.Since(time.Unix(0, src.ModTime)) < rewriteGrace && !json.Valid(doc)
}

// ReadResult: the locator's span is the toolCalls object itself.
func (geminiCLI) ReadResult(path string, loc Locator, callID string) (retention.Result, error) {
	buf, err := readSpan(path, loc)
	if err != nil {
		return retention.Result{}, err
	}
	r, _ := geminiCall(buf)
	if r.CallID != callID {
		return retention.Result{}, fmt.Errorf("%w: %s at %d has no result %q", ErrResultGone, path, loc.Offset, callID)
	}
	return retention.Result{Content: r.Blocks, IsError: r.IsError}, nil
}

// readDoc reads a whole JSON-document source (up to its size when found).
func readDoc(src Source, p *Parsed) ([]byte, bool) {
	f, err := os.Open(src.Path)
	if err != nil {
		p.Diag(0, DiagUnreadable, map[string]string{"error": errText(err)})
		return nil, false
	}
	defer f.Close()
	doc, err := io.ReadAll(io.LimitReader(f, src.Size))
	if err != nil {
		p.Diag(0, DiagUnreadable, map[string]string{"error": errText(err)})
		return nil, false
	}
	return doc, true
}

// ReadGeminiDoc reads a Gemini CLI chat file (one JSON document with
// messages[] and their toolCalls[]). A tool result's offset and length
// address its toolCalls object inside the document.
func ReadGeminiDoc(doc []byte, p *Parsed) {
	s := &p.Session
	var messages []byte
	msgStart := 0
	_, err := wholeObject(doc, func(k []byte, vs, ve int) bool {
		v := doc[vs:ve]
		switch string(k) {
		case "sessionId":
			s.ID, _ = str(v)
		case "projectHash":
			if h, _ := str(v); h != "" && s.Project == "" {
				s.Project = h
			}
		case "startTime", "lastUpdated":
			t, _ := str(v)
			p.SeeTime(t)
		case "messages":
			messages, msgStart = v, vs
		}
		return true
	})
	if err != nil {
		p.badShape(1, "$", "object")
		if messages == nil {
			return
		}
	}
	if len(messages) == 0 || messages[0] != '[' {
		return
	}
	lc := lineCounter{doc: doc, line: 1}
	_, err = eachItem(messages, 0, func(i, vs, ve int) bool {
		m := messages[vs:ve]
		base := msgStart + vs
		var id, ts, model string
		var tokens, calls []byte
		callsAt := 0
		_, _, err := eachField(m, 0, func(k []byte, vs, ve int) bool {
			v := m[vs:ve]
			switch string(k) {
			case "id":
				id, _ = str(v)
			case "timestamp":
				ts, _ = str(v)
			case "model":
				model, _ = str(v)
			case "tokens":
				tokens = v
			case "toolCalls":
				calls, callsAt = v, vs
			}
			return true
		})
		if err != nil {
			p.badShape(lc.at(base), fmt.Sprintf("messages[%d]", i), "object")
			return true
		}
		p.SeeTime(ts)
		if model != "" {
			s.Model = model
		}
		if len(tokens) > 0 && tokens[0] == '{' {
			u := Usage{Key: id}
			if id == "" {
				u.Key = fmt.Sprintf("message:%d", i)
			}
			var in, cached int64
			eachField(tokens, 0, func(k []byte, vs, ve int) bool {
				v := tokens[vs:ve]
				switch string(k) {
				case "input":
					in = num(v)
				case "cached":
					cached = num(v)
				case "output":
					u.Output = num(v)
				case "thoughts":
					u.Reasoning = num(v)
				}
				return true
			})
			u.Input, u.CacheRead = splitCached(in, cached)
			p.AddUsage(u)
		}
		if len(calls) == 0 || calls[0] != '[' {
			return true
		}
		eachItem(calls, 0, func(j, cs, ce int) bool {
			off := base + callsAt + cs
			r, problems := geminiCall(calls[cs:ce])
			if r.Time == "" {
				r.Time = ts
			}
			r.Locator = Locator{Offset: int64(off), Length: int64(ce - cs), Index: j}
			r.Line = lc.at(off)
			line := r.Line
			resultProblems(p, line, r.CallID, problems)
			p.AddCall(r.CallID, r.ToolName)
			p.AddResult(r)
			return true
		})
		return true
	})
	if err != nil {
		p.badShape(1, "messages", "array")
	}
}

// geminiCall reads one toolCalls entry: {id, name, result:[{functionResponse:
// {id, name, response:{output|error}}} | {inlineData:{mimeType,data}}], status}.
func geminiCall(c []byte) (ToolResult, []string) {
	var r ToolResult
	var result []byte
	var problems []string
	var status string
	_, _, err := eachField(c, 0, func(k []byte, vs, ve int) bool {
		v := c[vs:ve]
		switch string(k) {
		case "id":
			r.CallID, _ = str(v)
		case "name":
			r.ToolName, _ = str(v)
		case "timestamp":
			r.Time, _ = str(v)
		case "status":
			status, _ = str(v)
		case "result":
			result = v
		}
		return true
	})
	if err != nil {
		return r, []string{"tool call is not a JSON object"}
	}
	r.IsError = status == "error" || status == "cancelled"
	if len(result) == 0 || result[0] != '[' {
		return r, nil
	}
	eachItem(result, 0, func(i, vs, ve int) bool {
		part := result[vs:ve]
		if fr, ok := field(part, "functionResponse"); ok {
			resp, _ := field(fr, "response")
			if len(resp) > 0 && resp[0] == '{' {
				if o, ok := field(resp, "output"); ok {
					r.Blocks = append(r.Blocks, geminiText(o))
				}
				if e, ok := field(resp, "error"); ok {
					r.IsError = true
					r.Blocks = append(r.Blocks, geminiText(e))
				}
			}
			return true
		}
		if id, ok := field(part, "inlineData"); ok {
			b := retention.Block{Type: retention.TypeImage}
			if mt, ok := field(id, "mimeType"); ok {
				b.MimeType, _ = str(mt)
			}
			if d, ok := field(id, "data"); ok {
				b.Data, _ = str(d)
			}
			if b.Data == "" {
				problems = append(problems, fmt.Sprintf("inline data part %d has no data", i))
			}
			r.Blocks = append(r.Blocks, b)
			return true
		}
		if t, ok := field(part, "text"); ok {
			r.Blocks = append(r.Blocks, geminiText(t))
		}
		return true
	})
	return r, problems
}

// geminiText turns a response value into a text block; non-string values
// are kept as their JSON, which is what the model was shown.
func geminiText(v []byte) retention.Block {
	if s, ok := str(v); ok {
		return retention.Block{Type: retention.TypeText, Text: s}
	}
	return retention.Block{Type: retention.TypeText, Text: string(v)}
}

// lineCounter maps increasing byte offsets of a document to 1-based lines.
type lineCounter struct {
	doc  []byte
	pos  int
	line int64
}

func (lc *lineCounter) at(off int) int64 {
	if off < lc.pos {
		lc.pos, lc.line = 0, 1
	}
	if off > len(lc.doc) {
		off = len(lc.doc)
	}
	lc.line += int64(bytes.Count(lc.doc[lc.pos:off], []byte{'\n'}))
	lc.pos = off
	return lc.line
}
