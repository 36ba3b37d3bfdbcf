//go:build !linux

package app

// backgroundThread is a no-op where a thread's priority is not set here.
func backgroundThread() {}
