#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# convbench when things go wrong, inside the project's kernel, through
# its test hooks (--inject, on vCPU 0's conversion K; K counts warm-up):
#   - the verifier: a word the host corrupts in the middle of a page, in
#     the last word of a range, in a 2M range: exit 1 naming the gpa,
#     the value found and the one expected;
#   - a failing host handler: exit 1 naming the conversion and errno;
#   - a handler that does nothing (the guest faults forever) and a guest
#     that stalls without exits: exit 1 within seconds, naming the cell,
#     vCPU, conversion, guest RIP and last exit;
#   - a recorded sample that breaks a timing invariant: convbench
#     --debug fails the cell naming it, samples_check refuses the file;
#   - SIGTERM and SIGINT: the run ends within a second, exit 128+N;
# and every time the conversions verified before are written (exactly
# K - 2 x warm-up samples) and satisfy the timing invariants.
# busybox sh; TAP lines and a closing "N passed, N failed" line.

cd "$(dirname "$0")" || exit 1
CB=./convbench
CHECK=./samples_check
W=2			# warm-up round trips: conversions 0..3 not recorded
. ./tap.sh
work=${TMPDIR:-/tmp}/test_convbench_errors.$$
mkdir -p "$work"

finish() {
	rm -rf "$work"
	tap_finish
}

if ! "$CB" --help >/dev/null 2>&1; then
	tap_skip convbench "convbench not built"
	finish
fi

# centiseconds since boot (busybox has no sub-second date)
now_cs() {
	awk '{ printf "%d\n", $1 * 100 }' /proc/uptime
}

# a convbench that hangs after all is killed: these tests never hang
GUARD_S=30
guard() {
	if command -v timeout >/dev/null 2>&1; then
		timeout -s KILL $GUARD_S "$@"
	else
		"$@"
	fi
}

# run NAME ARGS...: convbench --out=$work/NAME, status in $rc, its
# stderr and stdout in $work/NAME.err and .out, its time in $cs
run() {
	name=$1
	shift
	t0=$(now_cs)
	guard "$CB" --rounds=1 --warmup=$W --stall-timeout=20 --out="$work/$name" "$@" \
		>"$work/$name.out" 2>"$work/$name.err"
	rc=$?
	cs=$(( $(now_cs) - t0 ))
	[ $rc -eq 4 ] && [ "${CONVBENCH_REQUIRE_SERIES:-0}" != 1 ] && {
		tap_skip "$name" "$(tail -n 1 "$work/$name.err")"
		finish
	}
	sed 's/^/# /' "$work/$name.err"
}

# what a failed or stopped run must still leave: samples.csv with
# exactly the conversions verified before K, within the invariants,
# and summary.json, last, saying how the cell ended
partial() {	# partial NAME ROWS JSON-PATTERN
	rows=$(($(wc -l <"$work/$1/samples.csv" 2>/dev/null || echo 0) - 1))
	[ "$rows" -eq "$2" ] && grep -q "$3" "$work/$1/summary.json" 2>/dev/null &&
		[ -s "$work/$1/histograms.txt" ]
	tap_ok $? "$1: partial results written: $2 samples ($rows), summary.json has $3"
	"$CHECK" "$work/$1/samples.csv" >"$work/check.txt" 2>&1
	tap_ok $? "$1: the partial samples.csv satisfies the timing invariants"
	sed 's/^/# /' "$work/check.txt" | tail -n 6
}

