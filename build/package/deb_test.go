package main

import (
	"bytes"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// binariesUnderTest are the CLI and window binaries `make test-package`
// passes in. The test is about that real build, so without them there is
// nothing to test.
func binariesUnderTest(t *testing.T) (string, string) {
	t.Helper()
	bin, win := os.Getenv("SPILLSCOPE_BIN"), os.Getenv("SPILLSCOPE_WINDOW_BIN")
	if bin == "" || win == "" {
		t.Skip("SPILLSCOPE_BIN or SPILLSCOPE_WINDOW_BIN is not set: run `make test-package`, which builds both binaries and passes them")
	}
	abs, err := filepath.Abs(bin)
	if err != nil {
		t.Fatal(err)
	}
	absWin, err := filepath.Abs(win)
	if err != nil {
		t.Fatal(err)
	}
	return abs, absWin
}

func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, out.String(), errb.String())
	}
	return out.String()
}

// TestDeb builds the package from the real binaries and checks it the way a
// user's apt would see it: its control fields, its file list, its desktop
// entry, and the binaries run from an extracted copy.
func TestDeb(t *testing.T) {
	bin, win := binariesUnderTest(t)
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if _, err := Build(Options{Binary: win, Window: bin, Repo: repo, OutDir: out}); err == nil || !strings.Contains(err.Error(), "without the desktop tags") {
		t.Errorf("binaries swapped: %v; want the CLI refused for linking GTK", err)
	}
	deb, err := Build(Options{Binary: bin, Window: win, Repo: repo, OutDir: out})
	if err != nil {
		t.Fatal(err)
	}
	version := strings.TrimSpace(run(t, bin, "--version"))
	if want := "spillscope_" + version + "_"; !strings.HasPrefix(filepath.Base(deb), want) {
		t.Errorf("package file %s does not start with %s", filepath.Base(deb), want)
	}

	t.Run("control", func(t *testing.T) {
		info := run(t, "dpkg-deb", "--info", deb)
		for _, want := range []string{"Package: spillscope", "Version: " + version, "Recommends: fonts-noto-cjk", "Section: devel"} {
			if !strings.Contains(info, want) {
				t.Errorf("dpkg-deb --info lacks %q:\n%s", want, info)
			}
		}
		var depends string
		for _, l := range strings.Split(info, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "Depends:") {
				depends = l
			}
		}
		for _, want := range []string{"libgtk-3-0", "libwebkit2gtk-4.1-0", "libc6"} {
			if !strings.Contains(depends, want) {
				t.Errorf("Depends lacks %s: %q", want, depends)
			}
		}
	})

	t.Run("contents", func(t *testing.T) {
		list := run(t, "dpkg-deb", "--contents", deb)
		want := []string{"./usr/bin/spillscope", "./usr/libexec/spillscope/spillscope-window", "./usr/share/applications/spillscope.desktop", "./usr/share/doc/spillscope/copyright"}
		for _, s := range IconSizes {
			want = append(want, "./usr/share/icons/hicolor/"+strconv.Itoa(s)+"x"+strconv.Itoa(s)+"/apps/spillscope.png")
		}
		for _, w := range want {
			if !strings.Contains(list, w) {
				t.Errorf("package lacks %s:\n%s", w, list)
			}
		}
		for _, l := range strings.Split(list, "\n") {
			if (strings.Contains(l, "./usr/bin/spillscope") || strings.Contains(l, "/spillscope-window")) && !strings.HasPrefix(l, "-rwxr-xr-x") {
				t.Errorf("binary is not 0755: %s", l)
			}
		}
	})

	root := t.TempDir()
	run(t, "dpkg-deb", "-x", deb, root)

	t.Run("desktop entry", func(t *testing.T) {
		if _, err := exec.LookPath("desktop-file-validate"); err != nil {
			t.Fatal("desktop-file-validate is missing: build/deps.sh installs desktop-file-utils")
		}
		if out := run(t, "desktop-file-validate", filepath.Join(root, "usr/share/applications/spillscope.desktop")); strings.TrimSpace(out) != "" {
			t.Errorf("desktop-file-validate: %s", out)
		}
	})

	t.Run("icons", func(t *testing.T) {
		for _, s := range IconSizes {
			p := filepath.Join(root, "usr/share/icons/hicolor", strconv.Itoa(s)+"x"+strconv.Itoa(s), "apps/spillscope.png")
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := png.DecodeConfig(f)
			f.Close()
			if err != nil || cfg.Width != s || cfg.Height != s {
				t.Errorf("%s: %dx%d, %v; want %dx%d", p, cfg.Width, cfg.Height, err, s, s)
			}
		}
	})

	t.Run("headless subcommands from the extracted root", func(t *testing.T) {
		exe := filepath.Join(root, "usr/bin/spillscope")
		if got := strings.TrimSpace(run(t, exe, "--version")); got != version {
			t.Errorf("--version %q, want %q", got, version)
		}
		cmd := exec.Command(exe, "tokens")
		cmd.Stdin = strings.NewReader("hello")
		cmd.Env = []string{"HOME=" + t.TempDir()} // no display: it must not need one
		if out, err := cmd.Output(); err != nil || !strings.Contains(string(out), `"tokens"`) {
			t.Errorf("tokens: %s, %v", out, err)
		}
		links := run(t, exe, "links", "https://example.com/a?X-Amz-Signature=abc")
		if !strings.Contains(links, `"shown":false`) || strings.Contains(links, "abc") {
			t.Errorf("links: %s", links)
		}
	})

	// `spillscope` on PATH still opens the window: with no arguments the CLI
	// hands the process to the packaged window binary. On a display that does
	// not exist the window stops at GTK's start, which only the window binary
	// has; with no display at all the launcher says so before it execs.
	t.Run("no arguments open the window", func(t *testing.T) {
		exe := filepath.Join(root, "usr/bin/spillscope")
		const gtk = "failed to init GTK"
		if data, err := os.ReadFile(exe); err != nil || bytes.Contains(data, []byte(gtk)) {
			t.Fatalf("the CLI holds the window's GTK start (%v): not the CLI build", err)
		}
		// A display that does not exist: the launcher execs the window
		// binary, whose GTK start fails.
		noSuchDisplay := "DISPLAY=:7913"
		cmd := exec.Command(exe)
		cmd.Env = []string{"HOME=" + t.TempDir(), noSuchDisplay}
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if err := cmd.Run(); err == nil || !strings.Contains(errb.String(), gtk) {
			t.Errorf("spillscope with no arguments on a display that does not exist: %v, stderr %.300q; want the window binary's GTK failure", err, errb.String())
		}
		// No display at all: the launcher says so itself.
		errb.Reset()
		cmd = exec.Command(exe)
		cmd.Env = []string{"HOME=" + t.TempDir()}
		cmd.Stderr = &errb
		if err := cmd.Run(); err == nil || !strings.Contains(errb.String(), "no display to open the window on") || strings.Contains(errb.String(), gtk) {
			t.Errorf("spillscope with no arguments and no display: %v, stderr %.300q; want the launcher's no-display error", err, errb.String())
		}
		if err := os.Remove(filepath.Join(root, "usr/libexec/spillscope/spillscope-window")); err != nil {
			t.Fatal(err)
		}
		errb.Reset()
		cmd = exec.Command(exe)
		cmd.Env = []string{"HOME=" + t.TempDir(), noSuchDisplay}
		cmd.Stderr = &errb
		if err := cmd.Run(); err == nil || !strings.Contains(errb.String(), "the window is not installed") {
			t.Errorf("without the window binary: %v, stderr %q", err, errb.String())
		}
	})
}
