package goose

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"spillscope/sessions/internal/readkit"
)

// JSONLCursor is where a pass over a legacy session file stopped: the
// offset and number of the first line not read (an incomplete last line
// waits for the next pass), and the calls requested so far, for responses
// that come in a later pass.
type JSONLCursor struct {
	Offset   int64             `json:"offset"`
	Line     int64             `json:"line"`
	Requests map[string]string `json:"requests,omitempty"`
}

// legacyMetadata is the first line of a legacy session file
// (session::SessionMetadata).
type legacyMetadata struct {
	WorkingDir             *string `json:"working_dir"`
	Description            string  `json:"description"`
	ScheduleID             string  `json:"schedule_id"`
	MessageCount           int64   `json:"message_count"`
	TotalTokens            int64   `json:"total_tokens"`
	InputTokens            int64   `json:"input_tokens"`
	OutputTokens           int64   `json:"output_tokens"`
	AccumulatedTotalTokens int64   `json:"accumulated_total_tokens"`
	AccumulatedInputTokens int64   `json:"accumulated_input_tokens"`
	AccumulatedOutput      int64   `json:"accumulated_output_tokens"`
}

// ReadJSONL reads a legacy session file (<data>/sessions/<name>.jsonl) from
// the cursor and returns the cursor to resume from. The session id is the
// file's name, as goose takes it when it imports the file.
func ReadJSONL(ctx context.Context, path string, from JSONLCursor, h Handler) (JSONLCursor, error) {
	f, err := os.Open(path)
	if err != nil {
		return from, err
	}
	defer f.Close()
	if _, err := f.Seek(from.Offset, io.SeekStart); err != nil {
		return from, err
	}
	h = wrapCallbacks(h)
	sid := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	cur := from
	if cur.Line == 0 {
		cur.Line = 1
	}
	requests := map[string]request{}
	for id, tool := range from.Requests {
		requests[id] = request{Tool: tool}
	}
	conv := &converter{h: h, requests: requests}
	lr := readkit.NewLineReader(f, cur.Offset, cur.Line)
	for {
		if err := ctx.Err(); err != nil {
			return from, err
		}
		l, err := lr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return from, err
		}
		if !l.Complete {
			break
		}
		if err := jsonlLine(conv, sid, l); err != nil {
			return from, readkit.Unwrap(err)
		}
		cur.Offset, cur.Line = l.Offset+l.Length, l.Number+1
	}
	if err := conv.finish(); err != nil {
		return from, readkit.Unwrap(err)
	}
	cur.Requests = map[string]string{}
	for id, r := range requests {
		cur.Requests[id] = r.Tool
	}
	return cur, nil
}

func jsonlLine(conv *converter, sid string, l readkit.Line) error {
	b := bytes.TrimSpace(l.Bytes)
	if len(b) == 0 {
		return nil
	}
	if l.Number == 1 {
		// goose tries the first line as metadata, then as a message
		var md legacyMetadata
		if json.Unmarshal(b, &md) == nil && md.WorkingDir != nil {
			if conv.h.Session == nil {
				return nil
			}
			return conv.h.Session(Session{ID: sid, Name: md.Description, WorkingDir: *md.WorkingDir, Complete: true,
				Last:        Totals{Input: md.InputTokens, Output: md.OutputTokens, Total: md.TotalTokens},
				Accumulated: Totals{Input: md.AccumulatedInputTokens, Output: md.AccumulatedOutput, Total: md.AccumulatedTotalTokens}})
		}
	}
	var m messageJSON
	if err := json.Unmarshal(b, &m); err != nil || m.Role == "" {
		code, what := DiagBadRecord, fmt.Sprintf("line %d", l.Number)
		if l.Number == 1 {
			code = DiagNotSession
		}
		if err == nil {
			err = errors.New(`no "role"`)
		}
		return conv.diag(Diagnostic{Code: code, Line: l.Number,
			Params:  map[string]string{"where": what, "start": readkit.Quote(b), "error": err.Error()},
			Message: fmt.Sprintf("%s is not a goose message (starts with %s)", what, readkit.Quote(b))})
	}
	if l.Number == 1 && conv.h.Session != nil {
		// a file without its metadata line is still a whole session
		if err := conv.h.Session(Session{ID: sid, Complete: true}); err != nil {
			return err
		}
	}
	loc := Locator{Source: SourceJSONL, Offset: l.Offset, Length: l.Length, Line: l.Number}
	return conv.message(sid, &m, loc, l.Number, 0)
}

func readJSONLResult(path string, loc Locator) (Result, error) {
	b, err := readkit.ReadRange(path, loc.Offset, loc.Length)
	if errors.Is(err, readkit.ErrRange) {
		return Result{}, fmt.Errorf("%w: %v", ErrResultGone, err)
	}
	if err != nil {
		return Result{}, err
	}
	var m messageJSON
	if json.Unmarshal(bytes.TrimSpace(b), &m) != nil {
		return Result{}, fmt.Errorf("%w: %s line %d", ErrResultGone, path, loc.Line)
	}
	r, ok := pickResult(strings.TrimSuffix(filepath.Base(path), ".jsonl"), &m, loc, loc.Line, 0, loc.Index)
	if !ok {
		return Result{}, fmt.Errorf("%w: %s line %d item %d", ErrResultGone, path, loc.Line, loc.Index)
	}
	return r, nil
}

// DetectJSONL reports whether the file at path is a legacy goose session:
// its first line is one DetectLine accepts.
func DetectJSONL(path string) bool {
	if !strings.HasSuffix(path, ".jsonl") {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	l, err := readkit.NewLineReader(io.LimitReader(f, 1<<20), 0, 1).Next()
	if err != nil || !l.Complete {
		return false
	}
	return DetectLine(l.Bytes)
}

// DetectLine reports whether line is the first line of a legacy goose
// session: goose's session metadata (with a working_dir) or a goose
// message (role, created and a content list).
func DetectLine(line []byte) bool {
	var probe struct {
		WorkingDir *string           `json:"working_dir"`
		Role       string            `json:"role"`
		Created    *int64            `json:"created"`
		Content    []json.RawMessage `json:"content"`
	}
	if json.Unmarshal(bytes.TrimSpace(line), &probe) != nil {
		return false
	}
	return probe.WorkingDir != nil || (probe.Role != "" && probe.Created != nil && probe.Content != nil)
}

// ReadResult reads one result back from the database or JSONL file it came
// from.
func ReadResult(ctx context.Context, source string, loc Locator) (Result, error) {
	switch loc.Source {
	case SourceDB:
		return readDBResult(ctx, source, loc)
	case SourceJSONL:
		return readJSONLResult(source, loc)
	}
	return Result{}, fmt.Errorf("%w: unknown locator source %q", ErrResultGone, loc.Source)
}
