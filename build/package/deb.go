package main

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/goreleaser/nfpm/v2"
	_ "github.com/goreleaser/nfpm/v2/deb" // registers the deb packager
	"github.com/goreleaser/nfpm/v2/files"
	"golang.org/x/image/draw"
)

// Options say what to package and where to put it: the CLI (Binary, built
// without the desktop tags) and the window binary it execs (Window).
type Options struct {
	Binary string
	Window string
	Repo   string
	OutDir string
}

// Where the package installs the two binaries: the CLI on PATH, the window
// where the CLI looks for it (../libexec/spillscope beside its own folder).
const (
	cliPath    = "/usr/bin/spillscope"
	windowPath = "/usr/libexec/spillscope/spillscope-window"
)

// IconSizes are the hicolor sizes the package installs the icon at.
var IconSizes = []int{16, 24, 32, 48, 64, 128, 256, 512}

// Recommends are packages the app works better with: the CJK font the
// Chinese interface (and CJK text inside tool results) renders with.
var Recommends = []string{"fonts-noto-cjk"}

const (
	packageName = "spillscope"
	maintainer  = "Spillscope developers <spillscope@users.noreply.invalid>"
	description = "Review how coding agents' oversized tool results were retained\n" +
		"Spillscope indexes local agent session folders (dsh, Claude Code, Codex CLI,\n" +
		"Gemini CLI and others), replays each harness's retention decision, re-runs it\n" +
		"at any budget, and shows spill files and attachments beside what the model saw."
)

// Build writes the .deb for o and returns its path.
func Build(o Options) (string, error) {
	version, err := binaryVersion(o.Binary)
	if err != nil {
		return "", err
	}
	if err := checkSplit(o.Binary, o.Window); err != nil {
		return "", err
	}
	depends, err := Depends(o.Binary, o.Window)
	if err != nil {
		return "", err
	}
	stage, err := os.MkdirTemp("", "spillscope-pkg-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(stage)
	icons, err := writeIcons(filepath.Join(o.Repo, "build", "appicon.png"), stage)
	if err != nil {
		return "", err
	}
	contents := files.Contents{
		{Source: o.Binary, Destination: cliPath, FileInfo: &files.ContentFileInfo{Mode: 0o755}},
		{Source: o.Window, Destination: windowPath, FileInfo: &files.ContentFileInfo{Mode: 0o755}},
		{Source: filepath.Join(o.Repo, "build", "linux", "spillscope.desktop"), Destination: "/usr/share/applications/spillscope.desktop", FileInfo: &files.ContentFileInfo{Mode: 0o644}},
		{Source: filepath.Join(o.Repo, "LICENSE"), Destination: "/usr/share/doc/spillscope/copyright", FileInfo: &files.ContentFileInfo{Mode: 0o644}},
	}
	for size, src := range icons {
		contents = append(contents, &files.Content{
			Source:      src,
			Destination: fmt.Sprintf("/usr/share/icons/hicolor/%dx%d/apps/spillscope.png", size, size),
			FileInfo:    &files.ContentFileInfo{Mode: 0o644},
		})
	}
	slices.SortFunc(contents, func(a, b *files.Content) int { return strings.Compare(a.Destination, b.Destination) })
	info := nfpm.WithDefaults(&nfpm.Info{
		Name:        packageName,
		Arch:        debArch(runtime.GOARCH),
		Platform:    "linux",
		Version:     version,
		Section:     "devel",
		Priority:    "optional",
		Maintainer:  maintainer,
		Description: description,
		License:     "MIT",
		Overridables: nfpm.Overridables{
			Depends:    depends,
			Recommends: Recommends,
			Contents:   contents,
		},
	})
	// A fixed modification time keeps the package reproducible from the same
	// inputs (SOURCE_DATE_EPOCH, where set, wins as it does for nfpm itself).
	info.MTime = time.Unix(0, 0).UTC()
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		var sec int64
		if _, err := fmt.Sscan(s, &sec); err == nil {
			info.MTime = time.Unix(sec, 0).UTC()
		}
	}
	if err := nfpm.PrepareForPackager(info, "deb"); err != nil {
		return "", fmt.Errorf("prepare: %w", err)
	}
	pkgr, err := nfpm.Get("deb")
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
		return "", err
	}
	out := filepath.Join(o.OutDir, pkgr.ConventionalFileName(info))
	f, err := os.Create(out)
	if err != nil {
		return "", err
	}
	if err := pkgr.Package(info, f); err != nil {
		f.Close()
		os.Remove(out)
		return "", fmt.Errorf("package: %w", err)
	}
	return out, f.Close()
}

