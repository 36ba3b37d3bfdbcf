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
	for _, name := range []string{"-devserver", "-assetdir", "", "window", "policies"} {
		if IsSubcommand(name) {
			t.Errorf("IsSubcommand(%q) = true", name)
		}
	}
}

// Flags (a Wails dev build's -devserver and -assetdir) and no arguments
// open the window; every bare word is the CLI's, so a mistyped subcommand
// gets an error naming it instead of a window (or, with no display, a GTK
// panic).
func TestHeadless(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{nil, false},
		{[]string{"-devserver", "localhost:34115", "-assetdir", "frontend/dist"}, false},
		{[]string{"-assetdir", "frontend/dist"}, false},
		{[]string{"tokens"}, true},
		{[]string{"--help"}, true},
		{[]string{"version"}, true},
		{[]string{"policies"}, true},
		{[]string{"window"}, true},
		{[]string{""}, true},
	} {
		if got := Headless(tc.args); got != tc.want {
			t.Errorf("Headless(%q) = %v, want %v", tc.args, got, tc.want)
		}
	}
	var out, errb bytes.Buffer
	if code := Run(Env{Stdout: &out, Stderr: &errb}, []string{"policies"}); code != exitUsage {
		t.Errorf("Run(policies) = %d, want %d", code, exitUsage)
	}
	if !strings.Contains(errb.String(), `unknown subcommand "policies"`) || !strings.Contains(errb.String(), "Subcommands:") {
		t.Errorf("Run(policies) stderr = %q, want the unknown subcommand named and the list", errb.String())
	}
}
