package retention

import (
	"fmt"
	"strconv"
)

// Comparing policies on one result: each decides on an Analysis on its own
// estimator, and Price puts every outcome on the one yardstick.

// UnitsPerToken is how many of a budget unit one token of the shared budget
// slider stands for: 1 for tokens; 4 for bytes and characters, the four
// characters per token that dsh's meter and Codex's byte approximation both
// use; 0 for a unit no token count maps to (lines), which the slider leaves
// alone.
func UnitsPerToken(unit string) int64 {
	switch unit {
	case "tokens":
		return 1
	case "bytes", "characters", "code points", "UTF-16 units":
		return 4
	}
	return 0
}

// SliderBudget maps a position of the shared budget slider, in tokens, to a
// policy's budget parameter in its own unit; ok is false when the policy has
// no budget the slider can set.
func SliderBudget(info PolicyInfo, tokens int64) (value int64, ok bool) {
	per := UnitsPerToken(info.Unit)
	if info.Budget == "" || per == 0 || tokens < 0 {
		return 0, false
	}
	if tokens > MaxBudget/per {
		return MaxBudget, true
	}
	return tokens * per, true
}

// CompareSpec is one column: a policy and its raw parameters under the
// harness's own names. Parameters left out take the harness's defaults,
// except the budget, which SliderTokens sets when given.
type CompareSpec struct {
	Policy string `json:"policy"`
	Params Params `json:"params,omitempty"`
	// SliderTokens, when set and the budget parameter is not in Params,
	// sets it through SliderBudget.
	SliderTokens *int64 `json:"sliderTokens,omitempty"`
}

// Resolve looks the spec's policy up and checks its parameters: an error
// names the policy and the parameter.
func (c CompareSpec) Resolve() (Policy, Settings, error) {
	p, err := LookupPolicy(c.Policy)
	if err != nil {
		return nil, Settings{}, err
	}
	info := p.Info()
	params := Params{}
	for k, v := range c.Params {
		params[k] = v
	}
	if _, given := params[info.Budget]; !given && c.SliderTokens != nil {
		if v, ok := SliderBudget(info, *c.SliderTokens); ok {
			params[info.Budget] = strconv.FormatInt(v, 10)
		}
	}
	s, err := info.Resolve(params)
	if err != nil {
		return nil, Settings{}, err
	}
	return p, s, nil
}

// Compared is one column's outcome.
type Compared struct {
	Policy string     `json:"policy"`
	Info   PolicyInfo `json:"info"`
	// Params are the values the decision used, defaults included.
	Params  map[string]string `json:"params"`
	Outcome Outcome           `json:"outcome"`
	Priced  Priced            `json:"priced"`
	// Error is set, and the rest empty, when the column's parameters are
	// not valid.
	Error string `json:"error,omitempty"`
}

// AnalysisSource returns the compared result's Analysis on an estimator
// (on the same route and call every time), building each at most once.
type AnalysisSource func(estimator string) (*Analysis, error)

// Compare decides each spec on its policy's own estimator and prices every
// outcome with Price on the yardstick estimator. A spec with bad parameters
// is a column with its error; the error return is for an Analysis that
// cannot be had. adjust, when set, sees each outcome before it is priced
// (the index's exact counts of a kept original).
func Compare(src AnalysisSource, yardstick string, specs []CompareSpec, adjust func(*Outcome)) ([]Compared, error) {
	yard, err := src(yardstick)
	if err != nil {
		return nil, err
	}
	out := make([]Compared, len(specs))
	for i, spec := range specs {
		out[i].Policy = spec.Policy
		p, s, err := spec.Resolve()
		if err != nil {
			out[i].Error = err.Error()
			continue
		}
		info := p.Info()
		a, err := src(info.Estimator)
		if err != nil {
			return nil, fmt.Errorf("retention: %s's estimator %s: %w", info.Name, info.Estimator, err)
		}
		o := a.Run(p, s)
		if adjust != nil {
			adjust(&o)
		}
		out[i].Info, out[i].Params, out[i].Outcome = info, s.Values(), o
		out[i].Priced = Price(o, yard)
	}
	return out, nil
}

// Analyses is an AnalysisSource over one result: each estimator's Analysis
// built on first use with the same route and options.
func Analyses(res Result, route string, opts AnalyseOptions) AnalysisSource {
	built := map[string]*Analysis{}
	return func(estimator string) (*Analysis, error) {
		est, err := EstimatorFor(estimator, route)
		if err != nil {
			return nil, err
		}
		if a, ok := built[est.Name()]; ok {
			return a, nil
		}
		a, err := Analyse(res, est, route, opts)
		if err != nil {
			return nil, err
		}
		built[est.Name()] = a
		return a, nil
	}
}
