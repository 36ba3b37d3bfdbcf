package cli

import (
	"bytes"
	"strings"
	"testing"
)

func TestDispatch(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  string
		wantErr  string
	}{
		{"no args prints usage", nil, exitOK, "Subcommands:", ""},
		{"help", []string{"-h"}, exitOK, "retain", ""},
		{"version", []string{"version"}, exitOK, Version, ""},
		{"unknown", []string{"frobnicate"}, exitUsage, "", `unknown subcommand "frobnicate"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := Run(Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb}, tt.args)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d (stderr %q)", code, tt.wantCode, errb.String())
			}
			if !strings.Contains(out.String(), tt.wantOut) {
				t.Errorf("stdout %q lacks %q", out.String(), tt.wantOut)
			}
			if !strings.Contains(errb.String(), tt.wantErr) {
				t.Errorf("stderr %q lacks %q", errb.String(), tt.wantErr)
			}
		})
	}
}

func TestIsSubcommand(t *testing.T) {
	for _, name := range []string{"retain", "price", "tokens", "links", "index", "sweep", "sample", "-h", "version"} {
		if !IsSubcommand(name) {
			t.Errorf("IsSubcommand(%q) = false", name)
		}
	}
	// Wails dev builds take -devserver/-assetdir flags: they must open the window.
	for _, name := range []string{"-devserver", "-assetdir", "", "window"} {
		if IsSubcommand(name) {
			t.Errorf("IsSubcommand(%q) = true", name)
		}
	}
}
