package retention

import (
	"fmt"
	"strconv"

	"spillscope/retention/imagecost"
)

// Options configure decisions through Retain and Sweep, the short way to
// Analyse plus a policy: which policy, estimator and route, the host's
// context, and the budget.
type Options struct {
	// Policy is a registered policy name; "" is DefaultPolicy.
	Policy string
	// Budget sets the policy's budget parameter in its own unit; nil
	// switches it off (status "disabled").
	Budget *int64
	// Params are the policy's other parameters.
	Params Params
	// Route names the imagecost route; "" is DefaultRoute.
	Route string
	// Estimator names the estimator; "" is the route's (RouteEstimator).
	Estimator string
	// ToolName, ReadTools, Blocked and ValueReplaced are the host's
	// context (see Call).
	ToolName      string
	ReadTools     []string
	Blocked       bool
	ValueReplaced bool
	// SpillPath is the locator the notice names ("" names
	// UnsavedSpillPath) and SpillHint the backend's retrieval hint (""
	// is LocalSpillHint).
	SpillPath string
	SpillHint string
	// HandlePaths: see AnalyseOptions.
	HandlePaths map[int]string
}

// RouteEstimator names a route's estimator, the one place the choice is
// made: dsh's meter on dsh's DeepSeek routes, a tiktoken encoding elsewhere.
// "" is DefaultRoute; an unknown route is an error.
func RouteEstimator(route string) (string, error) {
	if route == "" {
		route = DefaultRoute
	}
	rt, err := imagecost.Lookup(route)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrOptions, err)
	}
	if rt.Encoding == "" {
		return DefaultEncoding, nil
	}
	return rt.Encoding, nil
}

// EstimatorFor returns the named estimator, or the route's when name is "".
func EstimatorFor(name, route string) (Estimator, error) {
	if name == "" {
		var err error
		if name, err = RouteEstimator(route); err != nil {
			return nil, err
		}
	}
	e, err := LookupEstimator(name)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOptions, err)
	}
	return e, nil
}

// Analyse builds the Analysis these options describe.
func (o Options) Analyse(res Result) (*Analysis, error) {
	est, err := EstimatorFor(o.Estimator, o.Route)
	if err != nil {
		return nil, err
	}
	return Analyse(res, est, o.Route, AnalyseOptions{
		Call: Call{ToolName: o.ToolName, ReadTools: o.ReadTools, Blocked: o.Blocked, ValueReplaced: o.ValueReplaced,
			Spill: SpillRef{Locator: o.SpillPath, Hint: o.SpillHint}},
		HandlePaths: o.HandlePaths,
	})
}

// Settings resolves the options' policy and parameters at budget.
func (o Options) Settings(budget *int64) (Policy, Settings, error) {
	p, err := LookupPolicy(o.Policy)
	if err != nil {
		return nil, Settings{}, err
	}
	info := p.Info()
	params := Params{}
	for k, v := range o.Params {
		params[k] = v
	}
	if info.Budget != "" {
		if budget == nil {
			params[info.Budget] = ParamOff
		} else {
			params[info.Budget] = strconv.FormatInt(*budget, 10)
		}
	}
	s, err := info.Resolve(params)
	if err != nil {
		return nil, Settings{}, err
	}
	return p, s, nil
}

// Retain runs the options' policy on one result. The error is only for
// invalid options (policy, parameters, budget, route, estimator); everything
// about the content itself is a status and diagnostics.
func Retain(res Result, opts Options) (Outcome, error) {
	p, s, err := opts.Settings(opts.Budget)
	if err != nil {
		return Outcome{}, err
	}
	a, err := opts.Analyse(res)
	if err != nil {
		return Outcome{}, err
	}
	return a.Run(p, s), nil
}

// Sweep runs the policy at each budget and returns one outcome per budget,
// each identical to Retain at that budget: the Analysis is built once.
func Sweep(res Result, budgets []int64, opts Options) ([]Outcome, error) {
	settings := make([]Settings, len(budgets))
	var p Policy
	for i := range budgets {
		var err error
		if p, settings[i], err = opts.Settings(&budgets[i]); err != nil {
			return nil, fmt.Errorf("budget %d: %w", i, err)
		}
	}
	a, err := opts.Analyse(res)
	if err != nil {
		return nil, err
	}
	out := make([]Outcome, len(budgets))
	for i := range budgets {
		out[i] = a.Run(p, settings[i])
	}
	return out, nil
}
