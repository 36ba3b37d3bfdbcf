package dsh

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// hugeLog writes a 1 GiB (decoded) zstd session to dir.
func hugeLog(tb testing.TB, dir string) (path string, decoded int64, results int) {
	path = filepath.Join(dir, "session.jsonl.zstd")
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	decoded, results = genSession(tb, f, 1<<30, true)
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return path, decoded, results
}

// peakHeap samples the heap while fn runs and returns its peak.
func peakHeap(fn func()) uint64 {
	runtime.GC()
	debug.FreeOSMemory()
	var peak uint64
	var mu sync.Mutex
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			mu.Lock()
			peak = max(peak, ms.HeapInuse)
			mu.Unlock()
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	fn()
	close(stop)
	<-done
	return peak
}

// peakRSS is the process's resident high-water mark (Linux), after
// resetPeakRSS.
func peakRSS() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// maxHugeHeap bounds the heap while a 1 GiB log is read: a few frame
// buffers, one line, the fold state. Holding the log would need > 1 GiB.
const maxHugeHeap = 128 << 20

// TestHugeSessionBoundedMemory streams a 1 GiB session and checks that
// everything is read while the heap stays bounded. It writes about 300 MB
// to a temporary folder, so it is skipped with -short and under -race
// (which changes memory use and takes minutes).
func TestHugeSessionBoundedMemory(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("1 GiB session: skipped with -short and -race")
	}
	path, decoded, results := hugeLog(t, t.TempDir())
	st, _ := os.Stat(path)
	var p Pass
	var n int
	var err error
	resetPeakRSS()
	start := time.Now()
	heap := peakHeap(func() {
		p, err = Read(path, nil, Options{}, Handler{Result: func(*Result) error { n++; return nil }})
	})
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if n != results || p.Stats.Bytes != decoded || p.Stats.Diagnostics != 0 {
		t.Errorf("read %d results of %d, %d bytes of %d, %d diagnostics", n, results, p.Stats.Bytes, decoded, p.Stats.Diagnostics)
	}
	t.Logf("1 GiB session (%d MiB zstd, %d frames, %d results): read in %v (%.0f MB/s), peak heap %d MiB, peak RSS %d MiB",
		st.Size()>>20, p.Stats.Frames, n, elapsed.Round(time.Millisecond), float64(decoded)/1e6/elapsed.Seconds(), heap>>20, peakRSS()>>20)
	if heap > maxHugeHeap {
		t.Errorf("peak heap %d MiB reading a 1 GiB log, want at most %d MiB", heap>>20, maxHugeHeap>>20)
	}
}

// BenchmarkReadZstd1GiB reports the same read as a benchmark, with its
// peak heap as a metric.
func BenchmarkReadZstd1GiB(b *testing.B) {
	path, decoded, results := hugeLog(b, b.TempDir())
	b.SetBytes(decoded)
	b.ReportAllocs()
	var heap uint64
	b.ResetTimer()
	for b.Loop() {
		n := 0
		h := peakHeap(func() {
			if _, err := Read(path, nil, Options{}, Handler{Result: func(*Result) error { n++; return nil }}); err != nil {
				b.Fatal(err)
			}
		})
		heap = max(heap, h)
		if n != results {
			b.Fatalf("%d results, want %d", n, results)
		}
	}
	b.ReportMetric(float64(heap)/(1<<20), "peak-heap-MiB")
}
