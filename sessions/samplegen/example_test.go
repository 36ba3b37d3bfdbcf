package samplegen_test

import (
	"fmt"
	"os"
	"path/filepath"

	"spillscope/sessions/samplegen"
)

// Generate writes the bundled sample and says what it wrote; an indexer test
// compares its own totals with the manifest.
func ExampleGenerate() {
	tmp, err := os.MkdirTemp("", "samplegen-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(tmp)
	m, err := samplegen.Generate(filepath.Join(tmp, "corpus"), samplegen.Options{Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("sessions:", m.Sessions, "tool results:", m.ToolResults, "images:", m.ToolResultImages,
		"spill notices:", m.SpillNotices, "bad lines:", m.BadLines)
	c := m.PerHarness[samplegen.HarnessClaude]
	fmt.Println("claude subagents:", c.Subagents, "missing spill files:", c.SpillFilesMissing, "invalid images:", c.InvalidImages)
	// Output:
	// sessions: 14 tool results: 58 images: 10 spill notices: 19 bad lines: 3
	// claude subagents: 1 missing spill files: 1 invalid images: 1
}
