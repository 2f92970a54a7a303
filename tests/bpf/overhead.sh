#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# What convtrace costs: the same timed workload without and with
# convtrace attached, alternating, ROUNDS times, for both conversions of
# one page on an MFD_INACCESSIBLE memfd:
#   destructive  fallocate + PUNCH_HOLE (v5 as posted)
#   inplace      MEMFD_IOC_CONVERT_RANGE to shared + back (our 0019;
#                skipped on a kernel without it)
#   destructive-kprobes  the first again with convtrace -K (kprobes
#                instead of fentry/fexit)
# Reports the median pair time of each side (median over rounds of each
# run's median), the probe hits per pair (from convtrace's CSV, warmup
# included), and the overhead per hit and as a share of the untraced pair.
#
#   overhead.sh [PAIRS]      (default 2000; ROUNDS=3 in the environment)
#
# busybox sh. Informational: exit 0 unless a run fails.

HERE=$(cd "$(dirname "$0")" && pwd)
P=${1:-2000}
ROUNDS=${ROUNDS:-3}
W=50
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

median() {	# median of the numbers on stdin
	sort -n | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : 0 }'
}

measure() {	# measure NAME CONVTRACE-ARGS WORKLOAD-ARGS...
	name=$1
	ct_args=$2
	shift 2
	if ! "$HERE/workload" "$@" --pairs 10 --warmup 0 > /dev/null 2>&1; then
		echo "$name: not measured (the workload fails here)"
		return
	fi
	r=1
	while [ $r -le "$ROUNDS" ]; do
		"$HERE/workload" "$@" --pairs "$P" --warmup $W > "$tmp/base.$r" ||
			return 1
		# shellcheck disable=SC2086
		"$HERE/convtrace" $ct_args -q -o "$tmp/ct.$r.csv" -- \
			"$HERE/workload" "$@" \
			--pairs "$P" --warmup $W > "$tmp/traced.$r" \
			2> "$tmp/ct.$r.err" || { cat "$tmp/ct.$r.err"; return 1; }
		echo "$name round $r: untraced $(cat "$tmp/base.$r")"
		echo "$name round $r: traced   $(cat "$tmp/traced.$r")"
		r=$((r + 1))
	done
	base=$(cat "$tmp"/base.* | awk '{ print $4 }' | median)
	traced=$(cat "$tmp"/traced.* | awk '{ print $4 }' | median)
	awk -F, -v pairs=$((P + W)) '
		NR > 1 && $1 !~ /^#/ && !seen[$1 "," $3]++ { c[$1] += $5 }
		END { for (p in c) if (c[p]) printf "%s %.2f\n", p, c[p] / pairs }' \
		"$tmp/ct.$ROUNDS.csv" | sort > "$tmp/hits"
	echo "$name probe hits per pair:"
	sed 's/^/  /' "$tmp/hits"
	awk -v n="$name" -v b="$base" -v t="$traced" '{ h += $2 } END {
		d = t - b
		printf "%s median pair: untraced %d ns, traced %d ns, difference %d ns (%.1f %%)\n", n, b, t, d, b ? 100 * d / b : 0
		if (h > 0)
			printf "%s overhead: %.2f hits per pair, %.0f ns per probe hit\n", n, h, d / h
	}' "$tmp/hits"
	rm -f "$tmp"/base.* "$tmp"/traced.* "$tmp"/ct.*
}

measure destructive "" || exit 1
measure inplace "" --inplace || exit 1
measure destructive-kprobes -K || exit 1
