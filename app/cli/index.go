package cli

import "fmt"

// runIndex is not written yet; its owner replaces this file.
func runIndex(env Env, args []string) int {
	fmt.Fprintln(env.Stderr, "spillscope index: not available in this build yet")
	return exitFail
}
