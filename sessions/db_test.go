package sessions

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestDataDir(t *testing.T) {
	root := t.TempDir() // an absolute path on every OS
	home := filepath.Join(root, "home")
	tests := []struct {
		name    string
		env     map[string]string
		want    string
		wantErr string // the error must name this
	}{
		{"home default", map[string]string{"HOME": home}, filepath.Join(home, ".local", "share", "spillscope"), ""},
		{"xdg", map[string]string{"HOME": home, "XDG_DATA_HOME": filepath.Join(root, "xdg")}, filepath.Join(root, "xdg", "spillscope"), ""},
		{"relative xdg is ignored", map[string]string{"HOME": home, "XDG_DATA_HOME": "rel/xdg"}, filepath.Join(home, ".local", "share", "spillscope"), ""},
		{"override wins over xdg", map[string]string{"HOME": home, "XDG_DATA_HOME": filepath.Join(root, "xdg"), "SPILLSCOPE_DATA_DIR": filepath.Join(root, "data")}, filepath.Join(root, "data"), ""},
		{"override is cleaned", map[string]string{"HOME": home, "SPILLSCOPE_DATA_DIR": root + string(filepath.Separator) + "data" + string(filepath.Separator)}, filepath.Join(root, "data"), ""},
		{"relative override is an error", map[string]string{"HOME": home, "XDG_DATA_HOME": filepath.Join(root, "xdg"), "SPILLSCOPE_DATA_DIR": "data"}, "", "SPILLSCOPE_DATA_DIR"},
		{"dot override is an error", map[string]string{"HOME": home, "SPILLSCOPE_DATA_DIR": "."}, "", "not an absolute path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(k string) string { return tt.env[k] }
			got, err := DataDir(getenv)
			dbPath, dbErr := DefaultDBPath(getenv)
			if tt.wantErr != "" {
				if err == nil || dbErr == nil {
					t.Fatalf("got %q and %q, want an error naming %q", got, dbPath, tt.wantErr)
				}
				if !errors.Is(err, ErrDataDir) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error %q: want ErrDataDir naming %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || dbErr != nil {
				t.Fatalf("errors %v, %v", err, dbErr)
			}
			if got != tt.want {
				t.Errorf("DataDir = %q, want %q", got, tt.want)
			}
			if want := filepath.Join(tt.want, "index.db"); dbPath != want {
				t.Errorf("DefaultDBPath = %q, want %q", dbPath, want)
			}
		})
	}
}
