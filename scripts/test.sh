#!/usr/bin/env bash
# npm test [-- file ...]: node's test runner over real HTTPS.
#
# With file names: those files, one at a time. Without: every test file in two passes —
#  1. files that share nothing (own data directory and database, own ports) run PIXD_TEST_CONCURRENCY at a
#     time (default 2: the files wait on the network and the database as much as they compute);
#  2. files marked `// suite: serial` (kill -9, hanging receivers, Redis, dropped connections, short
#     delivery timeouts a busy machine would miss, the headless browser) one at a time, alone.
# Files marked `// suite: database-independent` (their outcome does not depend on DATABASE_URL: sources, pure
# functions, the embedded database's own faults, the installed package whose sandbox is always embedded) run
# only when DATABASE_URL is unset: on the PostgreSQL pass they would repeat the embedded pass to the letter.
# The browser tests are marked so too: their subject is the pages (docs/architecture.md, Tests).
# The exit status is the first pass's failure, else the second's.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each file runs bundled with what it imports (scripts/test-build.ts: a second less of every file's start than
# tsx's loader); source maps name the .ts lines. A file may take up to ten minutes: test/package installs the
# packed package from the npm registry.
mkdir -p node_modules/.cache/pixd
build_dir=$(mktemp -d node_modules/.cache/pixd/test-build.XXXXXX)
trap 'rm -rf "$build_dir"' EXIT
# The bundled files' list goes to a file, not through a process substitution, so that a build that fails (a
# missing file, an import of nothing) stops the run here.
bundle() { node --import tsx scripts/test-build.ts "$build_dir" "$@" > "$build_dir/files"; }
run() { node --enable-source-maps --test --test-timeout=600000 "$@"; }
if [ "$#" -gt 0 ]; then
  bundle "$@"
  mapfile -t files < "$build_dir/files"
  run --test-concurrency=1 "${files[@]}"
  exit
fi

mapfile -t all < <(find test -name '*.test.ts' | sort)
if [ -n "${DATABASE_URL:-}" ]; then
  mapfile -t all < <(grep -L '^// suite: database-independent' "${all[@]}")
fi
mapfile -t serial < <(grep -l '^// suite: serial' "${all[@]}" || true)
mapfile -t parallel < <(printf '%s\n' "${all[@]}" | grep -vxF -f <(printf '%s\n' "${serial[@]}"))

# One build for both passes (the files share their chunks); its output keeps the order given.
bundle "${parallel[@]}" "${serial[@]}"
mapfile -t out < "$build_dir/files"
serial=("${out[@]:${#parallel[@]}}")
parallel=("${out[@]:0:${#parallel[@]}}")

status=0
echo "== ${#parallel[@]} files, ${PIXD_TEST_CONCURRENCY:-2} at a time"
run --test-concurrency="${PIXD_TEST_CONCURRENCY:-2}" "${parallel[@]}" || status=$?
echo "== ${#serial[@]} files marked serial, one at a time"
run --test-concurrency=1 "${serial[@]}" || { rc=$?; [ "$status" -ne 0 ] || status=$rc; }
exit "$status"
