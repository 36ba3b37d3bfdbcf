package dsh

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"
)

type obj = map[string]any

// logBuilder writes a dsh log the way dsh does: line 1 the header, then one
// event per line; as zstd, frame 1 holds the header alone and each batch
// one frame.
type logBuilder struct {
	t       testing.TB
	lines   [][]byte
	batches []int // index of the first line of each batch after the header
}

func newLog(t testing.TB, header obj) *logBuilder {
	l := &logBuilder{t: t}
	l.add(header)
	l.batch()
	return l
}

func (l *logBuilder) add(v obj) *logBuilder {
	b, err := json.Marshal(v)
	if err != nil {
		l.t.Fatal(err)
	}
	l.lines = append(l.lines, b)
	return l
}

// ev adds an event: type, data and optional key/value pairs of the envelope.
func (l *logBuilder) ev(typ string, data any, kv ...any) *logBuilder {
	e := obj{"type": typ, "data": data}
	for i := 0; i+1 < len(kv); i += 2 {
		e[kv[i].(string)] = kv[i+1]
	}
	return l.add(e)
}

func (l *logBuilder) raw(line string) *logBuilder {
	l.lines = append(l.lines, []byte(line))
	return l
}

// batch starts a new durable batch (a new zstd frame).
func (l *logBuilder) batch() *logBuilder {
	l.batches = append(l.batches, len(l.lines))
	return l
}

func (l *logBuilder) rawBytes() []byte {
	var b bytes.Buffer
	for _, ln := range l.lines {
		b.Write(ln)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// frames returns each frame's plain text.
func (l *logBuilder) frames() [][]byte {
	var out [][]byte
	starts := append([]int{0}, l.batches...)
	starts = append(starts, len(l.lines))
	for i := 0; i+1 < len(starts); i++ {
		if starts[i] == starts[i+1] {
			continue
		}
		var b bytes.Buffer
		for _, ln := range l.lines[starts[i]:starts[i+1]] {
			b.Write(ln)
			b.WriteByte('\n')
		}
		out = append(out, b.Bytes())
	}
	return out
}

func (l *logBuilder) zstdBytes() []byte { return zstdFrames(l.t, l.frames()...) }

var testEncoder *zstd.Encoder

// zstdFrames compresses each part as one independent, checksummed frame.
func zstdFrames(t testing.TB, parts ...[]byte) []byte {
	if testEncoder == nil {
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(true), zstd.WithEncoderConcurrency(1))
		if err != nil {
			t.Fatal(err)
		}
		testEncoder = enc
	}
	var out []byte
	for _, p := range parts {
		out = testEncoder.EncodeAll(p, out)
	}
	return out
}

func writeFile(t testing.TB, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func readAll(t testing.TB, path string) *Log {
	t.Helper()
	log, err := ReadAll(path, Options{Home: "/home/u/.dsh"})
	if err != nil {
		t.Fatal(err)
	}
	return log
}

func codes(ds []Diagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Code)
	}
	return out
}

// Content helpers in dsh's shapes.

func text(s string) obj { return obj{"type": "text", "text": s} }

func image(hex string, w, h int) obj {
	return obj{"type": "image", "attachment": obj{"attachmentId": "sha256:" + hex, "mediaType": "image/png",
		"bytes": 1234, "width": w, "height": h, "name": "shot.png"}}
}

// resultV0 is tool/result data up to v3: a role user message wrapping
// the blocks in one tool-result block.
func resultV0(turn, step int, id, call string, blocks ...obj) obj {
	return obj{"turn": turn, "step": step, "message": obj{
		"id": id, "role": "user", "source": obj{"kind": "tool", "callId": call},
		"content": []any{obj{"type": "tool-result", "toolCallId": call, "content": blocks, "isError": false}},
	}}
}

// resultV4 is v4's first-class tool-role message.
func resultV4(turn, step int, id, call string, blocks ...obj) obj {
	return obj{"turn": turn, "step": step, "message": obj{
		"id": id, "role": "tool", "source": obj{"kind": "tool", "callId": call}, "toolCallId": call,
		"content": blocks, "isError": false,
	}}
}

func byteNotice(n int, path string) string {
	return "(Omitted " + itoa(n) + " bytes. Full formatted result stored at: " + path +
		". Use read with offset/limit, or grep this path to search within it.)"
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
