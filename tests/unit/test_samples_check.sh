#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# samples_check (tests/lib/samples_check.c), the in-VM tests' check of
# every samples.csv against the timing invariants, fed canned files: a
# plausible conversion passes; a row breaking an invariant, a row that
# does not parse, a file without rows fail (exit 1) naming the line; a
# file that is not a convbench samples.csv or cannot be read is exit 2;
# over several files the worst verdict wins, whatever the order.
#
#   tests/unit/test_samples_check.sh [TESTS_DIR]   (default build/tests)
#
# TAP lines; the last line is "N passed, N failed".

bins=${1:-build/tests}
check=$(cd "$bins" 2>/dev/null && pwd)/samples_check
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../lib/tap.sh"

if [ ! -x "$check" ]; then
	tap_ok 1 "samples_check is built ($check)"
	echo "$passed passed, $failed failed"
	exit 1
fi

HEAD=round,mode,size,direction,trigger,preserve,vcpu,iter,total_ns,first_ns,copy_ns,exit_rt_ns,after_exit_ns,exits,host_ns,host_record_ns,host_mem_ns,host_release_ns
# destructive 64K to-shared, explicit, --preserve: the copy, one exit
# round trip holding the host handler (record + memory <= host <= exit)
GOOD=0,destructive,64K,to-shared,explicit,1,0,0,509010,139000,16000,93000,400000,1,57000,19000,36000,0
# the same, in place and without a copy; and an implicit one (16 exits,
# its record update in the sample)
GOOD_I=0,inplace,64K,to-private,explicit,0,1,3,493010,123000,0,93000,400000,1,57000,19000,36000,0
GOOD_IMP=0,inplace,64K,to-shared,implicit,1,0,4,519010,49000,0,0,500000,16,57000,19000,36000,0

csv() {	# FILE ROW...
	f=$1
	shift
	{ echo "$HEAD"; for r; do echo "$r"; done; } >"$tmp/$f"
}

# run WANT-RC NAME FILE... : exit status and output in $tmp/out
run() {
	want=$1 name=$2
	shift 2
	(cd "$tmp" && "$check" "$@") >"$tmp/out" 2>&1
	rc=$?
	[ $rc -eq "$want" ]
	tap_ok $? "$name: exit $rc (want $want)"
	[ $rc -eq "$want" ] || sed 's/^/# /' "$tmp/out"
}

csv good.csv "$GOOD" "$GOOD_I" "$GOOD_IMP"
run 0 "three plausible conversions" good.csv
grep -q '^samples_check: good.csv: 3 rows, all invariants hold$' "$tmp/out"
tap_ok $? "the passing file is named with its row count"

# one field changed from the good row: each must be refused
bad() {	# NAME ROW WORDS (grep -E pattern the reason must contain)
	csv bad.csv "$GOOD" "$2"
	run 1 "$1" bad.csv
	grep -qE "^samples_check: bad.csv:3: [a-z]+ 64K to-shared vcpu 0 iter 0: .*($3)" "$tmp/out" &&
		grep -q '1 of 2 rows break a timing invariant' "$tmp/out"
	tap_ok $? "$1: line 3 named with the cell and why"
}
bad "host handler outside the exit round trip" \
	0,destructive,64K,to-shared,explicit,1,0,0,509010,139000,16000,93000,400000,1,99000,19000,36000,0 \
	'host handler'
bad "no copy where destructive --preserve copies" \
	0,destructive,64K,to-shared,explicit,1,0,0,509010,139000,0,93000,400000,1,57000,19000,36000,0 \
	'copy'
bad "the parts longer than the total" \
	0,destructive,64K,to-shared,explicit,1,0,0,400000,139000,16000,93000,400000,1,57000,19000,36000,0 \
	'total'
bad "the first access before the request returned" \
	0,destructive,64K,to-shared,explicit,1,0,0,509010,50000,16000,93000,400000,1,57000,19000,36000,0 \
	'first'
bad "two exits for an explicit conversion" \
	0,destructive,64K,to-shared,explicit,1,0,0,509010,139000,16000,93000,400000,2,57000,19000,36000,0 \
	'exit'
bad "a to-shared that releases memory" \
	0,destructive,64K,to-shared,explicit,1,0,0,509010,139000,16000,93000,400000,1,57000,19000,36000,500 \
	'release'
bad "a field that is not a number" \
	0,destructive,64K,to-shared,explicit,1,0,0,5090x0,139000,16000,93000,400000,1,57000,19000,36000,0 \
	'does not parse'
bad "an unknown mode" \
	0,destructiv,64K,to-shared,explicit,1,0,0,509010,139000,16000,93000,400000,1,57000,19000,36000,0 \
	'does not parse'
bad "a short row" \
	0,destructive,64K,to-shared,explicit,1,0,0,509010,139000 'does not parse'

csv many.csv "$GOOD" "$(echo "$GOOD" | sed 's/,57000,/,99000,/')" \
	"$(echo "$GOOD" | sed 's/,57000,/,99001,/')" "$(echo "$GOOD" | sed 's/,57000,/,99002,/')" \
	"$(echo "$GOOD" | sed 's/,57000,/,99003,/')" "$(echo "$GOOD" | sed 's/,57000,/,99004,/')" \
	"$(echo "$GOOD" | sed 's/,57000,/,99005,/')" "$(echo "$GOOD" | sed 's/,57000,/,99006,/')"
run 1 "seven bad rows of eight" many.csv
[ "$(grep -c '^samples_check: many.csv:[0-9]*: ' "$tmp/out")" -eq 5 ] &&
	grep -q '7 of 8 rows break a timing invariant' "$tmp/out"
tap_ok $? "seven bad rows: the first five shown, all seven counted"

csv empty.csv
run 1 "a header and no rows (a run that recorded nothing)" empty.csv
sed 's/host_ns/host/' "$tmp/good.csv" >"$tmp/nocol.csv"
run 2 "a header without host_ns: not a samples.csv" nocol.csv
: >"$tmp/zero.csv"
run 2 "an empty file" zero.csv
run 2 "a file that does not exist" missing.csv
run 2 "no file given"

csv bad.csv "$GOOD" 0,destructive,64K,to-shared,explicit,1,0,0,509010,139000,16000,93000,400000,1,99000,19000,36000,0
run 1 "a bad file, then a good one" bad.csv good.csv
run 1 "a good file, then a bad one" good.csv bad.csv
run 2 "a bad file, then a missing one" bad.csv missing.csv
run 2 "a missing file, then a bad one" missing.csv bad.csv

tap_finish
