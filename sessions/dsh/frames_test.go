package dsh

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
)

// frameStarts compresses each frame on its own and returns the file and the
// byte offset of every frame.
func frameStarts(t testing.TB, frames [][]byte) ([]byte, []int64) {
	var out []byte
	var starts []int64
	for _, f := range frames {
		starts = append(starts, int64(len(out)))
		out = append(out, zstdFrames(t, f)...)
	}
	return out, starts
}

// manySession is a v3 session with one result per batch, each batch its
// own frame.
func manySession(t testing.TB, n int) *logBuilder {
	l := newLog(t, obj{"type": "session", "version": 3, "id": "many", "createdAt": 1, "cwd": "/w", "isSeeded": false, "delegationDepth": 0})
	seq := 0
	for i := range n {
		call := fmt.Sprintf("call-%d", i)
		seqEv(l, seq, "tool/call", obj{"turn": 1, "step": 1, "callId": call, "name": "bash", "arguments": "{}"})
		seqEv(l, seq+1, "tool/result", resultV0(1, 1, "m"+call, call, text(strings.Repeat(call+" ", 20))),
			"surfaceOp", "append", "sourceEventSeqs", []int{seq})
		seq += 2
		l.batch()
	}
	return l
}

// calls lists the call ids a handler saw, in order.
type collector struct {
	calls []string
	diags []Diagnostic
	locs  []Locator
}

func (c *collector) handler() Handler {
	return Handler{
		Result: func(r *Result) error {
			c.calls = append(c.calls, r.CallID)
			c.locs = append(c.locs, r.Locator)
			return nil
		},
		Diagnostic: func(d Diagnostic) error { c.diags = append(c.diags, d); return nil },
	}
}

func TestZstdMatchesRaw(t *testing.T) {
	l := v2Session(t)
	dir := t.TempDir()
	raw := readAll(t, writeFile(t, dir, "r/session.v2.jsonl", l.rawBytes()))
	z := readAll(t, writeFile(t, dir, "z/session.v2.jsonl.zstd", l.zstdBytes()))
	if z.Stats.Frames != len(l.frames()) || !z.Zstd || raw.Zstd {
		t.Errorf("frames %d, want %d", z.Stats.Frames, len(l.frames()))
	}
	for _, lg := range []*Log{raw, z} {
		for _, r := range lg.Results {
			r.Locator = Locator{}
			if r.ReplacedBy != nil {
				r.ReplacedBy.Locator = nil
			}
		}
		lg.Cursor, lg.Zstd, lg.Stats.Frames = Cursor{}, false, 0
	}
	if !reflect.DeepEqual(raw, z) {
		a, _ := json.Marshal(raw)
		b, _ := json.Marshal(z)
		t.Errorf("zstd and raw logs read differently:\n%s\n%s", a, b)
	}
}

func TestTornTail(t *testing.T) {
	l := manySession(t, 6)
	frames := l.frames()
	full, starts := frameStarts(t, frames)
	last := starts[len(starts)-1]
	dir := t.TempDir()
	for cut := last + 1; cut < int64(len(full)); cut += max(1, (int64(len(full))-last)/7) {
		t.Run(fmt.Sprint(cut), func(t *testing.T) {
			path := writeFile(t, dir, fmt.Sprintf("%d.zstd", cut), full[:cut])
			var c collector
			p, err := Read(path, nil, Options{}, c.handler())
			if err != nil {
				t.Fatal(err)
			}
			if len(c.calls) != 5 {
				t.Errorf("results %v, want the 5 of the complete frames", c.calls)
			}
			if len(c.diags) != 1 || c.diags[0].Code != CodeTornFrame || c.diags[0].Offset != last || c.diags[0].Frame != len(frames) {
				t.Fatalf("diagnostics %+v, want one torn-frame at frame %d byte %d", c.diags, len(frames), last)
			}
			if !p.Stats.Torn || p.Cursor.Offset != last || p.Cursor.Frame != len(frames) {
				t.Errorf("torn %v cursor %+v", p.Stats.Torn, p.Cursor)
			}
			// The frame completes: the next pass reads only it.
			if err := os.WriteFile(path, full, 0o644); err != nil {
				t.Fatal(err)
			}
			var c2 collector
			p2, err := Read(path, &p.Cursor, Options{}, c2.handler())
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(c2.calls, []string{"call-5"}) || len(c2.diags) != 0 || p2.Stats.Torn || p2.Stats.Frames != 1 {
				t.Errorf("second pass %v %v %+v", c2.calls, c2.diags, p2.Stats)
			}
		})
	}
}

