package retention

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Policy is one harness's rule for an oversized tool result, deciding from an
// Analysis built once per result. Policies register by name
// (RegisterPolicy), one file each, the way image decoders register by
// format; adding one never edits a switch elsewhere.
type Policy interface {
	// Info declares the policy: its parameters, its own estimator and what
	// it keeps recoverable.
	Info() PolicyInfo
	// Decide runs the policy on a with resolved settings. It is called with
	// the Analysis locked (see Analysis.Run) and never fails: what the
	// content does not allow is a status and diagnostics, and the original
	// is never lost.
	Decide(a *Analysis, s Settings) Outcome
}

// What a policy keeps recoverable.
const (
	// RecoverFile: the complete result goes to a file the notice names.
	RecoverFile = "file"
	// RecoverNone: the omitted parts reach no file the model can read.
	RecoverNone = "none"
)

// PolicyInfo declares a policy.
type PolicyInfo struct {
	Name string `json:"name"`
	// Harness and Version say whose rule this is and which releases.
	Harness string `json:"harness"`
	Version string `json:"version"`
	Summary string `json:"summary"`
	// Source names the code the policy follows (repository, commit, path).
	Source string `json:"source"`
	// Estimator is the policy's own estimator: what the harness believed.
	Estimator string `json:"estimator"`
	// Budget names the parameter a budget (--budget, the slider) sets, in
	// Unit.
	Budget string  `json:"budget"`
	Unit   string  `json:"unit"`
	Params []Param `json:"params"`
	// Recoverable is RecoverFile or RecoverNone.
	Recoverable string `json:"recoverable"`
	// RecoverNote says how long the harness keeps that file, or where else
	// the omitted parts survive ("" when there is nothing to add).
	RecoverNote string `json:"recoverNote,omitempty"`
	// Check, when set, validates the parameters together after each is
	// valid alone; its error names them.
	Check func(Settings) error `json:"-"`
}

// Parameter kinds.
const (
	ParamInt    = "int"
	ParamBool   = "bool"
	ParamChoice = "choice"
)

// ParamOff is the value that switches a policy off through a parameter that
// allows it (the harness's "omitted disables").
const ParamOff = "off"

// Param declares one parameter, under the harness's own name.
type Param struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	Unit string `json:"unit"`
	// Default is the harness's shipped value, as text.
	Default string `json:"default"`
	// Min and Max bound an int parameter.
	Min     int64    `json:"min"`
	Max     int64    `json:"max"`
	Choices []string `json:"choices,omitempty"`
	// Off allows ParamOff.
	Off bool   `json:"off"`
	Doc string `json:"doc"`
}

// Params are raw parameter values by name, as the CLI's --param k=v and the
// window pass them.
type Params map[string]string

// Settings are a policy's parameters after Resolve: every parameter has a
// valid value.
type Settings struct {
	policy string
	budget string
	vals   map[string]string
	ints   map[string]int64
}

// ErrParam reports a parameter value a policy does not accept; the message
// names the policy and the parameter.
var ErrParam = errors.New("retention: invalid parameter")

// ErrPolicy reports a policy name nobody registered.
var ErrPolicy = errors.New("retention: unknown policy")

// MaxBudget is the largest accepted budget: 2^53-1, the largest integer a
// JSON number carries exactly (dsh's Number.isSafeInteger bound).
const MaxBudget = 1<<53 - 1

// Resolve checks raw values against the declaration and fills in defaults.
// An unknown name or a bad value is an error wrapping ErrParam that names it.
func (info PolicyInfo) Resolve(p Params) (Settings, error) {
	s := Settings{policy: info.Name, budget: info.Budget, vals: map[string]string{}, ints: map[string]int64{}}
	known := map[string]Param{}
	for _, d := range info.Params {
		known[d.Name] = d
	}
	for name := range p {
		if _, ok := known[name]; !ok {
			names := make([]string, 0, len(known))
			for n := range known {
				names = append(names, n)
			}
			sort.Strings(names)
			return Settings{}, fmt.Errorf("%w: %s has no parameter %q (it has: %s)", ErrParam, info.Name, name, strings.Join(names, ", "))
		}
	}
	for _, d := range info.Params {
		raw, given := p[d.Name]
		if !given {
			raw = d.Default
		}
		raw = strings.TrimSpace(raw)
		if d.Off && raw == ParamOff {
			s.vals[d.Name] = ParamOff
			continue
		}
		switch d.Kind {
		case ParamInt:
			n, err := parseInt(raw, d)
			if err != nil {
				return Settings{}, fmt.Errorf("%w: %s: %s %w", ErrParam, info.Name, d.Name, err)
			}
			s.ints[d.Name] = n
		case ParamBool:
			b, err := strconv.ParseBool(raw)
			if err != nil {
				return Settings{}, fmt.Errorf("%w: %s: %s %q is not true or false", ErrParam, info.Name, d.Name, raw)
			}
			if b {
				s.ints[d.Name] = 1
			}
		case ParamChoice:
			ok := false
			for _, c := range d.Choices {
				ok = ok || c == raw
			}
			if !ok {
				return Settings{}, fmt.Errorf("%w: %s: %s %q is not one of %s", ErrParam, info.Name, d.Name, raw, strings.Join(d.Choices, ", "))
			}
		}
		s.vals[d.Name] = raw
	}
	if info.Check != nil {
		if err := info.Check(s); err != nil {
			return Settings{}, fmt.Errorf("%w: %s: %w", ErrParam, info.Name, err)
		}
	}
	return s, nil
}

