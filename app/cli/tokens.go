package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"spillscope/retention"
)

const tokensUsage = `usage: spillscope tokens [--encoding E] [FILE...]

Prints the text token estimate of each FILE (or of standard input when no
FILE is given, or for a FILE of "-") as JSON lines: file, bytes, tokens.
Invalid UTF-8 is counted as one U+FFFD per invalid byte, as the tokenizer
reads it. A file that cannot be read is reported on stderr and skipped; the
exit status is then 1.

Flags:
`

// tokensLine is one file's figure as `spillscope tokens` prints it.
type tokensLine struct {
	File     string `json:"file"`
	Bytes    int    `json:"bytes"`
	Tokens   int    `json:"tokens"`
	Encoding string `json:"encoding"`
}

// runTokens prints the text estimate of files or stdin.
func runTokens(env Env, args []string) int {
	fs := flag.NewFlagSet("tokens", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	encoding := fs.String("encoding", retention.DefaultEncoding, "text encoding: o200k_base or cl100k_base")
	files, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(env.Stdout, tokensUsage)
		fs.SetOutput(env.Stdout)
		fs.PrintDefaults()
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "spillscope tokens: %v\n", err)
		fmt.Fprintln(env.Stderr, "Run 'spillscope tokens -h' for usage.")
		return exitUsage
	}
	if err := retention.ValidEncoding(*encoding); err != nil {
		fmt.Fprintf(env.Stderr, "spillscope tokens: --encoding: %v\n", err)
		return exitUsage
	}
	if len(files) == 0 {
		files = []string{"-"}
	}
	code := exitOK
	for _, f := range files {
		data, err := readText(f, env.Stdin)
		if err != nil {
			fmt.Fprintf(env.Stderr, "spillscope tokens: %s: %v\n", f, err)
			code = exitFail
			continue
		}
		n, err := retention.CountTokens(*encoding, data)
		if err != nil {
			fmt.Fprintf(env.Stderr, "spillscope tokens: %s: %v\n", f, err)
			code = exitFail
			continue
		}
		if err := writeJSON(env.Stdout, tokensLine{File: f, Bytes: len(data), Tokens: n, Encoding: *encoding}); err != nil {
			fmt.Fprintf(env.Stderr, "spillscope tokens: %v\n", err)
			return exitFail
		}
	}
	return code
}

// readText reads a file ("-" for stdin) into a string without the second
// copy a []byte-to-string conversion makes: a 50 MB input costs 50 MB.
func readText(name string, stdin io.Reader) (string, error) {
	var b strings.Builder
	r := stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return "", err
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			b.Grow(int(fi.Size()))
		}
		r = f
	}
	_, err := io.Copy(&b, r)
	return b.String(), err
}
