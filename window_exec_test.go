//go:build !desktop && !dev && !bindings

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWindowBinary(t *testing.T) {
	write := func(t *testing.T, p string, mode os.FileMode) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name  string
		files map[string]os.FileMode // relative to the root; the CLI is bin/spillscope
		want  string                 // relative to the root; "" for an error
	}{
		{"beside it", map[string]os.FileMode{"bin/spillscope-window": 0o755, "libexec/spillscope/spillscope-window": 0o755}, "bin/spillscope-window"},
		{"the package's libexec", map[string]os.FileMode{"libexec/spillscope/spillscope-window": 0o755}, "libexec/spillscope/spillscope-window"},
		{"not executable", map[string]os.FileMode{"bin/spillscope-window": 0o644}, ""},
		{"missing", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			exe := filepath.Join(root, "bin", "spillscope")
			write(t, exe, 0o755)
			for p, mode := range tt.files {
				write(t, filepath.Join(root, p), mode)
			}
			got, err := windowBinary(exe)
			if tt.want == "" {
				if err == nil || !strings.Contains(err.Error(), "the window is not installed") {
					t.Fatalf("windowBinary = %q, %v; want the not-installed error", got, err)
				}
				return
			}
			if err != nil || got != filepath.Join(root, tt.want) {
				t.Fatalf("windowBinary = %q, %v; want %s", got, err, filepath.Join(root, tt.want))
			}
		})
	}
	t.Run("through a symlink on PATH", func(t *testing.T) {
		root := t.TempDir()
		write(t, filepath.Join(root, "opt/spillscope/spillscope"), 0o755)
		write(t, filepath.Join(root, "opt/spillscope/spillscope-window"), 0o755)
		link := filepath.Join(root, "bin", "spillscope")
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(root, "opt/spillscope/spillscope"), link); err != nil {
			t.Fatal(err)
		}
		got, err := windowBinary(link)
		if err != nil || got != filepath.Join(root, "opt/spillscope/spillscope-window") {
			t.Fatalf("windowBinary = %q, %v", got, err)
		}
	})
}
