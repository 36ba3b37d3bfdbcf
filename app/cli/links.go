package cli

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"spillscope/retention"
	"spillscope/retention/links"
)

// runLinks classifies each URI as a tool result's resource_link with that URI
// would be shown, printing one JSON object per URI: shown, line, reason,
// parameter. The URI itself is not echoed, so a credential passed in is
// not printed back unless the line shows it (and then the test found none).
func runLinks(env Env, args []string) int {
	fs := flag.NewFlagSet("links", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	name := fs.String("name", "", "the link's `name`, as its resource_link would carry it")
	mime := fs.String("mime-type", "", "the link's media `type`")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			linksUsage(env.Stdout, fs)
			return exitOK
		}
		fmt.Fprintf(env.Stderr, "spillscope links: %v\n", err)
		linksUsage(env.Stderr, fs)
		return exitUsage
	}
	uris := fs.Args()
	if len(uris) == 0 && env.Stdin != nil {
		var err error
		if uris, err = readLines(env.Stdin); err != nil {
			fmt.Fprintf(env.Stderr, "spillscope links: reading stdin: %v\n", err)
			return exitFail
		}
	}
	if len(uris) == 0 {
		fmt.Fprintln(env.Stderr, "spillscope links: no URI given: pass URIs as arguments, or one per line on stdin")
		return exitUsage
	}
	for _, u := range uris {
		d := links.LinkLine(retention.Block{Type: retention.TypeResourceLink, URI: u, Name: *name, MimeType: *mime})
		if err := writeJSON(env.Stdout, d); err != nil {
			fmt.Fprintf(env.Stderr, "spillscope links: %v\n", err)
			return exitFail
		}
	}
	return exitOK
}

// readLines reads one URI per line, skipping blank lines; a URI may be as
// long as a presigned URL with a session token gets (1 MiB per line).
func readLines(r io.Reader) ([]string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	var out []string
	for sc.Scan() {
		if u := strings.TrimSpace(sc.Text()); u != "" {
			out = append(out, u)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

func linksUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, `usage: spillscope links [--name NAME] [--mime-type TYPE] URI...
       spillscope links [--name NAME] [--mime-type TYPE] < uris.txt

Classifies each URI as a tool result's resource_link would be shown, and prints
one JSON object per URI: "shown" (bool), "line" (what the model would read: the
link's own line, or a stub without the URI), "reason" (empty when shown;
otherwise userinfo, credential-parameter, unparseable or link-without-uri) and
"parameter" (the listed name of the matched parameter, never its value).
With no URI arguments, URIs are read from stdin, one per line.

A URI is hidden when it has userinfo (user@ or user:pass@), does not parse, or
has a query or fragment parameter with a value whose name is on the credential
list (compared by letters and digits alone: accessToken, access-token and
token[] match access_token and token). Families on the list:
`)
	for _, f := range links.Families() {
		fmt.Fprintf(w, "  %s: %s\n", f.Name, strings.Join(f.Params, ", "))
	}
	fmt.Fprint(w, `
Known limits: a credential carried in a path (a webhook's /api/webhooks/<id>/<token>)
or under a name not on the list is not caught.

Flags:
`)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}
