package dsh

import (
	"bytes"
	"sync"
	"syscall"
	"testing"
	"time"
)

type benchLog struct {
	once      sync.Once
	raw, zstd []byte
	decoded   int64
	results   int
}

var bench benchLog

// data generates the 64 MiB benchmark session once, raw and zstd-framed.
func (l *benchLog) data(b *testing.B) {
	l.once.Do(func() {
		var raw, z bytes.Buffer
		l.decoded, l.results = genSession(b, &raw, 64<<20, false)
		genSession(b, &z, 64<<20, true)
		l.raw, l.zstd = raw.Bytes(), z.Bytes()
		b.Logf("session: %d MiB decoded, %d results; zstd file %d MiB", l.decoded>>20, l.results, len(l.zstd)>>20)
	})
}

// benchRead reads the session from memory; MB/s is of the decoded JSONL,
// so the raw and zstd figures compare directly.
func benchRead(b *testing.B, z bool) {
	bench.data(b)
	data := bench.raw
	if z {
		data = bench.zstd
	}
	b.SetBytes(bench.decoded)
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		n := 0
		p, err := read(bytes.NewReader(data), int64(len(data)), "bench", nil, Options{Home: "/h"},
			Handler{Result: func(*Result) error { n++; return nil }})
		if err != nil {
			b.Fatal(err)
		}
		if n != bench.results || p.Stats.Diagnostics != 0 {
			b.Fatalf("%d results (want %d), %d diagnostics", n, bench.results, p.Stats.Diagnostics)
		}
	}
	// Wall time hides zstd's cost when a second core decodes ahead; the
	// process CPU time per read shows it.
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
}

// cpuTime is the process's user + system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkReadRaw(b *testing.B)  { benchRead(b, false) }
func BenchmarkReadZstd(b *testing.B) { benchRead(b, true) }
