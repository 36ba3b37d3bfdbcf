package leaks

import (
	"os/exec"
	"testing"
)

// parked blocks until stop closes; its name is what the tests look for.
func parked(started, stop chan struct{}) {
	close(started)
	<-stop
}

// recorder is a testing.TB that keeps whether it failed.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }

func TestCheck(t *testing.T) {
	tests := []struct {
		name  string
		stop  bool // the goroutine is stopped before the check
		fails bool
	}{
		{"stopped", true, false},
		{"left running", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			started, stop := make(chan struct{}), make(chan struct{})
			go parked(started, stop)
			<-started
			if tt.stop {
				close(stop)
			} else {
				defer close(stop)
			}
			r := &recorder{TB: t}
			Check(r, "leaks.parked")
			if r.failed != tt.fails {
				t.Errorf("Check failed: %v, want %v", r.failed, tt.fails)
			}
		})
	}
}

// TestReap: a subprocess the test left running is gone when the test
// ends; one it waited for is left alone.
func TestReap(t *testing.T) {
	tests := []struct {
		name string
		wait bool
	}{
		{"left running", false},
		{"waited for", true},
	}
	for _, tt := range tests {
		var cmd *exec.Cmd
		t.Run(tt.name, func(t *testing.T) {
			cmd = exec.Command("sleep", "60")
			if err := cmd.Start(); err != nil {
				t.Skipf("no sleep to run: %v", err)
			}
			Reap(t, cmd)
			if tt.wait {
				cmd.Process.Kill()
				cmd.Wait()
			}
		})
		if cmd == nil || cmd.Process == nil {
			continue
		}
		// Waited for: it has exited and is reaped.
		if cmd.ProcessState == nil {
			t.Errorf("%s: the subprocess outlived its test", tt.name)
		}
	}
}
