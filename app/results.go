package app

import (
	"container/list"
	"context"
	"sync"

	"spillscope/retention"
	"spillscope/retention/links"
	"spillscope/sessions"
)

// resultCache keeps the last few results read back from their sources, for
// the services the window calls one after another on the result it shows:
// opening it (Result), its first re-run (the Analysis is built from the
// same blocks) and every page its panes read. The credentials in each text
// are found once, the first time a page of it is shown.
type resultCache struct {
	mu       sync.Mutex
	max      int
	maxBytes int64
	order    *list.List // of *loadedResult, most recent first
}

// loadedResult is one result as read back, with what its pages need.
type loadedResult struct {
	row sessions.ResultRow
	res retention.Result

	mu      sync.Mutex
	maskers map[int]*links.Masker
	files   []fileMasker // the complete files of recent decisions, newest last
}

type fileMasker struct {
	text string
	m    *links.Masker
}

// maxFileMaskers bounds the complete files a result keeps found.
const maxFileMaskers = 4

// newResultCache keeps up to n results and, beyond the newest, up to
// maxBytes of their text.
func newResultCache(n int, maxBytes int64) *resultCache {
	return &resultCache{max: n, maxBytes: maxBytes, order: list.New()}
}

// load returns result id, read back from its source unless a kept copy
// comes from the same place the index names now (a re-indexed result is read
// again).
func (c *resultCache) load(ctx context.Context, db *sessions.DB, id int64) (*loadedResult, error) {
	row, err := db.Result(ctx, id)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	for e := c.order.Front(); e != nil; e = e.Next() {
		l := e.Value.(*loadedResult)
		if l.row.ID == id && l.row.Path == row.Path && l.row.Offset == row.Offset && l.row.Length == row.Length {
			c.order.MoveToFront(e)
			c.mu.Unlock()
			return l, nil
		}
	}
	c.mu.Unlock()
	row, res, err := db.LoadResult(ctx, id)
	if err != nil {
		return nil, err
	}
	l := &loadedResult{row: row, res: res, maskers: map[int]*links.Masker{}}
	c.mu.Lock()
	defer c.mu.Unlock()
	for e := c.order.Front(); e != nil; e = e.Next() {
		if e.Value.(*loadedResult).row.ID == id {
			c.order.Remove(e)
			break
		}
	}
	c.order.PushFront(l)
	bytes, kept := l.row.TextBytes, 1
	for e := c.order.Front().Next(); e != nil; {
		next := e.Next()
		if b := e.Value.(*loadedResult).row.TextBytes; kept < c.max && bytes+b <= c.maxBytes {
			bytes += b
			kept++
		} else {
			c.order.Remove(e)
		}
		e = next
	}
	return l, nil
}

// masker finds the credentials in block i's text, once.
func (l *loadedResult) masker(i int) *links.Masker {
	l.mu.Lock()
	defer l.mu.Unlock()
	m, ok := l.maskers[i]
	if !ok {
		v := links.NewMasker(l.res.Content[i].Text)
		m = &v
		l.maskers[i] = m
	}
	return m
}

// fileMasker finds the credentials in a decision's complete file once for
// as long as decisions keep writing the same file.
func (l *loadedResult) fileMasker(text string) *links.Masker {
	if l == nil {
		v := links.NewMasker(text)
		return &v
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, f := range l.files {
		if f.text == text {
			return f.m
		}
	}
	v := links.NewMasker(text)
	l.files = append(l.files, fileMasker{text: text, m: &v})
	if len(l.files) > maxFileMaskers {
		l.files = l.files[1:]
	}
	return &v
}