// parseInt reads an integer parameter: a whole number within [Min, Max].
// Fractional, negative or out-of-range values are refused, as dsh refuses
// them at load time.
func parseInt(raw string, d Param) (int64, error) {
	if raw == "" {
		return 0, errors.New("is missing")
	}
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(raw, 64)
		switch {
		case ferr != nil && !errors.Is(ferr, strconv.ErrRange):
			return 0, fmt.Errorf("%q is not a number of %s", raw, d.Unit)
		case math.IsInf(f, 0) || errors.Is(ferr, strconv.ErrRange) || math.Abs(f) > MaxBudget:
			return 0, fmt.Errorf("%q is out of range (want %d..%d %s)", raw, d.Min, d.Max, d.Unit)
		case f != math.Trunc(f):
			return 0, fmt.Errorf("%q is fractional (want a whole number of %s)", raw, d.Unit)
		}
		n = int64(f)
	}
	switch {
	case n < 0 && d.Min >= 0:
		return 0, fmt.Errorf("%q is negative (want %d..%d %s)", raw, d.Min, d.Max, d.Unit)
	case n < d.Min || n > d.Max:
		return 0, fmt.Errorf("%q is out of range (want %d..%d %s)", raw, d.Min, d.Max, d.Unit)
	}
	return n, nil
}

// Values are every parameter's resolved value as text, by name: what a
// decision used.
func (s Settings) Values() map[string]string {
	out := make(map[string]string, len(s.vals))
	for k, v := range s.vals {
		out[k] = v
	}
	return out
}

// Int is an int parameter's value (0 when off).
func (s Settings) Int(name string) int64 { return s.ints[name] }

// Bool is a bool parameter's value.
func (s Settings) Bool(name string) bool { return s.ints[name] != 0 }

// String is a parameter's value as text ("off" when switched off).
func (s Settings) String(name string) string { return s.vals[name] }

// Off reports whether the parameter was switched off.
func (s Settings) Off(name string) bool { return s.vals[name] == ParamOff }

// Budget is the budget parameter's value, and false when it is off.
func (s Settings) Budget() (int64, bool) {
	if s.budget == "" || s.Off(s.budget) {
		return 0, false
	}
	return s.ints[s.budget], true
}

// budgetMonotone marks a policy under which a result kept whole within
// its budget is kept whole, with the same outcome but for the budget, at
// every larger budget.
type budgetMonotone interface{ monotone() }

// SameAbove reports whether o, decided by p at some budget, is also what p
// decides at every larger budget (but for Outcome.Budget): the result was
// within budget and p is budget-monotone. A sweep then decides a result
// once for all the larger budgets.
func SameAbove(p Policy, o Outcome) bool {
	_, ok := p.(budgetMonotone)
	return ok && o.Status == StatusWithinBudget
}

var (
	polMu    sync.RWMutex
	policies = map[string]Policy{}
)

// DefaultPolicy is the seed's policy: dsh's token-era spill policy.
const DefaultPolicy = "dsh-tokens"

// RegisterPolicy makes a policy available by its Info().Name. Registering a
// name twice panics.
func RegisterPolicy(p Policy) {
	name := p.Info().Name
	polMu.Lock()
	defer polMu.Unlock()
	if _, dup := policies[name]; dup {
		panic("retention: policy " + name + " registered twice")
	}
	policies[name] = p
}

// LookupPolicy returns the policy registered as name; "" is DefaultPolicy.
func LookupPolicy(name string) (Policy, error) {
	if name == "" {
		name = DefaultPolicy
	}
	polMu.RLock()
	defer polMu.RUnlock()
	p, ok := policies[name]
	if !ok {
		return nil, fmt.Errorf("%w %q (known: %s)", ErrPolicy, name, strings.Join(policyNamesLocked(), ", "))
	}
	return p, nil
}

// Policies declares every registered policy, sorted by name.
func Policies() []PolicyInfo {
	polMu.RLock()
	defer polMu.RUnlock()
	out := make([]PolicyInfo, 0, len(policies))
	for _, n := range policyNamesLocked() {
		out = append(out, policies[n].Info())
	}
	return out
}

