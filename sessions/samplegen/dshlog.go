package samplegen

import (
	"encoding/json"
	"fmt"

	"github.com/klauspost/compress/zstd"
)

// DshLog builds a dsh session log the way dsh's durable writer does
// (FORMATS.md section 5): line 1 the session header, then one event per
// line with seq counted from 0 and a time in ms; as zstd, frame 1 holds
// the header alone and each durable batch one independent frame with its
// content checksum. Take hands out what was written since the last Take,
// so a test can append frames to a log between two index passes.
type DshLog struct {
	zstd  bool
	enc   *zstd.Encoder
	batch []byte
	out   []byte
	seq   int64
	time  int64
}

// NewDshLog starts a log with its header (an object, encoded as given).
func NewDshLog(header any, compressed bool) (*DshLog, error) {
	l := &DshLog{zstd: compressed}
	if compressed {
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(true), zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedDefault))
		if err != nil {
			return nil, fmt.Errorf("samplegen: zstd: %w", err)
		}
		l.enc = enc
	}
	b, err := encodeAny(header)
	if err != nil {
		return nil, err
	}
	l.batch = append(append(l.batch, b...), '\n')
	l.EndBatch()
	return l, nil
}

// encodeAny encodes the generator's ordered objects as JavaScript would,
// and anything else with encoding/json.
func encodeAny(v any) ([]byte, error) {
	if x, ok := v.(obj); ok {
		return appendJSON(nil, x), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("samplegen: dsh event: %w", err)
	}
	return b, nil
}

// At sets the time (ms since the epoch) of the next event.
func (l *DshLog) At(ms int64) { l.time = ms }

// Seq is the seq the next event gets.
func (l *DshLog) Seq() int64 { return l.seq }

// Event appends one event (type, seq, time, data, then the envelope's
// other members as key, value pairs: surfaceOp, sourceEventSeqs) and
// returns its seq. Time moves on by 1 ms per event unless At sets it.
func (l *DshLog) Event(typ string, data any, envelope ...any) int64 {
	seq := l.seq
	l.seq++
	d, err := encodeAny(data)
	if err != nil {
		panic(err) // the generator builds every value itself
	}
	ev := o("type", typ, "seq", seq, "time", l.time, "data", rawJSON(d))
	for i := 0; i+1 < len(envelope); i += 2 {
		v, err := encodeAny(envelope[i+1])
		if err != nil {
			panic(err)
		}
		ev = ev.with(envelope[i].(string), rawJSON(v))
	}
	l.time++
	l.batch = appendJSON(l.batch, ev)
	l.batch = append(l.batch, '\n')
	return seq
}

// EndBatch closes the current batch: one zstd frame, or nothing more for
// a raw log (its lines are already whole).
func (l *DshLog) EndBatch() {
	if len(l.batch) == 0 {
		return
	}
	if l.zstd {
		l.out = l.enc.EncodeAll(l.batch, l.out)
	} else {
		l.out = append(l.out, l.batch...)
	}
	l.batch = l.batch[:0]
}

// Take closes the current batch and returns the bytes written since the
// last Take.
func (l *DshLog) Take() []byte {
	l.EndBatch()
	out := l.out
	l.out = nil
	return out
}

// Close releases the encoder.
func (l *DshLog) Close() {
	if l.enc != nil {
		l.enc.Close()
	}
}