# found ^ expected, from two 64-bit hex numbers in 32-bit halves (the
# shell's arithmetic is signed 64-bit)
pad16() {
	h=${1#0x}
	while [ ${#h} -lt 16 ]; do h=0$h; done
	echo "$h"
}
xor64() {
	a=$(pad16 "$1") b=$(pad16 "$2")
	printf '0x%08x%08x\n' $((0x${a%????????} ^ 0x${b%????????})) \
		$((0x${a#????????} ^ 0x${b#????????}))
}

# --- the verifier: the guest must see the corrupted word and say where
# verifier NAME GPA ARGS...: conversion 6 (to-shared) is corrupted
verifier() {
	name=$1 gpa=$2
	shift 2
	run "$name" --iterations=10 "$@"
	# %#llx prints 0 without 0x
	line=$(grep -E "conversion 6 \(to-shared\): gpa $gpa holds (0x[0-9a-f]+|0), expected (0x[0-9a-f]+|0)$" "$work/$name.err")
	[ $rc -eq 1 ] && [ -n "$line" ]
	tap_ok $? "$name: exit 1 naming gpa $gpa, found and expected (got $rc)"
	found=$(echo "$line" | sed 's/.* holds \([0-9a-fx]*\),.*/\1/')
	want=$(echo "$line" | sed 's/.* expected \([0-9a-fx]*\)$/\1/')
	[ -n "$line" ] && [ "$(xor64 "$found" "$want")" = 0x00ff00ff00ff00ff ]
	tap_ok $? "$name: found ^ expected is the flipped bits ($found ^ $want)"
	grep -q "^$mode_size: FAILED: vCPU 0: conversion 6 (to-shared): gpa $gpa" "$work/$name.out"
	tap_ok $? "$name: stdout says which cell FAILED"
	partial "$name" $((6 - 2 * W)) '"all_verified": false'
}
mode_size="inplace 4K"
verifier corrupt-mid-page 0x40000800 --mode=inplace --size=4K \
	--inject=corrupt@6:2048
mode_size="inplace 64K"
verifier corrupt-last-word 0x4000fff8 --mode=inplace --size=64K \
	--trigger=implicit --inject=corrupt@6:65528
mode_size="destructive 2M"
verifier corrupt-2M 0x401003d8 --mode=destructive --size=2M --no-preserve \
	--inject=corrupt@6:1049560
grep -q 'holds 0xff00ff00ff00ff, expected 0$' "$work/corrupt-2M.err"
tap_ok $? "corrupt-2M: --no-preserve expects zeroes and finds the flipped bits"

# --- a conversion that fails in the host handler
run handler-fails --iterations=10 --inject=fail@7
grep -q "^convbench: destructive 4K: vCPU 0: conversion 7: converting gpa 0x40000000+0x1000 to private: Input/output error (injected failure)$" "$work/handler-fails.err"
tap_ok $? "handler-fails: the message names cell, vCPU, conversion, range and errno"
[ $rc -eq 1 ]
tap_ok $? "handler-fails: exit 1 ($rc)"
partial handler-fails $((7 - 2 * W)) '"error": "vCPU 0: conversion 7: converting'

# --- no livelock: a handler that never makes the range usable
# livelock NAME CELL K DIR ARGS...
livelock() {
	name=$1 cell=$2 k=$3 dir=$4
	shift 4
	run "$name" --iterations=10 "$@"
	grep -q "^convbench: $cell: vCPU 0: conversion $k ($dir) took more than [0-9]* exits (guest rip 0x[0-9a-f]*[1-9a-f][0-9a-f]*, last exit MEMORY_ERROR at gpa 0x40000000)" "$work/$name.err"
	tap_ok $? "$name: exit bound hit, naming $cell, vCPU 0, conversion $k, guest RIP, last exit"
	[ $rc -eq 1 ] && [ $cs -lt 1000 ]
	tap_ok $? "$name: exit 1 in $cs cs, not a hang"
	partial "$name" $((k - 2 * W)) '"all_verified": false'
}
livelock skip-punch "destructive 4K" 6 to-shared --inject=skip@6
livelock skip-fallocate "destructive 64K" 5 to-private --size=64K \
	--trigger=implicit --inject=skip@5
livelock skip-inplace "inplace 4K" 7 to-private --mode=inplace \
	--inject=skip@7
run max-exits --iterations=2 --size=64K --trigger=implicit --max-exits=15
grep -q "conversion 0 (to-shared) took more than 15 exits" "$work/max-exits.err"
tap_ok $? "--max-exits=15 fails a 64K implicit conversion (16 faults) ($rc)"

# --- no hang: a guest that stalls without exits
run stall --iterations=10 --stall-timeout=1 --inject=hang@6
grep -q "^convbench: destructive 4K: vCPU 0: conversion 6 (to-shared) did not finish within 1 s (guest rip 0x[0-9a-f]*[1-9a-f][0-9a-f]*, last exit HYPERCALL" "$work/stall.err"
tap_ok $? "stall: time bound hit, naming cell, vCPU, conversion, guest RIP, last exit"
[ $rc -eq 1 ] && [ $cs -lt 500 ]
tap_ok $? "stall: exit 1 in $cs cs (bound 1 s)"
partial stall $((6 - 2 * W)) '"all_verified": false'

# --- the timing invariants: one recorded sample whose host handler
# outlasts its exit round trip (as if host phases went to the wrong
# conversion); --debug must refuse the cell, samples_check the file
run skew-debug --iterations=10 --debug --inject=skew@6
grep -q "^convbench: destructive 4K: --debug: 1 of [0-9]* conversions break a timing invariant, the first: vCPU 0 iteration 1 to-shared: host handler [0-9]* outside the guest's exit round trip" "$work/skew-debug.err"
tap_ok $? "skew --debug: convbench names the sample and the invariant it breaks"
[ $rc -eq 1 ]
tap_ok $? "skew --debug: exit 1 ($rc)"
run skew --iterations=10 --inject=skew@6
"$CHECK" "$work/skew/samples.csv" >"$work/check.txt" 2>&1
crc=$?
sed 's/^/# /' "$work/check.txt" | tail -n 3
[ $rc -eq 0 ] && [ $crc -ne 0 ] &&
	grep -q "to-shared vcpu 0 iter 1: host handler [0-9]* outside" "$work/check.txt"
tap_ok $? "skew: without --debug the run exits 0 ($rc) and samples_check refuses the sample ($crc)"

# --- signals: within a second, what was measured is written
# stop NAME SIGNAL WAIT-S ARGS...: the run is signalled after WAIT-S
stop() {
	name=$1 sig=$2 wait_s=$3
	shift 3
	"$CB" --rounds=1 --warmup=$W --out="$work/$name" "$@" >"$work/$name.out" \
		2>"$work/$name.err" &
	pid=$!
	sleep "$wait_s"
	t0=$(now_cs)
	kill -"$sig" $pid
	# one that does not stop is killed (rc 137) after 10 s
	( sleep 10; kill -KILL $pid 2>/dev/null ) &
	watcher=$!
	wait $pid
	rc=$?
	cs=$(( $(now_cs) - t0 ))
	kill $watcher 2>/dev/null
	sed 's/^/# /' "$work/$name.err"
}
stop term-stalled TERM 1 --iterations=10 --inject=hang@6
[ $rc -eq 143 ] && [ $cs -le 100 ]
tap_ok $? "SIGTERM ends a stalled run in $cs cs, exit 143 ($rc)"
grep -q "^destructive 4K: interrupted by a signal after 6 conversions" "$work/term-stalled.out"
tap_ok $? "term-stalled: stdout says the cell was interrupted"
partial term-stalled $((6 - 2 * W)) '"interrupted": true'

stop int-running INT 2 --size=64K,4K --duration=30
rows=$(($(wc -l <"$work/int-running/samples.csv" 2>/dev/null || echo 0) - 1))
[ $rc -eq 130 ] && [ $cs -le 100 ]
tap_ok $? "SIGINT ends a running cell in $cs cs, exit 130 ($rc)"
[ "$rows" -gt 0 ] && grep -q '"interrupted": true' "$work/int-running/summary.json" &&
	"$CHECK" "$work/int-running/samples.csv" >"$work/check.txt"
tap_ok $? "int-running: $rows samples written, marked interrupted, invariants hold"
# the sizes run in a shuffled order: whichever ran, it is the only one
cells=$(grep -c '"size_bytes"' "$work/int-running/summary.json" 2>/dev/null)
[ "$cells" -eq 2 ]
tap_ok $? "int-running: no cell starts after the signal (one cell, two directions: $cells)"

finish
