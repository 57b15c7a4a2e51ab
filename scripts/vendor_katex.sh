#!/usr/bin/env bash
# Fetch the pinned KaTeX release from the npm registry and copy the files the panel needs
# into the package, so the panel never loads anything from the network at run time.
# Usage: bash scripts/vendor_katex.sh   (re-run after changing KATEX_VERSION)
set -euo pipefail
KATEX_VERSION="0.16.22"
cd "$(dirname "$0")/.."
dest="src/reckoner/panel/static/vendor/katex"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

(cd "$work" && npm pack --silent "katex@${KATEX_VERSION}" >/dev/null)
tar -xzf "$work/katex-${KATEX_VERSION}.tgz" -C "$work"

rm -rf "$dest"
mkdir -p "$dest/fonts"
cp "$work/package/dist/katex.min.js" "$work/package/dist/katex.min.css" "$dest/"
cp "$work/package/LICENSE" "$dest/LICENSE"
# Every browser the panel targets reads woff2, so the older formats are left out.
cp "$work/package/dist/fonts/"*.woff2 "$dest/fonts/"
# Keep the CSS pointing at woff2 only: drop the woff/ttf fallbacks from each src list.
python3 - "$dest/katex.min.css" <<'PY'
import re, sys
path = sys.argv[1]
css = open(path, encoding="utf-8").read()
css = re.sub(r',url\(fonts/[^)]+\.(?:woff|ttf)\) format\("(?:woff|truetype)"\)', "", css)
open(path, "w", encoding="utf-8").write(css)
PY
echo "katex ${KATEX_VERSION}" > "$dest/VERSION"
echo "vendored KaTeX ${KATEX_VERSION} into ${dest}"
