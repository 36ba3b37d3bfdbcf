package retention

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Estimator prices text the way one harness or tokenizer counts it. Every
// figure the retention core reports names the estimator that made it.
//
// Estimators are registered by name (RegisterEstimator), the way image
// decoders register by format: dsh's token meter ("dsh-meter") and the
// tiktoken encodings ("o200k_base", "cl100k_base") ship with the core.
type Estimator interface {
	// Name is the registry name.
	Name() string
	// Count prices one text block standing alone, its framing included.
	// The text may hold invalid UTF-8: each invalid byte counts as U+FFFD,
	// as Analyse reads it, so a text and its sanitized form cost the same.
	Count(text string) int
	// Structural prices a block of another type from its JSON; ok is false
	// when the estimator has no price for such blocks.
	Structural(raw []byte) (tokens int, ok bool)
	// Prepare readies one text block for repeated prefix and suffix
	// pricing. The text is valid UTF-8.
	Prepare(text string) TextCost
}

// TextCost prices one text block and its prefixes and suffixes, built once
// per block and reused by every decision on it. Offsets are bytes; every cut
// falls on a code-point boundary. Implementations may grow internal tables
// lazily and are not safe for concurrent use (an Analysis serialises them).
type TextCost interface {
	// AtMost is the block's price when that is at most limit (exact true),
	// or else a lower bound above limit, found without pricing more of the
	// text than the answer needs. An exact price above limit is allowed.
	AtMost(limit int) (tokens int, exact bool)
	// Total is the block's exact price.
	Total() int
	// Prefix is the longest prefix costing at most budget: its end and
	// price. The empty prefix (0, 0) always qualifies.
	Prefix(budget int) (end, tokens int)
	// Suffix is the longest suffix of text[from:] costing at most budget:
	// its start (from when all of it fits) and price; (len, 0) for none.
	Suffix(budget, from int) (start, tokens int)
}

// Estimator names of the estimators that ship with the core.
const (
	EstimatorMeter  = "dsh-meter"
	EstimatorO200k  = EncodingO200k
	EstimatorCL100k = EncodingCL100k
)

// ErrEstimator reports an estimator name nobody registered.
var ErrEstimator = errors.New("retention: unknown estimator")

var (
	estMu      sync.Mutex
	estOpeners = map[string]func() (Estimator, error){}
	estOpen    = map[string]Estimator{}
)

// RegisterEstimator makes an estimator available by name; open builds it on
// first use (a tokenizer loads its vocabulary then) and its result is kept.
// Registering a name twice panics, as a duplicate image format would.
func RegisterEstimator(name string, open func() (Estimator, error)) {
	estMu.Lock()
	defer estMu.Unlock()
	if _, dup := estOpeners[name]; dup {
		panic("retention: estimator " + name + " registered twice")
	}
	estOpeners[name] = open
}

// LookupEstimator returns the estimator registered as name; "" means
// DefaultEncoding (o200k_base).
func LookupEstimator(name string) (Estimator, error) {
	if name == "" {
		name = DefaultEncoding
	}
	estMu.Lock()
	defer estMu.Unlock()
	if e, ok := estOpen[name]; ok {
		return e, nil
	}
	open, ok := estOpeners[name]
	if !ok {
		return nil, fmt.Errorf("%w %q (known: %s)", ErrEstimator, name, strings.Join(estimatorNamesLocked(), ", "))
	}
	e, err := open()
	if err != nil {
		return nil, err
	}
	estOpen[name] = e
	return e, nil
}

// EstimatorNames lists the registered estimators, sorted.
func EstimatorNames() []string {
	estMu.Lock()
	defer estMu.Unlock()
	return estimatorNamesLocked()
}

func estimatorNamesLocked() []string {
	names := make([]string, 0, len(estOpeners))
	for n := range estOpeners {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
