#!/usr/bin/env bash
# Installs what spillscope needs on Debian 12 and skips whatever is already
# there, so a second run costs a few checks. Without root or apt it prints the
# exact command to run and stops.
set -euo pipefail
cd "$(dirname "$0")/.."

# fonts-noto-cjk: the app ships no font, and without a CJK one every Chinese,
# Japanese or Korean character (the Chinese UI, text inside results) is a box.
# desktop-file-utils: make test-package validates the .deb's desktop entry.
want=(libgtk-3-dev libwebkit2gtk-4.1-dev xvfb xauth xdotool imagemagick chromium pkg-config gcc fonts-noto-cjk desktop-file-utils)
missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    echo "deps: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "deps: missing Debian packages: ${missing[*]}" >&2
    echo "deps: install them with:  sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi

for tool in go node npm; do
  command -v "$tool" >/dev/null || { echo "deps: $tool is not on PATH (need Go >= 1.26, Node 20 with npm)" >&2; exit 1; }
done

# npm packages from the committed lockfile; the stamp makes a second run free.
stamp=frontend/node_modules/.spillscope-lock
if [ ! -f "$stamp" ] || ! cmp -s frontend/package-lock.json "$stamp"; then
  echo "deps: npm ci"
  (cd frontend && npm ci --no-audit --no-fund --loglevel=error)
  cp frontend/package-lock.json "$stamp"
fi

# Go modules (a no-op when the module cache has them); build/package is its
# own module so nfpm's dependencies stay out of the app's go.mod.
go mod download
(cd build/package && go mod download)