// binaryVersion asks the binary itself, so the package and the app's About
// line can never disagree.
func binaryVersion(bin string) (string, error) {
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", bin, err)
	}
	v := strings.TrimSpace(string(out))
	if v == "" || strings.ContainsAny(v, " \n") {
		return "", fmt.Errorf("%s --version printed %q, not a version", bin, out)
	}
	return v, nil
}

// Depends maps the shared libraries the binaries link (ELF NEEDED) to the
// Debian packages that ship them, sorted and without duplicates.
func Depends(bins ...string) ([]string, error) {
	var pkgs []string
	for _, bin := range bins {
		libs, err := linked(bin)
		if err != nil {
			return nil, err
		}
		if len(libs) == 0 {
			return nil, fmt.Errorf("%s links no shared library", bin)
		}
		for _, lib := range libs {
			p, err := packageOf(lib)
			if err != nil {
				return nil, err
			}
			pkgs = append(pkgs, p)
		}
	}
	slices.Sort(pkgs)
	return slices.Compact(pkgs), nil
}

func linked(bin string) ([]string, error) {
	f, err := elf.Open(bin)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", bin, err)
	}
	defer f.Close()
	libs, err := f.ImportedLibraries()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", bin, err)
	}
	return libs, nil
}

// checkSplit refuses binaries built the wrong way round: the CLI must link
// no GUI library (its start is the point of the split) and the window must
// link WebKitGTK.
func checkSplit(cli, window string) error {
	if window == "" {
		return errors.New("no window binary given (-window build/bin/spillscope-window)")
	}
	libs, err := linked(cli)
	if err != nil {
		return err
	}
	for _, l := range libs {
		if strings.HasPrefix(l, "libwebkit2gtk") || strings.HasPrefix(l, "libgtk") {
			return fmt.Errorf("%s links %s: build the CLI without the desktop tags", cli, l)
		}
	}
	libs, err = linked(window)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(libs, func(l string) bool { return strings.HasPrefix(l, "libwebkit2gtk") }) {
		return fmt.Errorf("%s does not link WebKitGTK: not the window build (build it with the desktop tags)", window)
	}
	return nil
}

// packageOf finds the Debian package that ships a library by its soname.
func packageOf(lib string) (string, error) {
	out, err := exec.Command("dpkg-query", "-S", "*/"+lib).Output()
	if err != nil {
		return "", fmt.Errorf("no installed Debian package ships %s (dpkg-query -S): %w", lib, err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		name, _, ok := strings.Cut(line, ": ")
		if !ok || strings.Contains(name, "diversion") {
			continue
		}
		// A multi-arch package is listed as name:arch (and several packages
		// may share a path listing, comma-separated); the first is the owner.
		name, _, _ = strings.Cut(name, ",")
		name, _, _ = strings.Cut(name, ":")
		return strings.TrimSpace(name), nil
	}
	return "", fmt.Errorf("dpkg-query -S %s gave no package", lib)
}

func debArch(goarch string) string {
	switch goarch {
	case "386":
		return "i386"
	case "arm":
		return "armhf"
	}
	return goarch
}

// writeIcons scales the app icon to every hicolor size and returns the files
// by size.
func writeIcons(src, dir string) (map[int]string, error) {
	data, err := os.ReadFile(src)
	if err != nil {
		return nil, err
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	b := img.Bounds()
	if b.Dx() != b.Dy() {
		return nil, errors.New("the app icon is not square")
	}
	out := map[int]string{}
	for _, s := range IconSizes {
		dst := image.NewNRGBA(image.Rect(0, 0, s, s))
		draw.CatmullRom.Scale(dst, dst.Bounds(), img, b, draw.Src, nil)
		p := filepath.Join(dir, fmt.Sprintf("spillscope-%d.png", s))
		var buf bytes.Buffer
		if err := png.Encode(&buf, dst); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			return nil, err
		}
		out[s] = p
	}
	return out, nil
}
