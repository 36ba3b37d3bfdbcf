package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"spillscope/internal/leaks"
	"spillscope/sessions"
)

// lines is a writer a test reads line by line while a command writes.
type lines struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lines) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Split(strings.TrimSuffix(l.buf.String(), "\n"), "\n")
}

// waitLines waits until there are at least n complete lines.
func (l *lines) waitLines(t *testing.T, n int) []string {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		l.mu.Lock()
		s := l.buf.String()
		l.mu.Unlock()
		if strings.Count(s, "\n") >= n {
			return l.all()
		}
	}
	t.Fatalf("fewer than %d lines: %q", n, l.all())
	return nil
}

func resultLine(sid, tid, text string) string {
	b, _ := json.Marshal(map[string]any{"type": "user", "sessionId": sid, "timestamp": "2026-01-01T00:00:02.000Z",
		"message": map[string]any{"role": "user", "content": []any{map[string]any{"tool_use_id": tid, "type": "tool_result", "content": text}}}})
	return string(b) + "\n"
}

func appendLine(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// watchCorpus is one Claude Code transcript under a root.
func watchCorpus(t *testing.T) (root, path string) {
	root = t.TempDir()
	path = filepath.Join(root, "projects", "-w", "s1.jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	appendLine(t, path, resultLine("s1", "toolu_0", "zero"))
	return root, path
}

// TestIndexWatch: index --watch prints its catch-up pass, then one JSON
// line per pass that changed something (what triggered it, the file, its
// rows, the totals), nothing while idle, and ends cleanly with its
// context.
func TestIndexWatch(t *testing.T) {
	root, path := watchCorpus(t)
	db := filepath.Join(t.TempDir(), "index.db")
	out, errb := &lines{}, &lines{}
	ctx, cancel := context.WithCancel(context.Background())
	env := Env{Stdin: strings.NewReader(""), Stdout: out, Stderr: errb, Getenv: func(string) string { return "" }, Context: ctx}
	code := make(chan int, 1)
	go func() { code <- Run(env, []string{"index", "--watch", "--db", db, root}) }()
	first := out.waitLines(t, 1)
	var start sessions.WatchPass
	if err := json.Unmarshal([]byte(first[0]), &start); err != nil || start.Trigger != sessions.TriggerStart || start.Totals.ToolResults != 1 ||
		len(start.Files) != 1 || start.Totals.PerHarness[sessions.HarnessClaude].Files != 1 {
		t.Fatalf("first line %q: %v", first[0], err)
	}
	// The folders were watched before that pass: a line written now is
	// the next pass's.
	appendLine(t, path, resultLine("s1", "toolu_1", "one"))
	got := out.waitLines(t, 2)
	var p sessions.WatchPass
	if err := json.Unmarshal([]byte(got[1]), &p); err != nil {
		t.Fatalf("pass line %q: %v", got[1], err)
	}
	if p.Trigger != sessions.TriggerChange || len(p.Files) != 1 || p.Files[0] != path || len(p.Sessions) != 1 || len(p.Results) != 1 || p.Totals.ToolResults != 2 || p.Error != "" {
		t.Errorf("pass %+v", p)
	}
	// Nothing changes: nothing is printed.
	time.Sleep(500 * time.Millisecond)
	if n := len(out.all()); n != 2 {
		t.Errorf("%d lines while idle: %q", n, out.all())
	}
	cancel()
	select {
	case c := <-code:
		if c != exitOK {
			t.Errorf("exit %d: %s", c, errb.all())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("index --watch did not end with its context")
	}
	leaks.Check(t, "sessions.(*Watcher)", "sessions.(*watchLoop)", "fsnotify", "cli.watchIndex")
}

const watchSignalEnv = "SPILLSCOPE_CLI_WATCH_HELPER"

// TestIndexWatchHelper is the subprocess of TestIndexWatchSignal: index
// --watch as main runs it, ended by a signal.
func TestIndexWatchHelper(t *testing.T) {
	spec := os.Getenv(watchSignalEnv)
	if spec == "" {
		t.Skip("subprocess of TestIndexWatchSignal")
	}
	db, root, _ := strings.Cut(spec, "|")
	os.Exit(Run(Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}, []string{"index", "--watch", "--db", db, root}))
}

// TestIndexWatchSignal: SIGTERM and SIGINT end index --watch with exit 0,
// after what it printed.
func TestIndexWatchSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("runs subprocesses")
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			root, path := watchCorpus(t)
			cmd := exec.Command(os.Args[0], "-test.run=^TestIndexWatchHelper$", "-test.count=1")
			cmd.Env = append(os.Environ(), watchSignalEnv+"="+filepath.Join(t.TempDir(), "index.db")+"|"+root)
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			leaks.Reap(t, cmd)
			sc := bufio.NewScanner(stdout)
			if !sc.Scan() || !strings.Contains(sc.Text(), `"trigger":"start"`) {
				t.Fatalf("first line %q", sc.Text())
			}
			appendLine(t, path, resultLine("s1", "toolu_1", "one"))
			if !sc.Scan() || !strings.Contains(sc.Text(), `"trigger":"change"`) {
				t.Fatalf("pass line %q", sc.Text())
			}
			cmd.Process.Signal(sig)
			go io.Copy(io.Discard, stdout)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("after %s: %v", sig, err)
				}
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("index --watch still running after %s", sig)
			}
		})
	}
}

// TestWatchLimitLine: a watch that cannot see every folder is worded with
// the setting to raise and how; a full watch says nothing.
func TestWatchLimitLine(t *testing.T) {
	for _, tc := range []struct {
		name string
		st   sessions.WatchStatus
		want []string
	}{
		{"live", sessions.WatchStatus{State: sessions.WatchLive, Folders: 9}, nil},
		{"limited", sessions.WatchStatus{State: sessions.WatchLimited, Folders: 9, Unwatched: 3, EverySeconds: 10, Setting: sessions.SettingMaxWatches, Detail: "no space left on device"},
			[]string{"9 folders are watched", "every 10s", "fs.inotify.max_user_watches", "sudo sysctl fs.inotify.max_user_watches=", "/etc/sysctl.d/", "no space left"}},
		{"polling", sessions.WatchStatus{State: sessions.WatchPolling, EverySeconds: 10, Setting: sessions.SettingMaxInstances, Detail: "too many open files"},
			[]string{"no file notifications", "every 10s", "fs.inotify.max_user_instances"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := watchLimitLine(tc.st)
			if tc.want == nil && got != "" {
				t.Errorf("%q, want nothing", got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("%q lacks %q", got, w)
				}
			}
		})
	}
}