func TestBadFrames(t *testing.T) {
	l := manySession(t, 4) // frames: header, call-0 … call-3
	frames := l.frames()
	full, starts := frameStarts(t, frames)
	end := func(i int) int64 {
		if i+1 < len(starts) {
			return starts[i+1]
		}
		return int64(len(full))
	}
	garbage := bytes.Repeat([]byte{0xAB}, 37)
	cases := []struct {
		name  string
		data  func() []byte
		calls []string
		code  string
		frame int
		at    int64
		gap   bool // lines were lost: a seq-gap follows
	}{
		{"checksum", func() []byte {
			b := bytes.Clone(full)
			b[end(2)-1] ^= 0xFF // the content checksum of frame 3 (call-1)
			return b
		}, []string{"call-0", "call-2", "call-3"}, CodeFrameChecksum, 3, starts[2], true},
		{"payload", func() []byte {
			b := bytes.Clone(full)
			for i := starts[1] + 8; i < end(1)-4; i++ {
				b[i] ^= 0x5A
			}
			return b
		}, []string{"call-1", "call-2", "call-3"}, "", 2, starts[1], true},
		{"garbage between frames", func() []byte {
			return append(append(bytes.Clone(full[:starts[3]]), garbage...), full[starts[3]:]...)
		}, []string{"call-0", "call-1", "call-2", "call-3"}, CodeSkippedBytes, 4, starts[3], false},
		{"garbage at the end", func() []byte {
			return append(bytes.Clone(full), garbage...)
		}, []string{"call-0", "call-1", "call-2", "call-3"}, CodeBadFrame, 6, int64(len(full)), false},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var col collector
			if _, err := Read(writeFile(t, dir, c.name, c.data()), nil, Options{}, col.handler()); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(col.calls, c.calls) {
				t.Errorf("results %v, want %v", col.calls, c.calls)
			}
			want := 1
			if c.gap {
				want = 2
			}
			if len(col.diags) != want || c.gap && col.diags[1].Code != CodeSeqGap {
				t.Fatalf("diagnostics %+v, want the frame's (and a seq gap: %v)", col.diags, c.gap)
			}
			d := col.diags[0]
			if c.code != "" && d.Code != c.code || c.code == "" && d.Code != CodeBadFrame && d.Code != CodeFrameChecksum && d.Code != CodeSkippedBytes {
				t.Errorf("code %s, want %s", d.Code, c.code)
			}
			if d.Frame != c.frame || d.Offset != c.at || !strings.Contains(d.Message, fmt.Sprintf("byte %d", c.at)) {
				t.Errorf("diagnostic %+v, want frame %d at byte %d", d, c.frame, c.at)
			}
		})
	}
}

