package cli

import "fmt"

// runSample is not written yet; its owner replaces this file.
func runSample(env Env, args []string) int {
	fmt.Fprintln(env.Stderr, "spillscope sample: not available in this build yet")
	return exitFail
}
