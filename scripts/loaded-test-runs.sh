#!/usr/bin/env bash
# Runs the README's set-up and test commands (`npm ci && npm test`) RUNS times in a row in a fresh
# clone of this repository, while every CPU is kept busy by another process (one busy loop per
# core, at the same priority as the tests). A test that waits on timing instead of on an event
# fails here first. Prints one line per run (seconds, test files and tests passed and failed, the
# failing tests), the temp folder entries each run left behind, and exits 1 when any run failed.
#
#   scripts/loaded-test-runs.sh [RUNS] [CLONE_DIR]     (default 5, a new folder under /tmp)
set -uo pipefail
runs=${1:-5}
repo=$(cd "$(dirname "$0")/.." && pwd)
clone=${2:-$(mktemp -d "${TMPDIR:-/tmp}/shift-export-loaded-XXXXXX")}
log_dir="$clone.logs"
mkdir -p "$log_dir"
[ -d "$clone/.git" ] || git clone -q "$repo" "$clone"
# A clone needs ../shared beside it, as CI has it.
[ -e "$(dirname "$clone")/shared" ] || ln -s "$(dirname "$repo")/shared" "$(dirname "$clone")/shared"

load=()
for _ in $(seq "$(nproc)"); do
  node -e 'for (;;) {}' &
  load+=($!)
done
trap 'kill "${load[@]}" 2>/dev/null' EXIT
echo "load: ${#load[@]} busy loops (pids ${load[*]}); logs in $log_dir"

failed=0
for run in $(seq "$runs"); do
  temp_before=$(find "${TMPDIR:-/tmp}" -mindepth 1 -maxdepth 1 -printf '%f\n' | sort)
  started=$SECONDS
  (cd "$clone" && npm ci --no-audit --no-fund >/dev/null 2>&1 && npm test) >"$log_dir/run-$run.log" 2>&1
  status=$?
  took=$((SECONDS - started))
  clean=$(sed 's/\x1b\[[0-9;]*m//g' "$log_dir/run-$run.log")
  files=$(grep -E '^ *Test Files ' <<<"$clean" | tail -1 | sed 's/^ *//')
  tests=$(grep -E '^ *Tests ' <<<"$clean" | tail -1 | sed 's/^ *//')
  failing=$(grep -E '^ *(FAIL|×) ' <<<"$clean" | sed 's/^ *//' | sort -u | head -20)
  left=$(comm -13 <(printf '%s\n' "$temp_before") \
    <(find "${TMPDIR:-/tmp}" -mindepth 1 -maxdepth 1 -printf '%f\n' | sort) | grep -v "^$(basename "$log_dir")$" || true)
  echo "run $run: exit $status, ${took} s; $files; $tests"
  [ -n "$failing" ] && printf '  %s\n' "$failing"
  [ -n "$left" ] && printf '  left in the temp folder: %s\n' "$left"
  [ "$status" -eq 0 ] || failed=1
done
exit "$failed"
