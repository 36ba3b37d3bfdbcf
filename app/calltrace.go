package app

import (
	"fmt"
	"os"
	"runtime/metrics"
	"strings"
	"time"
)

// traceCalls turns on one stderr line per re-run binding call
// (SPILLSCOPE_TRACE_CALLS=1), so the browser trace can split a slow
// interaction into the time Go spent, garbage collections included, and
// the rest (transport, queueing, the page's own work).
var traceCalls = os.Getenv("SPILLSCOPE_TRACE_CALLS") == "1"

// callTrace is one traced call's start: the clock and the collector's
// counters then.
type callTrace struct {
	name string
	t0   time.Time
	gc   [2]metrics.Sample
	// phases are the named steps' times, in the order marked.
	phases []string
	last   time.Time
}

// mark ends a named step of the call.
func (c *callTrace) mark(step string) {
	if c == nil {
		return
	}
	now := time.Now()
	from := c.last
	if from.IsZero() {
		from = c.t0
	}
	c.phases = append(c.phases, fmt.Sprintf("%s=%.3f", step, float64(now.Sub(from).Microseconds())/1000))
	c.last = now
}

func gcSamples() [2]metrics.Sample {
	s := [2]metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}, {Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s[:])
	return s
}

// startCall notes the window's call (the background walk waits for a
// pause in them) and returns nil unless calls are traced.
func startCall(name string) *callTrace {
	noteCall()
	if !traceCalls {
		return nil
	}
	return &callTrace{name: name, t0: time.Now(), gc: gcSamples()}
}

// done prints what the call took: wall time, collections and bytes allocated.
func (c *callTrace) done() {
	if c == nil {
		return
	}
	d := time.Since(c.t0)
	now := gcSamples()
	fmt.Fprintf(os.Stderr, "spillscope-trace call=%s go_ms=%.3f gcs=%d alloc_kb=%d %s\n", c.name, float64(d.Microseconds())/1000,
		now[0].Value.Uint64()-c.gc[0].Value.Uint64(), (now[1].Value.Uint64()-c.gc[1].Value.Uint64())>>10, strings.Join(c.phases, " "))
}
