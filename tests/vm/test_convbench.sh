#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# convbench end to end inside the project's kernel: destructive mode at
# 4K and 2M with both triggers, in-place mode, both in one run; small
# counts. Every conversion must be
# verified, the histograms non-empty, and the files of --out complete.
# busybox sh; TAP lines and a closing "N passed, N failed" line.

cd "$(dirname "$0")" || exit 1
CB=./convbench
n=0 passed=0 failed=0 skipped=0
work=${TMPDIR:-/tmp}/test_convbench.$$
mkdir -p "$work"

ok() {	# COND-STATUS NAME
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"; passed=$((passed + 1))
	else
		echo "not ok $n - $2"; failed=$((failed + 1))
	fi
}

if ! "$CB" --help >/dev/null 2>&1; then
	echo "ok 1 - convbench # SKIP convbench not built"
	echo "0 passed, 0 failed, 1 skipped"
	exit 4
fi

# SIZE TRIGGER ITERATIONS [MODE]
run_cell() {
	mode=${4:-destructive}
	out=$work/$mode-$1-$2
	"$CB" --mode="$mode" --size="$1" --trigger="$2" \
		--iterations="$3" --warmup=2 --stall-timeout=20 --out="$out" \
		>"$out.txt" 2>&1
	rc=$?
	if [ $rc -eq 4 ] && [ "${CONVBENCH_REQUIRE_SERIES:-0}" != 1 ]; then
		n=$((n + 1)); skipped=$((skipped + 1))
		echo "ok $n - $1 $2 # SKIP $(tail -n 1 "$out.txt")"
		return
	fi
	ok $rc "$1 $2: convbench exits 0 (got $rc)"
	[ $rc -eq 0 ] || sed 's/^/# /' "$out.txt" | tail -n 20
	for dir in to-shared to-private; do
		grep -q "^$mode $1 $dir ($2, preserve, 1 vCPU): $3 conversions, all verified" "$out.txt"
		ok $? "$mode $1 $2 $dir: $3 conversions, all verified"
	done
	rows=$(grep -c -- ' -> ' "$out.txt")
	[ "$rows" -ge 2 ]
	ok $? "$1 $2: histogram rows printed ($rows)"
	lines=$(wc -l <"$out/samples.csv" 2>/dev/null || echo 0)
	[ "$lines" -eq $((2 * $3 + 1)) ]
	ok $? "$1 $2: samples.csv has $((2 * $3)) samples ($((lines - 1)))"
	grep -q '"all_verified": true' "$out/summary.json" 2>/dev/null &&
		! grep -q '"all_verified": false' "$out/summary.json"
	ok $? "$1 $2: summary.json says all verified"
	[ -s "$out/hist.csv" ] && [ -s "$out/histograms.txt" ]
	ok $? "$1 $2: hist.csv and histograms.txt written"
}

run_cell 4K explicit 100
run_cell 2M explicit 10
run_cell 4K implicit 100
run_cell 2M implicit 5
run_cell 4K explicit 100 inplace
run_cell 2M explicit 5 inplace
run_cell 64K implicit 20 inplace

# both modes in one run: the ratio table
"$CB" --mode=destructive,inplace --size=64K --iterations=30 \
	>"$work/both.txt" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q "^inplace/destructive, same run" "$work/both.txt" &&
	grep -qE "^  64K  to-shared  p50 [0-9.]+ \([0-9.]+\.\.[0-9.]+\)" "$work/both.txt"
ok $? "both modes in one run print the inplace/destructive ratios (got $rc)"

"$CB" --size=3K >/dev/null 2>"$work/bad.txt"
rc=$?
[ $rc -eq 2 ] && grep -q -- '--size' "$work/bad.txt"
ok $? "a bad --size exits 2 naming the option (got $rc)"

mkdir -p "$work/used" && touch "$work/used/keep"
"$CB" --iterations=1 --out="$work/used" >/dev/null 2>&1
rc=$?
[ $rc -eq 2 ] && [ -f "$work/used/keep" ] && [ ! -f "$work/used/summary.json" ]
ok $? "--out to a non-empty folder is refused, nothing overwritten (got $rc)"

rm -rf "$work"
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ] || exit 1
[ $passed -gt 0 ] || exit 4
exit 0
