// Command gen writes the vocabulary tables of package vocab from
// tiktoken-go's offline vocabularies. `go generate ./retention/...` runs it
// in the package directory; the output depends only on the vocabularies, so
// running it twice writes the same bytes.
package main

import (
	"fmt"
	"os"
	"sort"

	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"

	"spillscope/retention/internal/vocab"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "vocab/gen:", err)
		os.Exit(1)
	}
}

func run() error {
	encodings := make([]string, 0, len(vocab.Files))
	for enc := range vocab.Files {
		encodings = append(encodings, enc)
	}
	sort.Strings(encodings)
	for _, enc := range encodings {
		out, source := vocab.Files[enc][0], vocab.Files[enc][1]
		ranks, err := tiktoken_loader.NewOfflineLoader().LoadTiktokenBpe(source)
		if err != nil {
			return fmt.Errorf("%s: %w", source, err)
		}
		data, err := vocab.Build(ranks)
		if err != nil {
			return fmt.Errorf("%s: %w", source, err)
		}
		if err := os.WriteFile(out, data, 0o644); err != nil {
			return err
		}
		fmt.Printf("%s: %d tokens, %d bytes\n", out, len(ranks), len(data))
	}
	return nil
}