// TestLinesAcrossFrames: a frame may end inside a line; the line is read
// whole and its locator reads it back.
func TestLinesAcrossFrames(t *testing.T) {
	l := manySession(t, 5)
	text := l.rawBytes()
	hdr := bytes.IndexByte(text, '\n') + 1
	var frames [][]byte
	frames = append(frames, text[:hdr])
	for i := hdr; i < len(text); i += 97 {
		frames = append(frames, text[i:min(i+97, len(text))])
	}
	// A skippable frame between two data frames is ignored.
	data, _ := frameStarts(t, frames[:3])
	data = append(data, 0x50, 0x2A, 0x4D, 0x18, 3, 0, 0, 0, 'a', 'b', 'c')
	rest, _ := frameStarts(t, frames[3:])
	data = append(data, rest...)
	path := writeFile(t, t.TempDir(), "s.zstd", data)
	var c collector
	if _, err := Read(path, nil, Options{}, c.handler()); err != nil {
		t.Fatal(err)
	}
	if len(c.diags) != 0 || len(c.calls) != 5 {
		t.Fatalf("results %v diagnostics %v", c.calls, c.diags)
	}
	for i, loc := range c.locs {
		back, err := ReadResultAt(path, loc, Options{})
		if err != nil {
			t.Fatalf("%s: %v", loc, err)
		}
		if back.CallID != c.calls[i] {
			t.Errorf("%s reads back %s, want %s", loc, back.CallID, c.calls[i])
		}
		parsed, err := ParseLocator(loc.String())
		if err != nil || parsed != loc {
			t.Errorf("locator %s parses to %+v, %v", loc, parsed, err)
		}
	}
	if _, err := ReadResultAt(path, Locator{Zstd: true, Offset: 0, Frame: 1, Line: 1}, Options{}); !errors.Is(err, ErrLocator) {
		t.Errorf("the header read back as a result: %v", err)
	}
}

// TestLargeFrame: a frame too large to hold is verified by one decoding
// pass and read by a second; one that fails its checksum gives nothing.
func TestLargeFrame(t *testing.T) {
	l := newLog(t, obj{"type": "session", "version": 3, "id": "big", "createdAt": 1, "isSeeded": false, "delegationDepth": 0})
	big := strings.Repeat("0123456789abcdef", 1<<16) // 1 MiB per result
	for i := range 10 {
		call := fmt.Sprintf("c%d", i)
		l.ev("tool/call", obj{"turn": 1, "step": 1, "callId": call, "name": "read", "arguments": "{}"})
		l.ev("tool/result", resultV0(1, 1, "m", call, text(big)), "surfaceOp", "append")
	}
	frames := l.frames()
	if len(frames) != 2 || len(frames[1]) <= frameBuffer {
		t.Fatalf("frame of %d bytes is not larger than the buffer", len(frames[1]))
	}
	data, starts := frameStarts(t, frames)
	dir := t.TempDir()
	var c collector
	p, err := Read(writeFile(t, dir, "ok.zstd", data), nil, Options{}, c.handler())
	if err != nil {
		t.Fatal(err)
	}
	if len(c.calls) != 10 || len(c.diags) != 0 || p.Stats.Bytes != int64(len(frames[0])+len(frames[1])) {
		t.Errorf("results %d diagnostics %v bytes %d", len(c.calls), c.diags, p.Stats.Bytes)
	}
	bad := bytes.Clone(data)
	bad[len(bad)-1] ^= 1
	var c2 collector
	if _, err := Read(writeFile(t, dir, "bad.zstd", bad), nil, Options{}, c2.handler()); err != nil {
		t.Fatal(err)
	}
	if len(c2.calls) != 0 || len(c2.diags) != 1 || c2.diags[0].Code != CodeFrameChecksum || c2.diags[0].Offset != starts[1] {
		t.Errorf("bad large frame: results %v diagnostics %+v", c2.calls, c2.diags)
	}
}

func TestLineTooLong(t *testing.T) {
	l := manySession(t, 3)
	for _, z := range []bool{false, true} {
		data := l.rawBytes()
		if z {
			data = l.zstdBytes()
		}
		path := writeFile(t, t.TempDir(), "s", data)
		var c collector
		h := c.handler()
		if _, err := Read(path, nil, Options{MaxLine: 200}, h); err != nil {
			t.Fatal(err)
		}
		// The tool/call lines fit, the result lines do not; each lost line
		// shows as a seq gap on the next.
		want := []string{CodeLineTooLong, CodeSeqGap, CodeLineTooLong, CodeSeqGap, CodeLineTooLong}
		if len(c.calls) != 0 || !reflect.DeepEqual(codes(c.diags), want) || c.diags[0].Line != 3 || c.diags[4].Line != 7 {
			t.Errorf("zstd %v: results %v diagnostics %+v", z, c.calls, c.diags)
		}
	}
}

