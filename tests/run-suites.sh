#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Run test suites and add up their closing lines.
#
#   tests/run-suites.sh NAME=COMMAND...
#
# Each COMMAND is run with bash -c; its output is shown as it comes and
# its last "N passed, N failed[, N skipped]" line is counted. A suite
# that prints no such line counts as one failure (or one skip when it
# exits 4, the kselftest skip code). The last line is the total.
set -uo pipefail

[ $# -gt 0 ] || { echo "usage: tests/run-suites.sh NAME=COMMAND..." >&2; exit 2; }

total_p=0 total_f=0 total_s=0
summary=()
log=$(mktemp)
trap 'rm -f "$log"' EXIT

for suite in "$@"; do
	name=${suite%%=*}
	cmd=${suite#*=}
	[ "$name" != "$suite" ] || { echo "run-suites: '$suite' is not NAME=COMMAND" >&2; exit 2; }
	echo "=== $name: $cmd"
	start=$(date +%s)
	bash -c "$cmd" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	line=$(grep -E '^([A-Za-z-]+: )?[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$log" | tail -n 1)
	if [ -n "$line" ]; then
		read -r p f s <<<"$(sed -E 's/^([A-Za-z-]+: )?([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?$/\2 \3 \5/' <<<"$line")"
		s=${s:-0}
		# a runner that failed without saying so still failed
		[ "$rc" = 0 ] || [ "$rc" = 4 ] || [ "$f" != 0 ] || f=1
	elif [ "$rc" = 4 ]; then
		p=0 f=0 s=1
	else
		echo "run-suites: $name printed no closing line (exit $rc)"
		p=0 f=1 s=0
	fi
	total_p=$((total_p + p)) total_f=$((total_f + f)) total_s=$((total_s + s))
	summary+=("$(printf '%-10s %4d passed, %d failed, %d skipped (exit %d, %ds)' \
		"$name" "$p" "$f" "$s" "$rc" $(( $(date +%s) - start )))")
done

echo "=== summary"
printf '%s\n' "${summary[@]}"
echo "$total_p passed, $total_f failed, $total_s skipped"
[ "$total_f" = 0 ]
