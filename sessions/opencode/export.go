package opencode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"spillscope/sessions/internal/readkit"
)

type sessionJSON struct {
	ID        string `json:"id"`
	Slug      string `json:"slug"`
	ProjectID string `json:"projectID"`
	Directory string `json:"directory"`
	ParentID  string `json:"parentID"`
	Title     string `json:"title"`
	Version   string `json:"version"`
	Time      struct {
		Created  *int64 `json:"created"`
		Updated  *int64 `json:"updated"`
		Archived *int64 `json:"archived"`
	} `json:"time"`
}

func (s *sessionJSON) session() Session {
	return Session{ID: s.ID, Slug: s.Slug, Title: s.Title, Directory: s.Directory, ProjectID: s.ProjectID,
		ParentID: s.ParentID, Version: s.Version, Created: ms(s.Time.Created), Updated: ms(s.Time.Updated),
		Archived: ms(s.Time.Archived)}
}

// errStop ends a walk early without being an error.
var errStop = errors.New("stop")

// ReadExportFile reads an `opencode export` document.
func ReadExportFile(ctx context.Context, path string, h Handler) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return ReadExport(ctx, f, h)
}

// ReadExport reads an `opencode export` document from r, one message at a
// time: the document as a whole is never held. It reports the session
// (Complete: an export is all of it) and then each message's records. The
// document's info has no model; each result and usage carries its own.
func ReadExport(ctx context.Context, r io.Reader, h Handler) error {
	lt := readkit.NewLineTracker(r)
	dec := json.NewDecoder(lt)
	h = wrapCallbacks(h)
	e := &emitter{h: h}
	var sess *Session
	var reported bool
	report := func() error {
		if sess == nil || reported {
			return nil
		}
		reported = true
		if h.Session == nil {
			return nil
		}
		return h.Session(*sess)
	}
	err := readkit.Fields(dec, func(key string) error {
		switch key {
		case "info":
			var s sessionJSON
			if err := dec.Decode(&s); err != nil {
				return err
			}
			if s.ID == "" {
				return fmt.Errorf("%w: info has no id", ErrNotOpenCode)
			}
			v := s.session()
			v.Complete = true
			sess = &v
			return nil
		case "messages":
			if sess == nil {
				return fmt.Errorf("%w: messages come before info", ErrNotOpenCode)
			}
			if err := report(); err != nil {
				return err
			}
			return readkit.Items(dec, func(i int) error {
				if err := ctx.Err(); err != nil {
					return err
				}
				raw, off, err := readkit.Raw(dec)
				if err != nil {
					return err
				}
				return e.exportMessage(raw, off, lt.LineAt(off), i)
			})
		default:
			return readkit.Skip(dec)
		}
	})
	switch {
	case err == nil:
	case readkit.IsCallback(err) || ctx.Err() != nil:
		return readkit.Unwrap(err)
	case sess == nil:
		return readkit.Unwrap(e.diag(Diagnostic{Code: DiagNotExport, Line: lt.LineAt(dec.InputOffset()),
			Params:  map[string]string{"error": err.Error()},
			Message: fmt.Sprintf("not an opencode export document: %v", err)}))
	default:
		if err := e.diag(Diagnostic{Code: DiagBadJSON, Line: lt.LineAt(dec.InputOffset()),
			Params:  map[string]string{"where": "document", "error": err.Error()},
			Message: fmt.Sprintf("the export document breaks off: %v", err)}); err != nil {
			return readkit.Unwrap(err)
		}
	}
	if err := report(); err != nil {
		return readkit.Unwrap(err)
	}
	return readkit.Unwrap(e.finish())
}

// exportMessage reads one {info, parts} element. A part's raw bytes are an
// exact copy of the document's, so each is found again in the element in
// order, and its locator addresses it exactly in the document.
func (e *emitter) exportMessage(raw []byte, off, line int64, index int) error {
	var m struct {
		Info  *messageJSON      `json:"info"`
		Parts []json.RawMessage `json:"parts"`
	}
	w := where{line: line, desc: fmt.Sprintf("message %d", index)}
	if err := json.Unmarshal(raw, &m); err != nil {
		return e.bad(w, err)
	}
	if m.Info == nil {
		return e.bad(w, errors.New("no info"))
	}
	info := m.Info
	w.desc = "message " + info.ID
	hasStep := false
	from, counted, pl := 0, 0, line
	for _, p := range m.Parts {
		i := bytes.Index(raw[from:], p)
		if i < 0 {
			return e.bad(w, errors.New("a part could not be located"))
		}
		rel := from + i
		pl += int64(bytes.Count(raw[counted:rel], []byte{'\n'}))
		counted, from = rel, rel+len(p)
		pw := where{line: pl, loc: Locator{Source: SourceExport, Offset: off + int64(rel), Length: int64(len(p))},
			desc: fmt.Sprintf("a part of message %s", info.ID)}
		step, err := e.part(p, info, partJSON{SessionID: info.SessionID, MessageID: info.ID}, pw)
		if err != nil {
			return err
		}
		hasStep = hasStep || step
	}
	return e.message(info, hasStep, w)
}

// DetectExport reports whether the file at path is an `opencode export`
// document: a JSON object whose "info" is a session ("ses_" id) with a
// directory and a version.
func DetectExport(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	dec := json.NewDecoder(io.LimitReader(f, 1<<20))
	ok := false
	err = readkit.Fields(dec, func(key string) error {
		if key != "info" {
			return errStop // info comes first in what OpenCode writes
		}
		var s sessionJSON
		if err := dec.Decode(&s); err != nil {
			return err
		}
		ok = strings.HasPrefix(s.ID, "ses") && s.Directory != "" && s.Version != ""
		return errStop
	})
	return ok && errors.Is(err, errStop)
}

// readExportResult reads the part at an export locator back.
func readExportResult(path string, loc Locator) (Result, error) {
	b, err := readkit.ReadRange(path, loc.Offset, loc.Length)
	if errors.Is(err, readkit.ErrRange) {
		return Result{}, fmt.Errorf("%w: %v", ErrResultGone, err)
	}
	if err != nil {
		return Result{}, err
	}
	return resultFromPart(b, partJSON{}, loc, path)
}

// resultFromPart converts one part's JSON read back through a locator.
func resultFromPart(b []byte, ids partJSON, loc Locator, path string) (Result, error) {
	var got *Result
	e := &emitter{h: Handler{Result: func(r Result) error { got = &r; return nil }}}
	if _, err := e.part(b, nil, ids, where{loc: loc, desc: "part"}); err != nil {
		return Result{}, err
	}
	if got == nil {
		return Result{}, fmt.Errorf("%w: %s: not a finished tool part", ErrResultGone, path)
	}
	return *got, nil
}
