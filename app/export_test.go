package app

import (
	"testing"

	"spillscope/retention"
	"spillscope/sessions/samplegen"
)

// What the external tests (package app_test) need of the internal ones:
// they import the CLI, which imports this package.

// WriteImageSession is writeImageSession.
func WriteImageSession(t *testing.T, root string, n int) { writeImageSession(t, root, n) }

// IndexRoot is indexRoot.
func IndexRoot(t *testing.T, root, dataDir string) (*Sessions, *Retention) {
	return indexRoot(t, root, dataDir)
}

// NewIndexedApp is newIndexedApp.
func NewIndexedApp(t *testing.T) (*Sessions, *Retention, *Links, samplegen.Manifest, string) {
	return newIndexedApp(t)
}

// LoadedContent is an indexed result's content as the window reads it back.
func (r *Retention) LoadedContent(t *testing.T, id int64) []retention.Block {
	t.Helper()
	db, err := r.store.DB()
	if err != nil {
		t.Fatal(err)
	}
	_, res, err := db.LoadResult(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return res.Content
}
