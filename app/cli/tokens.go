package cli

import "fmt"

// runTokens is not written yet; its owner replaces this file.
func runTokens(env Env, args []string) int {
	fmt.Fprintln(env.Stderr, "spillscope tokens: not available in this build yet")
	return exitFail
}
