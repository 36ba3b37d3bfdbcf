// Package startuptrace notes the moments of a window's start in a file, for
// the first-paint trace (frontend/e2e/startup.test.mjs): the window binary
// and the empty-page floor it is compared with write the same lines.
package startuptrace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// Env names the file a window appends its start-up moments to; unset,
// nothing is traced and nothing is written.
const Env = "SPILLSCOPE_TRACE_STARTUP"

// EventPageMarks is the event a page emits once its first rows have
// painted, with PageMarks' JSON as its payload.
const EventPageMarks = "startup:marks"

// Trace writes one JSON line per moment: {"mark", "ms" since the process
// started, "mono" (CLOCK_MONOTONIC in ns, for a harness that timed the
// exec itself)}. A nil *Trace traces nothing, so callers call it
// unconditionally.
type Trace struct {
	mu sync.Mutex
	f  *os.File
	// startNs is the process's start on CLOCK_BOOTTIME (the kernel's
	// clock for /proc/self/stat), to its 10 ms clock ticks.
	startNs int64
	// bootMinusMono converts CLOCK_MONOTONIC to CLOCK_BOOTTIME.
	bootMinusMono int64
}

// Open opens the trace file getenv(Env) names (nil when unset). It fails
// only when that file cannot be appended to or the process's start cannot
// be read.
func Open(getenv func(string) string) (*Trace, error) {
	path := getenv(Env)
	if path == "" {
		return nil, nil
	}
	start, err := processStartNs()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Env, err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Env, err)
	}
	boot, mono := clockNs(unix.CLOCK_BOOTTIME), clockNs(unix.CLOCK_MONOTONIC)
	return &Trace{f: f, startNs: start, bootMinusMono: boot - mono}, nil
}

// Mark notes that name happened now.
func (t *Trace) Mark(name string) {
	if t == nil {
		return
	}
	t.write(Line{Mark: name}, clockNs(unix.CLOCK_MONOTONIC))
}

// Line is one line of the trace file.
type Line struct {
	Mark string `json:"mark"`
	// Ms is the moment in milliseconds since the process started.
	Ms float64 `json:"ms"`
	// Mono is the moment on CLOCK_MONOTONIC, in nanoseconds.
	Mono int64 `json:"mono"`
	// Value is what the page said with the mark (the first row's id).
	Value string `json:"value,omitempty"`
}

func (t *Trace) write(l Line, mono int64) {
	l.Ms = float64(mono+t.bootMinusMono-t.startNs) / 1e6
	l.Mono = mono
	line, _ := json.Marshal(l)
	t.mu.Lock()
	defer t.mu.Unlock()
	_, _ = t.f.Write(append(line, '\n'))
}

// PageMarks is what a page sends (EventPageMarks) once its first rows have
// painted.
type PageMarks struct {
	// Marks are the page's moments in its performance.now() milliseconds.
	Marks map[string]float64 `json:"marks"`
	// Now is performance.now() when the page sent them.
	Now float64 `json:"now"`
	// First names the first row painted (its result or session id).
	First string `json:"first"`
}

// Page notes a page's moments as they arrive (data is the event's payload,
// PageMarks as the runtime decoded it). Each is placed Now - mark before the
// arrival, so the one-way delay of the message makes them late, never early.
func (t *Trace) Page(data any) {
	if t == nil {
		return
	}
	arrived := clockNs(unix.CLOCK_MONOTONIC)
	raw, err := json.Marshal(data)
	if err != nil {
		return
	}
	var m PageMarks
	if err := json.Unmarshal(raw, &m); err != nil {
		t.write(Line{Mark: "page:unreadable", Value: err.Error()}, arrived)
		return
	}
	for name, at := range m.Marks {
		t.write(Line{Mark: "page:" + name}, arrived-int64((m.Now-at)*1e6))
	}
	t.write(Line{Mark: "page:arrived", Value: m.First}, arrived)
}

// Close closes the trace file.
func (t *Trace) Close() error {
	if t == nil {
		return nil
	}
	return t.f.Close()
}

func clockNs(clock int32) int64 {
	var ts unix.Timespec
	_ = unix.ClockGettime(clock, &ts)
	return ts.Nano()
}

// processStartNs reads this process's start (field 22 of /proc/self/stat,
// clock ticks since boot) in ns on CLOCK_BOOTTIME.
func processStartNs() (int64, error) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, err
	}
	return parseStartNs(b)
}

func parseStartNs(stat []byte) (int64, error) {
	// The command name (field 2) may hold spaces and parentheses: count
	// from its last ")".
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/self/stat: no command name")
	}
	fields := bytes.Fields(stat[i+1:])
	// Field 3 (state) is fields[0]; field 22 (starttime) is fields[19].
	if len(fields) < 20 {
		return 0, fmt.Errorf("/proc/self/stat: %d fields after the command name, want 20 or more", len(fields))
	}
	ticks, err := strconv.ParseInt(string(fields[19]), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("/proc/self/stat: starttime %q: %w", fields[19], err)
	}
	// Linux reports starttime in USER_HZ, 100 on every architecture Go
	// builds for.
	return ticks * 1e7, nil
}
