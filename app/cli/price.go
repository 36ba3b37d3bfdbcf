package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"spillscope/retention"
	"spillscope/retention/imagecost"
)

// priceLine is one image's figure as `spillscope price` prints it.
type priceLine struct {
	File      string `json:"file"`
	Format    string `json:"format"`
	MediaType string `json:"mediaType"`
	Width     int    `json:"width"`
	Height    int    `json:"height"`
	// RequestWidth and RequestHeight are the size the route sends the image
	// at (dsh's DeepSeek routes project it; others send it as it is), which
	// Tokens prices.
	RequestWidth  int    `json:"requestWidth"`
	RequestHeight int    `json:"requestHeight"`
	Route         string `json:"route"`
	Estimator     string `json:"estimator"`
	Tokens        int    `json:"tokens"`
}

// routeLine is one route as `spillscope price --routes` prints it.
type routeLine struct {
	Name      string `json:"name"`
	Provider  string `json:"provider"`
	Estimator string `json:"estimator"`
	Priced    bool   `json:"priced"`
	Source    string `json:"source"`
	Note      string `json:"note"`
}

const priceUsage = `usage: spillscope price [--route R | --model M] FILE...
       spillscope price --routes

Prints one JSON object per image file: file, format, mediaType, width, height,
requestWidth, requestHeight (the size the route sends: deepseek-v4 and
deepseek-v4.1 project within 640,000 pixels, never enlarging), route,
estimator (the route's text estimator), tokens (the route's visual tokens of
the request size). The format is read from the file's bytes, never its
name; only the header is read. A FILE of "-" reads standard input.
A file that is not a readable image is reported on stderr and skipped; the
exit status is then 1.

Flags:
`

// runPrice prices image files on one route.
func runPrice(env Env, args []string) int {
	fs := flag.NewFlagSet("price", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	route := fs.String("route", imagecost.RouteAnthropic, "image pricing route: "+strings.Join(imagecost.RouteNames(), ", "))
	model := fs.String("model", "", "pick the route a recorded model name maps to (e.g. claude-opus-4-7, gpt-4o); instead of --route")
	listRoutes := fs.Bool("routes", false, "print every route (name, provider, estimator, priced, source, note) and exit")
	files, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(env.Stdout, priceUsage)
		fs.SetOutput(env.Stdout)
		fs.PrintDefaults()
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "spillscope price: %v\n", err)
		fmt.Fprintln(env.Stderr, "Run 'spillscope price -h' for usage.")
		return exitUsage
	}

	if *listRoutes {
		for _, r := range imagecost.Routes() {
			est, _ := retention.RouteEstimator(r.Name)
			line := routeLine{r.Name, r.Provider, est, r.Priced(), r.Source, r.Note}
			if err := writeJSON(env.Stdout, line); err != nil {
				fmt.Fprintf(env.Stderr, "spillscope price: %v\n", err)
				return exitFail
			}
		}
		return exitOK
	}

	routeSet := false
	fs.Visit(func(f *flag.Flag) { routeSet = routeSet || f.Name == "route" })
	if *model != "" {
		if routeSet {
			fmt.Fprintln(env.Stderr, "spillscope price: give --route or --model, not both")
			return exitUsage
		}
		*route = imagecost.RouteForModel(*model)
		if *route == "" {
			fmt.Fprintf(env.Stderr, "spillscope price: --model %q maps to no route; pass --route (known routes: %s)\n",
				*model, strings.Join(imagecost.RouteNames(), ", "))
			return exitUsage
		}
	}
	r, err := imagecost.Lookup(*route)
	if err != nil {
		fmt.Fprintf(env.Stderr, "spillscope price: --route %q is not a route; known routes: %s\n",
			*route, strings.Join(imagecost.RouteNames(), ", "))
		return exitUsage
	}
	if !r.Priced() {
		fmt.Fprintf(env.Stderr, "spillscope price: route %q has no image pricing: %s\n", r.Name, r.Note)
		return exitFail
	}
	if len(files) == 0 {
		fmt.Fprintln(env.Stderr, "spillscope price: no FILE given")
		fmt.Fprintln(env.Stderr, "Run 'spillscope price -h' for usage.")
		return exitUsage
	}

	code := exitOK
	for _, file := range files {
		line, err := priceFile(env, r, file)
		if err != nil {
			fmt.Fprintf(env.Stderr, "spillscope price: %v\n", err)
			code = exitFail
			continue
		}
		if err := writeJSON(env.Stdout, line); err != nil {
			fmt.Fprintf(env.Stderr, "spillscope price: %v\n", err)
			return exitFail
		}
	}
	return code
}

func priceFile(env Env, r imagecost.Route, file string) (priceLine, error) {
	var (
		info imagecost.Info
		err  error
	)
	if file == "-" {
		info, err = imagecost.SniffReader(env.Stdin)
		if err != nil {
			err = fmt.Errorf("-: %w", err)
		}
	} else {
		info, err = imagecost.SniffFile(file)
	}
	if err != nil {
		return priceLine{}, err
	}
	tokens, err := r.Calc(info.Width, info.Height)
	if err != nil {
		return priceLine{}, fmt.Errorf("%s: %w", file, err)
	}
	est, err := retention.RouteEstimator(r.Name)
	if err != nil {
		return priceLine{}, err
	}
	rw, rh := r.RequestSize(info.Width, info.Height)
	return priceLine{
		File: file, Format: info.Format, MediaType: info.MediaType,
		Width: info.Width, Height: info.Height, RequestWidth: rw, RequestHeight: rh,
		Route: r.Name, Estimator: est, Tokens: tokens,
	}, nil
}

// parseInterspersed lets flags follow the files ("price a.png --route gemini")
// as well as precede them; everything after "--" is a file.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return files, nil
		}
		// flag stops at "--" (consumed) or at the first non-flag; tell them
		// apart by what preceded the remainder.
		consumed := len(args) - len(rest)
		if consumed > 0 && args[consumed-1] == "--" {
			return append(files, rest...), nil
		}
		files = append(files, rest[0])
		args = rest[1:]
	}
}
