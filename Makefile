# Two commands matter: `make run` opens the app on the bundled sample sessions,
# `make test` runs every test. Both install what is missing first.
SHELL := /bin/bash
GO_TAGS_TEST := sqlite_fts5
# The CLI (build/bin/spillscope) links no GUI library; with no arguments it
# execs the window binary beside it (build/bin/spillscope-window).
GO_TAGS_CLI := sqlite_fts5
GO_TAGS_PROD := desktop,production,webkit2_41,sqlite_fts5
GO_TAGS_DEV := dev,webkit2_41,sqlite_fts5
FRONTEND_SRC := $(shell find frontend/src frontend/public frontend/index.html frontend/vite.config.ts frontend/package.json -type f 2>/dev/null)
GO_SRC := $(shell find . -name '*.go' -not -path './frontend/*' -not -path './build/*' 2>/dev/null) go.mod go.sum
SAMPLE_DIR := tmp/sample
SAMPLE_DATA := $(CURDIR)/tmp/sample-data
HOSTILE_DIR := tmp/hostile
HOSTILE_DATA := $(CURDIR)/tmp/hostile-data
# HOSTILE_SESSIONS=10000 adds that many small sessions to the hostile corpus
# (written once: remove tmp/hostile to change it).
HOSTILE_SESSIONS ?= 0

.PHONY: deps run run-hostile test test-go test-frontend test-e2e test-package package build app-dev bindings generate bench clean

deps:
	@build/deps.sh

frontend/dist/index.html: $(FRONTEND_SRC) frontend/node_modules/.spillscope-lock
	cd frontend && npm run build

frontend/node_modules/.spillscope-lock: frontend/package-lock.json
	@build/deps.sh

build/bin/spillscope: $(GO_SRC) build/bin/spillscope-window
	go build -tags $(GO_TAGS_CLI) -ldflags "-s -w" -o $@ .

build/bin/spillscope-window: $(GO_SRC) frontend/dist/index.html
	go build -tags $(GO_TAGS_PROD) -ldflags "-s -w" -o $@ .

app-dev: $(GO_SRC) frontend/dist/index.html
	go build -tags $(GO_TAGS_DEV) -o $@ .

build: deps build/bin/spillscope

# Regenerate the committed TypeScript bindings after changing a bound method.
bindings:
	go build -tags bindings,webkit2_41,$(GO_TAGS_TEST) -o tmp/bindgen . && tmp/bindgen
	rm -f tmp/bindgen

# Rebuild the committed vocabulary tables from tiktoken-go's vocabularies
# (after upgrading tiktoken-go-loader; a test fails while they are stale).
generate:
	go generate ./retention/internal/vocab

run: deps build/bin/spillscope
	@if [ -z "$${DISPLAY:-}$${WAYLAND_DISPLAY:-}" ]; then \
	  echo "make run: no display (DISPLAY/WAYLAND_DISPLAY unset); run it from a desktop session or under xvfb-run" >&2; exit 1; fi
	@mkdir -p tmp
	@if [ ! -d $(SAMPLE_DIR) ]; then build/bin/spillscope sample --out $(SAMPLE_DIR) >/dev/null || rm -rf $(SAMPLE_DIR); fi
	@if [ -d $(SAMPLE_DIR) ]; then XDG_DATA_HOME=$(SAMPLE_DATA) build/bin/spillscope index $(SAMPLE_DIR) >/dev/null || true; fi
	SPILLSCOPE_ROOTS=$(CURDIR)/$(SAMPLE_DIR) XDG_DATA_HOME=$(SAMPLE_DATA) build/bin/spillscope

# `make run-hostile` opens the app on a corpus written to be hostile: forged
# spill notices, credentials of every family in every spelling, script text,
# 200 images, 50 MB single lines, a 2 GB sparse spill file.
run-hostile: deps build/bin/spillscope
	@if [ -z "$${DISPLAY:-}$${WAYLAND_DISPLAY:-}" ]; then \
	  echo "make run-hostile: no display (DISPLAY/WAYLAND_DISPLAY unset); run it from a desktop session or under xvfb-run" >&2; exit 1; fi
	@mkdir -p tmp
	@if [ ! -d $(HOSTILE_DIR) ]; then build/bin/spillscope sample --hostile --sessions $(HOSTILE_SESSIONS) --out $(HOSTILE_DIR) >tmp/hostile-manifest.json || rm -rf $(HOSTILE_DIR); fi
	@if [ -d $(HOSTILE_DIR) ]; then XDG_DATA_HOME=$(HOSTILE_DATA) build/bin/spillscope index $(HOSTILE_DIR) >/dev/null || true; fi
	SPILLSCOPE_ROOTS=$(CURDIR)/$(HOSTILE_DIR) XDG_DATA_HOME=$(HOSTILE_DATA) build/bin/spillscope

test: deps test-go test-frontend test-e2e test-package

# The race detector runs every package; the retention core's single-goroutine
# reference checks (against tiktoken-go and regexp2) skip under it and run in
# the second, plain pass, where they take a tenth of the time.
test-go:
	go vet -tags $(GO_TAGS_TEST) ./...
	go test -race -tags $(GO_TAGS_TEST) ./...
	go test -tags $(GO_TAGS_TEST) ./retention/...

test-frontend: frontend/node_modules/.spillscope-lock
	cd frontend && npm run check && npm run test:unit

test-e2e: app-dev build/bin/spillscope
	cd frontend && npm run test:e2e

# The Debian package: both binaries, desktop entry, icons and licence,
# built with nfpm as a library (build/package, its own module).
package: deps build/bin/spillscope
	cd build/package && go run . -bin $(CURDIR)/build/bin/spillscope -window $(CURDIR)/build/bin/spillscope-window -repo $(CURDIR) -out $(CURDIR)/build/bin

# Builds the package from the real binary and checks it as apt would see it.
test-package: build/bin/spillscope
	cd build/package && go vet ./... && SPILLSCOPE_BIN=$(CURDIR)/build/bin/spillscope SPILLSCOPE_WINDOW_BIN=$(CURDIR)/build/bin/spillscope-window go test ./...

bench:
	go test -tags $(GO_TAGS_TEST) -run '^$$' -bench . -benchmem ./...

clean:
	rm -rf build/bin app-dev tmp test-artifacts frontend/dist/assets frontend/dist/index.html frontend/dist/appicon.png frontend/dist/startup.js frontend/dist/firstpage.js
