package cli

import "fmt"

// runLinks is not written yet; its owner replaces this file.
func runLinks(env Env, args []string) int {
	fmt.Fprintln(env.Stderr, "spillscope links: not available in this build yet")
	return exitFail
}
