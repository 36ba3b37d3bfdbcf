package sessions

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func readAll(t testing.TB, in string, off, line int64) []Line {
	t.Helper()
	lr := NewLineReader(strings.NewReader(in), off, line)
	var out []Line
	for {
		l, err := lr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		l.Bytes = append([]byte(nil), l.Bytes...)
		out = append(out, l)
	}
}

func TestLineReader(t *testing.T) {
	long := strings.Repeat("z", 700<<10) // several buffer fills
	tests := []struct {
		name      string
		in        string
		off, line int64
		want      []Line
	}{
		{"empty", "", 0, 1, nil},
		{"two lines", "a\nbc\n", 0, 1, []Line{{Bytes: []byte("a"), Offset: 0, Number: 1, Length: 2, Complete: true}, {Bytes: []byte("bc"), Offset: 2, Number: 2, Length: 3, Complete: true}}},
		{"crlf", "a\r\nb\n", 0, 1, []Line{{Bytes: []byte("a"), Offset: 0, Number: 1, Length: 3, Complete: true}, {Bytes: []byte("b"), Offset: 3, Number: 2, Length: 2, Complete: true}}},
		{"unterminated last line", "a\nb", 0, 1, []Line{{Bytes: []byte("a"), Offset: 0, Number: 1, Length: 2, Complete: true}, {Bytes: []byte("b"), Offset: 2, Number: 2, Length: 1, Complete: false}}},
		{"resumed offsets", "x\n", 100, 7, []Line{{Bytes: []byte("x"), Offset: 100, Number: 7, Length: 2, Complete: true}}},
		{"line longer than the buffer", long + "\nq\n", 0, 1, []Line{{Bytes: []byte(long), Offset: 0, Number: 1, Length: int64(len(long)) + 1, Complete: true}, {Bytes: []byte("q"), Offset: int64(len(long)) + 1, Number: 2, Length: 2, Complete: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := readAll(t, tt.in, tt.off, tt.line)
			if len(got) != len(tt.want) {
				t.Fatalf("%d lines, want %d", len(got), len(tt.want))
			}
			for i := range got {
				g, w := got[i], tt.want[i]
				if !bytes.Equal(g.Bytes, w.Bytes) || g.Offset != w.Offset || g.Number != w.Number || g.Length != w.Length || g.Complete != w.Complete {
					t.Errorf("line %d: got {%d bytes off %d n %d len %d complete %v}, want {%d bytes off %d n %d len %d complete %v}", i,
						len(g.Bytes), g.Offset, g.Number, g.Length, g.Complete, len(w.Bytes), w.Offset, w.Number, w.Length, w.Complete)
				}
			}
		})
	}
}
