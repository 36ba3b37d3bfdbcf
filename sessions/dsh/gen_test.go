package dsh

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// wordPool is text that compresses about as well as tool output does.
var wordPool = func() string {
	words := strings.Fields("the of func return if err nil string int package import type struct var for range " +
		"error data line file path test build go mod sum main http server client request response header body " +
		"json value key map slice append len cap make new defer panic recover select case default chan")
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for b.Len() < 4<<20 {
		b.WriteString(words[r.IntN(len(words))])
		if r.IntN(12) == 0 {
			b.WriteByte('\n')
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}()

// genSession writes a v0 session of about target decoded bytes to w, one
// frame per step when z (as dsh's durable batches do): streamed text
// deltas, a packed row, usage, the message, a tool call and a result of
// 1–16 KiB. It returns the decoded size and the number of results.
func genSession(t testing.TB, w io.Writer, target int64, z bool) (int64, int) {
	bw := bufio.NewWriterSize(w, 1<<20)
	var enc *zstd.Encoder
	if z {
		var err error
		enc, err = zstd.NewWriter(nil, zstd.WithEncoderCRC(true), zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedDefault))
		if err != nil {
			t.Fatal(err)
		}
		defer enc.Close()
	}
	r := rand.New(rand.NewPCG(3, 4))
	var batch []byte
	var frame []byte
	var total int64
	flush := func() {
		total += int64(len(batch))
		if z {
			frame = enc.EncodeAll(batch, frame[:0])
			bw.Write(frame)
		} else {
			bw.Write(batch)
		}
		batch = batch[:0]
	}
	line := func(v any) {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		batch = append(append(batch, b...), '\n')
	}
	line(obj{"type": "session", "version": 0, "id": "huge-session", "createdAt": 1, "cwd": "/w", "delegationDepth": 0})
	flush()
	results := 0
	for turn := 1; total < target; turn++ {
		line(obj{"type": "turn/start", "data": obj{"turn": turn}})
		line(obj{"type": "step/start", "data": obj{"turn": turn, "step": 1}})
		chunk := func(c obj) { line(obj{"type": "assistant/chunk", "data": obj{"turn": turn, "step": 1, "chunk": c}}) }
		for range 12 {
			o := r.IntN(len(wordPool) - 64)
			chunk(obj{"type": "text-delta", "index": 0, "text": wordPool[o : o+8+r.IntN(40)]})
		}
		line(obj{"type": "reasoning-chunks", "data": obj{"turn": turn, "step": 1, "index": 1, "dt": []int{3, 4, 5}, "texts": []string{"a", "b", "c", "d"}}})
		call := fmt.Sprintf("call_%d", turn)
		args := `{"command":"grep -rn x ."}`
		chunk(obj{"type": "usage", "usage": obj{"inputTokens": 100 + turn, "outputTokens": 40, "cacheReadTokens": 2000}})
		chunk(obj{"type": "finish", "reason": obj{"kind": "tool-calls"}})
		line(obj{"type": "assistant/message", "data": obj{"turn": turn, "step": 1, "message": obj{"role": "assistant", "id": "a" + call,
			"content": []any{obj{"type": "tool-call", "id": call, "name": "bash", "arguments": args}},
			"source":  obj{"kind": "model", "provider": "deepseek-official", "model": "deepseek-v4-flash"}},
			"usage": obj{"inputTokens": 100 + turn, "outputTokens": 40, "cacheReadTokens": 2000}}, "surfaceOp": "append"})
		line(obj{"type": "tool/call", "data": obj{"turn": turn, "step": 1, "callId": call, "name": "bash", "arguments": args}})
		n := 1024 + r.IntN(15<<10)
		o := r.IntN(len(wordPool) - n)
		line(obj{"type": "tool/result", "data": resultV0(turn, 1, "m"+call, call, text(wordPool[o:o+n])), "surfaceOp": "append"})
		line(obj{"type": "step/end", "data": obj{"turn": turn, "step": 1}})
		line(obj{"type": "turn/end", "data": obj{"turn": turn, "reason": obj{"kind": "completed"}}})
		results++
		flush()
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	return total, results
}
