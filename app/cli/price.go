package cli

import "fmt"

// runPrice is not written yet; its owner replaces this file.
func runPrice(env Env, args []string) int {
	fmt.Fprintln(env.Stderr, "spillscope price: not available in this build yet")
	return exitFail
}
