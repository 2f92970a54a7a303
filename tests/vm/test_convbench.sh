#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# convbench end to end inside the project's kernel: both modes, both
# triggers and both content semantics (--preserve: the guest finds its
# old data after every conversion; --no-preserve: it finds zeroes), at
# 4K, 64K and 2M; small counts. Every conversion must be verified, the
# histograms non-empty, the files of --out complete, and every
# samples.csv must satisfy the timing invariants (samples_check, the
# code of convbench --debug, which some cells also run).
# busybox sh; TAP lines and a closing "N passed, N failed" line.

cd "$(dirname "$0")" || exit 1
CB=./convbench
CHECK=./samples_check
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

# every samples.csv a test makes: the timing invariants hold
check_samples() {	# check_samples CSV NAME
	"$CHECK" "$1" >"$work/check.txt" 2>&1
	ok $? "$2: samples.csv satisfies the timing invariants"
	sed 's/^/# /' "$work/check.txt" | tail -n 6
}

# SIZE TRIGGER ITERATIONS MODE CONTENT [OPTION...]
# CONTENT is preserve or no-preserve: what the guest checks after every
# conversion is its old data or zeroes
run_cell() {
	size=$1 trig=$2 iters=$3 mode=$4 content=$5
	shift 5
	name="$mode $size $trig $content${1:+ $*}"
	out=$work/$mode-$size-$trig-$content
	"$CB" --mode="$mode" --size="$size" --trigger="$trig" --"$content" \
		--iterations="$iters" --warmup=2 --stall-timeout=20 \
		--out="$out" "$@" >"$out.txt" 2>&1
	rc=$?
	if [ $rc -eq 4 ] && [ "${CONVBENCH_REQUIRE_SERIES:-0}" != 1 ]; then
		n=$((n + 1)); skipped=$((skipped + 1))
		echo "ok $n - $name # SKIP $(tail -n 1 "$out.txt")"
		return
	fi
	ok $rc "$name: convbench exits 0 (got $rc)"
	[ $rc -eq 0 ] || sed 's/^/# /' "$out.txt" | tail -n 20
	for dir in to-shared to-private; do
		grep -q "^$mode $size $dir ($trig, $content, 1 vCPU): $iters conversions, all verified" "$out.txt"
		ok $? "$name $dir: $iters conversions, all verified"
	done
	rows=$(grep -c -- ' -> ' "$out.txt")
	[ "$rows" -ge 2 ]
	ok $? "$name: histogram rows printed ($rows)"
	lines=$(wc -l <"$out/samples.csv" 2>/dev/null || echo 0)
	[ "$lines" -eq $((2 * iters + 1)) ]
	ok $? "$name: samples.csv has $((2 * iters)) samples ($((lines - 1)))"
	want=1
	[ "$content" = preserve ] || want=0
	other=$(awk -F, -v w=$want 'NR > 1 && $5 != w' "$out/samples.csv" 2>/dev/null | wc -l)
	grep -q "\"preserve\": $([ $want = 1 ] && echo true || echo false)" "$out/summary.json" 2>/dev/null &&
		[ "$other" -eq 0 ]
	ok $? "$name: samples.csv and summary.json record $content"
	grep -q '"all_verified": true' "$out/summary.json" 2>/dev/null &&
		! grep -q '"all_verified": false' "$out/summary.json"
	ok $? "$name: summary.json says all verified"
	[ -s "$out/hist.csv" ] && [ -s "$out/histograms.txt" ]
	ok $? "$name: hist.csv and histograms.txt written"
	check_samples "$out/samples.csv" "$name"
}

# old data kept (--preserve)
run_cell 4K explicit 100 destructive preserve
run_cell 2M explicit 10 destructive preserve
run_cell 4K implicit 100 destructive preserve
run_cell 2M implicit 5 destructive preserve
run_cell 4K explicit 100 inplace preserve
run_cell 2M explicit 5 inplace preserve
run_cell 64K implicit 20 inplace preserve
# zeroes seen (--no-preserve); convbench checks its own timings too
run_cell 4K explicit 50 destructive no-preserve --debug
run_cell 2M implicit 5 destructive no-preserve --debug
run_cell 64K explicit 20 inplace no-preserve --debug
run_cell 4K implicit 50 inplace no-preserve --debug
run_cell 2M implicit 3 inplace no-preserve --debug

# both modes in one run: the ratio table
"$CB" --mode=destructive,inplace --size=64K --iterations=30 --vcpus=2 \
	--out="$work/both" >"$work/both.txt" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q "^inplace/destructive, same run" "$work/both.txt" &&
	grep -qE "^  64K  to-shared  p50 [0-9.]+ \([0-9.]+\.\.[0-9.]+\)" "$work/both.txt"
ok $? "both modes in one run print the inplace/destructive ratios (got $rc)"
check_samples "$work/both/samples.csv" "both modes, 2 vCPUs"

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
