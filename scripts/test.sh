#!/usr/bin/env bash
# npm test [-- file ...]: the named test files, or every test file; node's test runner over real HTTPS.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$#" -gt 0 ]; then files=("$@"); else mapfile -t files < <(find test -name '*.test.ts' | sort); fi
exec node --import tsx --test --test-concurrency=1 --test-timeout=180000 "${files[@]}"
