package cli

import "fmt"

// runRetain is not written yet; its owner replaces this file.
func runRetain(env Env, args []string) int {
	fmt.Fprintln(env.Stderr, "spillscope retain: not available in this build yet")
	return exitFail
}