func policyNamesLocked() []string {
	names := make([]string, 0, len(policies))
	for n := range policies {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Statuses of an Outcome.
const (
	StatusWithinBudget = "within_budget"
	StatusReplaced     = "replaced"
	StatusNoticeOnly   = "notice_only"
	StatusPreserved    = "preserved"
	StatusUnsupported  = "unsupported"
	StatusDisabled     = "disabled"
	StatusPassThrough  = "pass_through"
)

// Tokens is what the model sees, priced by kind on one estimator.
type Tokens struct {
	Estimator string `json:"estimator"`
	Total     int    `json:"total"`
	Text      int    `json:"text"`
	Images    int    `json:"images"`
	Notice    int    `json:"notice"`
}

// Position is a place in the original content: a block index and a byte
// offset inside a text block (0 for images).
type Position struct {
	Block  int   `json:"block"`
	Offset int64 `json:"offset"`
}

// Span kinds: what a part of the model-facing content is.
const (
	SpanKept    = "kept"    // original content, possibly cut
	SpanMarker  = "marker"  // stands for the omitted interval
	SpanNotice  = "notice"  // says what was omitted and where it is
	SpanWrapper = "wrapper" // framing a harness puts around kept content
	SpanHeader  = "header"  // a harness's summary line before the content
)

// Span ties part of Outcome.Content to the original. Out is the content
// block and [OutStart, OutEnd) the bytes of its text the span covers (0, 0
// for an image). For kept spans, Block is the original block and
// [Start, End) the bytes kept from its text; Block is -1 for what the
// policy wrote.
type Span struct {
	Kind     string `json:"kind"`
	Out      int    `json:"out"`
	OutStart int64  `json:"outStart"`
	OutEnd   int64  `json:"outEnd"`
	Block    int    `json:"block"`
	Start    int64  `json:"start"`
	End      int64  `json:"end"`
}

// Recovery says where the complete result is.
type Recovery struct {
	// Kind is RecoverFile (the notice names a file holding everything),
	// RecoverNone (omitted parts reach no file) or "" (nothing omitted).
	Kind    string `json:"kind"`
	Locator string `json:"locator,omitempty"`
	// LostBytes and LostImages are what no file keeps.
	LostBytes  int64 `json:"lostBytes"`
	LostImages int   `json:"lostImages"`
}

// Outcome is what one policy decided for one result: policy-neutral, so
// outcomes of different harnesses' policies compare side by side.
type Outcome struct {
	Policy string `json:"policy"`
	Status string `json:"status"`
	// Content is what the model sees: the original blocks unless the status
	// is replaced or notice_only.
	Content []Block `json:"content"`
	// Spans map Content back to the original (replaced and notice_only).
	Spans         []Span   `json:"spans,omitempty"`
	Notice        string   `json:"notice"`
	OmittedBytes  int64    `json:"omittedBytes"`
	OmittedImages int      `json:"omittedImages"`
	Recovery      Recovery `json:"recovery"`
	// Tokens prices Content on Estimator.
	Tokens Tokens `json:"tokens"`
	// OriginalTokens is the estimate of the original result. Counting a huge
	// result exactly would mean tokenizing all of it, which the decision does
	// not need once a lower bound already exceeds the budget; then this is
	// that lower bound and OriginalTokensExact is false. Blocks the
	// estimator cannot price are left out and also make it inexact.
	OriginalTokens      int  `json:"originalTokens"`
	OriginalTokensExact bool `json:"originalTokensExact"`
	// Budget is the budget decided at (nil when off), in BudgetUnit.
	Budget     *int64 `json:"budget"`
	BudgetUnit string `json:"budgetUnit"`
	// CompleteFile is the text of the complete result file, set when the
	// policy would write one (replaced and notice_only with RecoverFile).
	CompleteFile string   `json:"-"`
	Diagnostics  []string `json:"diagnostics"`
	// HeadEnd is where the retained head stops and TailStart where the
	// retained tail begins (head/tail policies, replaced and notice_only).
	HeadEnd   *Position `json:"headEnd,omitempty"`
	TailStart *Position `json:"tailStart,omitempty"`
	Route     string    `json:"route"`
	Estimator string    `json:"estimator"`
	// plan is what a decision on a sketch kept (see Sketch), in place of
	// the content it would have written.
	plan *sketchPlan
}

// ValidateBudget checks a configured budget (a JSON number) and returns it
// as an integer: negative, fractional or unsafe values are ErrBudget.
func ValidateBudget(v float64) (int64, error) {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return 0, fmt.Errorf("%w: %v is not a number", ErrBudget, v)
	case v < 0:
		return 0, fmt.Errorf("%w: %v is negative", ErrBudget, v)
	case v != math.Trunc(v):
		return 0, fmt.Errorf("%w: %v is fractional", ErrBudget, v)
	case v > MaxBudget:
		return 0, fmt.Errorf("%w: %.0f is above the largest safe integer %d", ErrBudget, v, int64(MaxBudget))
	}
	return int64(v), nil
}

// ErrBudget reports a budget that is negative, fractional or above
// MaxBudget.
var ErrBudget = errors.New("retention: invalid budget")
