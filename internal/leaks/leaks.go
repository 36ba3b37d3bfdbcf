// Package leaks lets a test check that what it started has stopped: no
// goroutine is left running in the named code, and no subprocess outlives
// the test, whichever way it ends.
package leaks

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Settle is how long Check waits for goroutines that are on their way out
// (a closed channel not yet seen, a deferred Close still running).
const Settle = 2 * time.Second

// Check fails t when, after Settle, a goroutine's stack still names any of
// funcs (substrings of function names, such as "sessions.(*Watcher)" or
// "fsnotify"); the message holds those goroutines' stacks.
func Check(t testing.TB, funcs ...string) {
	t.Helper()
	deadline := time.Now().Add(Settle)
	for {
		left := running(funcs)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("%d goroutines still running %v after %v:\n\n%s", len(left), funcs, Settle, strings.Join(left, "\n\n"))
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// running lists the stacks of the goroutines whose stack names any of
// funcs, the caller's own excepted.
func running(funcs []string) []string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var out []string
	for i, g := range bytes.Split(buf, []byte("\n\n")) {
		if i == 0 {
			continue // this goroutine
		}
		s := string(g)
		for _, f := range funcs {
			if strings.Contains(s, f) {
				out = append(out, s)
				break
			}
		}
	}
	return out
}

// Reap makes sure a started subprocess does not outlive t: when t ends
// (a t.Fatal included) one the test did not wait for is killed and
// waited for. The test must not be waiting for it itself by then.
func Reap(t testing.TB, cmd *exec.Cmd) {
	t.Helper()
	t.Cleanup(func() {
		if err := cmd.Process.Kill(); errors.Is(err, os.ErrProcessDone) {
			return
		}
		cmd.Wait()
	})
}
