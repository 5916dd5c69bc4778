#!/bin/bash
# mypy over the installed package's real module names (anchorgate.graph, anchorgate.tools, ...).
#
# Checking the folders by path (mypy graph agents tools ...) cannot follow `import anchorgate.tools.x`:
# setuptools maps those names to the top-level folders (pyproject.toml package-dir) through an import
# hook mypy does not run, so every cross-module import would be Any and no key or signature checked.
# A link tree with the installed layout lets mypy resolve them. It lives in .typecheck/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
farm="$root/.typecheck"
rm -rf "$farm/anchorgate"
mkdir -p "$farm/anchorgate"
for file in "$root"/anchorgate/*.py; do ln -s "$file" "$farm/anchorgate/"; done
for folder in graph studio agents tools eval prompts; do ln -s "$root/$folder" "$farm/anchorgate/$folder"; done
cd "$farm"
exec "$root/.venv/bin/mypy" --config-file "$root/pyproject.toml" --cache-dir "$farm/.mypy_cache" -p anchorgate "$@"
