package app

import (
	"container/list"
	"sync"
	"sync/atomic"

	"spillscope/retention"
	"spillscope/sessions"
)

// analysisCache keeps the last few Analyses the window asked for, so moving
// the budget, or switching the policy, re-runs only the decision: the result
// is not read again, its images not sniffed again, its text not tokenized
// again. An entry is keyed by everything the Analysis depends on, the
// result's source position included, so a re-indexed result is analysed
// afresh.
type analysisCache struct {
	mu    sync.Mutex
	max   int
	order *list.List // of *cached, most recent first
	byKey map[analysisKey]*list.Element
	// bytes is what the entries hold of their results' text, at most
	// maxCachedBytes beside the newest entry, which is always kept: a
	// few 50 MB results would otherwise stay in memory for as long as the
	// window is open.
	bytes int64

	// warmGen is the newest background walk (warm.go): an older one
	// stops; walk runs them one at a time.
	warmGen atomic.Int64
	walk    sync.Mutex
	// warming counts the walks running, for tests to wait on.
	warming sync.WaitGroup
	// warmed, when set (by tests), hears each pass of a walk swap its
	// copies in: 0 the shipped settings, 1 the doubling budgets.
	warmed func(c *cached, pass int)
}

// maxCachedAnalyses is how many Analyses the window keeps: a result on
// three routes and three estimators, the result opened before it and room
// to switch back without building any again (8 evicted one while a user
// went round the routes and estimators of one result).
const maxCachedAnalyses = 12

// maxCachedBytes bounds the text the cached Analyses hold, beside the
// newest one.
const maxCachedBytes = 32 << 20

type analysisKey struct {
	resultID       int64
	source         string // file path and byte range, or the pasted JSON's hash
	offset, length int64
	estimator      string
	route          string
	tool           string
	readTools      string
	locator        string
}

type cached struct {
	key analysisKey
	// a is the Analysis decisions read (analysis()); the background walk
	// swaps in a copy whose tables it has readied (warm.go).
	a   atomic.Pointer[retention.Analysis]
	res retention.Result
	row *sessions.ResultRow
	// src is the indexed result as read back (nil for pasted JSON); its
	// pages are what a paged projection sends.
	src *loadedResult

	// yard is the same result on the route's own estimator, built the
	// first time an outcome is priced on another one.
	yardOnce sync.Once
	yard     atomic.Pointer[retention.Analysis]

	// warm is the state of the background walk (warm.go).
	warm atomic.Int32
}

// newCached is an entry holding a.
func newCached(key analysisKey, a *retention.Analysis, res retention.Result) *cached {
	c := &cached{key: key, res: res}
	c.a.Store(a)
	return c
}

// analysis is the Analysis to decide on.
func (c *cached) analysis() *retention.Analysis { return c.a.Load() }

// yardstick is the Analysis c's outcomes are priced on beside their own
// estimator (nil when c's is the route's own): the one c's walk readied or c
// built, else the cached Analysis of the same result on the route's
// estimator (its tables grown by its own use), else one c builds once.
func (r *Retention) yardstick(c *cached) *retention.Analysis {
	if y := c.yard.Load(); y != nil {
		return y
	}
	name, err := retention.RouteEstimator(c.key.route)
	if err != nil || name == c.key.estimator {
		return nil
	}
	k := c.key
	k.estimator = name
	if e, ok := r.cache.get(k); ok {
		return e.analysis()
	}
	c.yardOnce.Do(func() {
		if y := c.buildYardstick(); y != nil {
			c.yard.Store(y)
		}
	})
	return c.yard.Load()
}

// buildYardstick analyses the result on the route's estimator (nil when the
// entry's is that one).
func (c *cached) buildYardstick() *retention.Analysis {
	name, err := retention.RouteEstimator(c.key.route)
	if err != nil || name == c.key.estimator {
		return nil
	}
	est, err := retention.LookupEstimator(name)
	if err != nil {
		return nil
	}
	y, _ := retention.Analyse(c.res, est, c.key.route, retention.AnalyseOptions{Call: c.analysis().Call()})
	return y
}

func newAnalysisCache(n int) *analysisCache {
	return &analysisCache{max: n, order: list.New(), byKey: map[analysisKey]*list.Element{}}
}

func (c *analysisCache) get(k analysisKey) (*cached, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[k]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*cached), true
}

// sameSource returns an entry for the same result read from the same place
// (another estimator or route), so every Analysis of one result shares its
// blocks: the yardstick then prices an original left in place from its
// tables, and the result is not read again.
func (c *analysisCache) sameSource(k analysisKey) (*cached, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for e := c.order.Front(); e != nil; e = e.Next() {
		v := e.Value.(*cached)
		if v.key.resultID == k.resultID && v.key.source == k.source && v.key.offset == k.offset && v.key.length == k.length {
			return v, true
		}
	}
	return nil, false
}

func (c *analysisCache) put(v *cached) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byKey[v.key]; ok {
		c.bytes += v.weight() - e.Value.(*cached).weight()
		e.Value = v
		c.order.MoveToFront(e)
		return
	}
	c.byKey[v.key] = c.order.PushFront(v)
	c.bytes += v.weight()
	for c.order.Len() > 1 && (c.order.Len() > c.max || c.bytes-v.weight() > maxCachedBytes) {
		last := c.order.Back()
		c.order.Remove(last)
		old := last.Value.(*cached)
		delete(c.byKey, old.key)
		c.bytes -= old.weight()
	}
}

// weight is what an entry holds in memory, by its result's size: its
// source record when it was read from an index (a line's text shares the
// line's buffer), else its text.
func (c *cached) weight() int64 {
	if c.row != nil && c.row.Length > c.row.TextBytes {
		return c.row.Length
	}
	return contentBytes(c.res)
}