// TestResume reads a log as it grows, batch by batch and mid-line, and
// must see what one read of the whole log sees.
func TestResume(t *testing.T) {
	l := v2Session(t)
	whole := func(data []byte) []string {
		path := writeFile(t, t.TempDir(), "whole", data)
		var seen []string
		h := recordAll(&seen)
		if _, err := Read(path, nil, Options{}, h); err != nil {
			t.Fatal(err)
		}
		return seen
	}
	for _, z := range []bool{false, true} {
		t.Run(fmt.Sprintf("zstd=%v", z), func(t *testing.T) {
			var data []byte
			var cuts []int
			if z {
				var starts []int64
				data, starts = frameStarts(t, l.frames())
				for _, s := range starts[1:] {
					cuts = append(cuts, int(s), int(s)+5) // at a frame boundary and inside a frame
				}
			} else {
				data = l.rawBytes()
				for i := 60; i < len(data); i += 333 {
					cuts = append(cuts, i)
				}
			}
			cuts = append(cuts, len(data))
			want := whole(data)
			path := writeFile(t, t.TempDir(), "grow", nil)
			var seen []string
			var cur *Cursor
			for _, cut := range cuts {
				if err := os.WriteFile(path, data[:cut], 0o644); err != nil {
					t.Fatal(err)
				}
				p, err := Read(path, cur, Options{}, recordAll(&seen))
				if errors.Is(err, ErrNotSession) && cur == nil {
					continue // the header line is not complete yet
				}
				if err != nil {
					t.Fatalf("cut %d: %v", cut, err)
				}
				// Keep the cursor the way an index would: as JSON.
				b, err := json.Marshal(p.Cursor)
				if err != nil {
					t.Fatal(err)
				}
				cur = new(Cursor)
				if err := json.Unmarshal(b, cur); err != nil {
					t.Fatal(err)
				}
			}
			// Torn tails are reported on the passes that end in one, and
			// unknown types once per pass with that pass's count.
			split := func(lines []string) (kept []string, unknown int) {
				for _, s := range lines {
					var n int
					if _, err := fmt.Sscanf(s, "diag "+CodeUnknownEvent+" future/thing %d", &n); err == nil {
						unknown += n
					} else if !strings.HasPrefix(s, "diag "+CodeTornFrame) && !strings.HasPrefix(s, "diag "+CodePartialLine) {
						kept = append(kept, s)
					}
				}
				return kept, unknown
			}
			kept, unknown := split(seen)
			want, wantUnknown := split(want)
			if unknown != wantUnknown || unknown != 2 {
				t.Errorf("unknown events counted %d, want %d", unknown, wantUnknown)
			}
			if !reflect.DeepEqual(kept, want) {
				t.Errorf("incremental reads saw\n%s\nwant\n%s", strings.Join(kept, "\n"), strings.Join(want, "\n"))
			}
			if err := os.WriteFile(path, data[:len(data)/2], 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := Read(path, cur, Options{}, Handler{}); !errors.Is(err, ErrRewritten) {
				t.Errorf("a shrunk log: %v", err)
			}
		})
	}
}

// recordAll writes every callback as a line of text.
func recordAll(seen *[]string) Handler {
	add := func(kind string, v any) error {
		b, _ := json.Marshal(v)
		*seen = append(*seen, kind+" "+string(b))
		return nil
	}
	return Handler{
		Result: func(r *Result) error {
			r.Locator = Locator{}
			return add("result", r)
		},
		Replace: func(r *Replacement) error {
			r.Locator = nil
			return add("replace", r)
		},
		Usage:      func(u Usage) error { return add("usage", u) },
		Compaction: func(c Compaction) error { return add("compaction", c) },
		Subagent:   func(s SubagentLink) error { return add("subagent", s) },
		Diagnostic: func(d Diagnostic) error {
			*seen = append(*seen, "diag "+d.Code+" "+d.Params["type"]+" "+d.Params["count"])
			return nil
		},
	}
}
