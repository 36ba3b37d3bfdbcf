package sessions

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"testing"
	"time"
)

// BenchmarkWatchLatency times a result from the write of its line to the
// watcher's report of it: the structure phase (the row is in, as the
// window's event says) and the whole pass (counted and searchable). It
// reports the 50th and 95th percentiles in ms.
func BenchmarkWatchLatency(b *testing.B) {
	root := b.TempDir()
	path := filepath.Join(root, "projects", "-w", "s.jsonl")
	writeFile(b, path, cResult("s", "toolu_0", "zero"))
	d, err := Open(filepath.Join(b.TempDir(), "index.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	changed, passed := make(chan time.Time, 16), make(chan time.Time, 16)
	w := NewWatcher(d, []string{root}, WatchOptions{CatchUp: true, Enrich: EnrichOptions{Workers: 1},
		OnChange: func(WatchPass) { changed <- time.Now() },
		OnPass:   func(WatchPass) { passed <- time.Now() },
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	defer func() { cancel(); <-done }()
	<-passed // the catch-up pass, which wrote the first file
	<-changed
	text := fmt.Sprintf("%0512d", 0)
	var rows, whole []float64
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		id := fmt.Sprintf("toolu_%d", i+1)
		start := time.Now()
		appendFile(b, path, cAssistant("s", "m"+id, "r", id, "Bash", 1)+cResult("s", id, text))
		rows = append(rows, float64((<-changed).Sub(start).Microseconds())/1000)
		whole = append(whole, float64((<-passed).Sub(start).Microseconds())/1000)
	}
	b.StopTimer()
	b.ReportMetric(pctl(rows, 50), "rows-p50-ms")
	b.ReportMetric(pctl(rows, 95), "rows-p95-ms")
	b.ReportMetric(pctl(whole, 50), "pass-p50-ms")
	b.ReportMetric(pctl(whole, 95), "pass-p95-ms")
}

func pctl(xs []float64, p int) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[min(len(s)-1, len(s)*p/100)]
}
