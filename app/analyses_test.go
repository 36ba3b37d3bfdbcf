package app

import (
	"testing"

	"spillscope/sessions"
)

// The cache keeps at most its count of Analyses and, beside the newest,
// at most maxCachedBytes of their results: one huge result evicts the
// others, and the next huge one evicts it.
func TestAnalysisCacheBoundsBytes(t *testing.T) {
	entry := func(id, size int64) *cached {
		row := &sessions.ResultRow{ID: id, TextBytes: size}
		row.Length = size + 100
		return &cached{key: analysisKey{resultID: id}, row: row}
	}
	tests := []struct {
		name  string
		sizes []int64
		want  []int64 // ids left, newest first
	}{
		{"small ones up to the count", []int64{1 << 10, 1 << 10, 1 << 10, 1 << 10}, []int64{4, 3, 2}},
		{"a huge one evicts the rest", []int64{1 << 20, 1 << 20, 50 << 20}, []int64{3, 2, 1}},
		{"a second huge one evicts the first", []int64{50 << 20, 1 << 20, 50 << 20}, []int64{3, 2}},
		{"over the bound together", []int64{20 << 20, 20 << 20, 20 << 20}, []int64{3, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newAnalysisCache(3)
			for i, n := range tt.sizes {
				c.put(entry(int64(i+1), n))
			}
			var got []int64
			for e := c.order.Front(); e != nil; e = e.Next() {
				got = append(got, e.Value.(*cached).key.resultID)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("cache holds %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("cache holds %v, want %v", got, tt.want)
				}
			}
			var sum int64
			for _, id := range got {
				sum += tt.sizes[id-1] + 100
			}
			if c.bytes != sum {
				t.Errorf("cache counts %d bytes, holds %d", c.bytes, sum)
			}
		})
	}
}
