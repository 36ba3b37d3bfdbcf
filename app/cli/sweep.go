package cli

import "fmt"

// runSweep is not written yet; its owner replaces this file.
func runSweep(env Env, args []string) int {
	fmt.Fprintln(env.Stderr, "spillscope sweep: not available in this build yet")
	return exitFail
}
