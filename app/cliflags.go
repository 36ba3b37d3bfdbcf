package app

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"spillscope/retention"
)

// Flags the subcommands share, here so both app/cli and the export command
// (which reads through this package's services) parse them one way.

// PolicyParams collects --param policy.k=v (a flag.Value): each policy's
// parameters under the harness's own names, for every subcommand that
// takes them.
type PolicyParams map[string]retention.Params

// String is flag.Value's; the flag has no default to show.
func (p PolicyParams) String() string { return "" }

// Set reads one policy.k=v.
func (p PolicyParams) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	pol, name, dot := strings.Cut(strings.TrimSpace(k), ".")
	if !ok || !dot || pol == "" || name == "" {
		return fmt.Errorf("%q is not policy.name=value", s)
	}
	if p[pol] == nil {
		p[pol] = retention.Params{}
	}
	p[pol][name] = v
	return nil
}

// ParseBudgets reads "1000,2000,8000" as every subcommand takes a list of
// budgets: each a valid maxInlineTokens.
func ParseBudgets(s string) ([]int64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("--budgets is required (a comma-separated list of token budgets)")
	}
	var out []int64
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		v, err := strconv.ParseFloat(part, 64)
		if err != nil {
			return nil, fmt.Errorf("--budgets: %q is not a number", part)
		}
		b, err := retention.ValidateBudget(v)
		if err != nil {
			return nil, fmt.Errorf("--budgets: %w", err)
		}
		out = append(out, b)
	}
	return out, nil
}
