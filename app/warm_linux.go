package app

import (
	"runtime"
	"syscall"
)

// backgroundThread gives the calling goroutine a thread of its own at the
// lowest CPU priority, so a walk yields the cores to the window's calls and
// the page. The goroutine must end without unlocking: Go then ends the
// thread, and no other goroutine ever runs at that priority.
func backgroundThread() {
	runtime.LockOSThread()
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), 19)
}
