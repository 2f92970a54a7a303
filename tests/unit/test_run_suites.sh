#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make test's top runner (tests/run-suites.sh) with fake suites: each
# suite's last closing line ("[NAME: ]N passed, N failed[, N skipped]")
# is counted; a suite that exits non-zero (but 4) while its line says
# 0 failed still fails; no closing line is one failure (one skip on exit
# 4); a closing line inside a comment or indented does not count; the
# total adds every suite and the exit status is 0 only when nothing
# failed; bad usage is exit 2.
#
#   tests/unit/test_run_suites.sh
#
# TAP lines; the last line is "N passed, N failed".

top=$(cd "$(dirname "$0")/../.." && pwd)
rs=$top/tests/run-suites.sh
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../lib/tap.sh"

# rs NAME WANT-RC WANT-TOTAL SUITE... (each NAME=COMMAND)
run() {
	name=$1 want_rc=$2 want=$3
	shift 3
	"$rs" "$@" >"$tmp/out" 2>&1
	rc=$?
	last=$(tail -n 1 "$tmp/out")
	[ $rc -eq "$want_rc" ] && [ "$last" = "$want" ]
	tap_ok $? "$name: exit $rc, '$last' (want $want_rc, '$want')"
}
run "a passing suite" 0 "3 passed, 0 failed, 0 skipped" \
	"a=echo 'ok 1'; echo '3 passed, 0 failed'"
run "a failing suite" 1 "2 passed, 1 failed, 0 skipped" \
	"a=echo '2 passed, 1 failed'; exit 1"
run "skips counted" 0 "1 passed, 0 failed, 2 skipped" \
	"a=echo '1 passed, 0 failed, 2 skipped'"
run "a named closing line (vm: ...)" 0 "4 passed, 0 failed, 0 skipped" \
	"a=echo 'vm-debug: 4 passed, 0 failed'"
run "no closing line, exit 0" 1 "0 passed, 1 failed, 0 skipped" \
	"a=echo 'ok 1 - fine'"
run "no closing line, exit 4" 0 "0 passed, 0 failed, 1 skipped" \
	"a=echo 'no kvm'; exit 4"
run "0 failed but exit 1" 1 "5 passed, 1 failed, 0 skipped" \
	"a=echo '5 passed, 0 failed'; exit 1"
run "0 failed but exit 124 (a hung VM)" 1 "5 passed, 1 failed, 0 skipped" \
	"a=echo '5 passed, 0 failed'; exit 124"
run "0 failed, exit 4" 0 "2 passed, 0 failed, 0 skipped" \
	"a=echo '2 passed, 0 failed'; exit 4"
run "the last closing line counts (an inner one failed)" 0 "7 passed, 0 failed, 0 skipped" \
	"a=echo '1 passed, 1 failed'; echo '7 passed, 0 failed'"
run "the last closing line counts (the outer one failed)" 1 "1 passed, 2 failed, 0 skipped" \
	"a=echo '9 passed, 0 failed'; echo '1 passed, 2 failed'; exit 1"
run "a closing line in a comment does not count" 1 "0 passed, 1 failed, 0 skipped" \
	"a=echo '# 3 passed, 0 failed'"
run "an indented closing line does not count" 1 "0 passed, 1 failed, 0 skipped" \
	"a=echo '  3 passed, 0 failed'"
run "a closing line with more after it does not count" 1 "0 passed, 1 failed, 0 skipped" \
	"a=echo '3 passed, 0 failed (but see above)'"
run "the sum of several suites" 1 "6 passed, 2 failed, 1 skipped" \
	"a=echo '3 passed, 0 failed'" "b=echo '2 passed, 1 failed, 1 skipped'; exit 1" \
	"c=echo '1 passed, 0 failed'" "d=echo oops"
grep -q '^b  *2 passed, 1 failed, 1 skipped (exit 1, [0-9]*s)$' "$tmp/out" &&
	grep -q '^run-suites: d printed no closing line (exit 0)$' "$tmp/out"
tap_ok $? "the summary names each suite's counts and the one without a line"
run "the sum of passing suites" 0 "6 passed, 0 failed, 1 skipped" \
	"a=echo '3 passed, 0 failed'" "b=echo '2 passed, 0 failed, 1 skipped'" \
	"c=echo '1 passed, 0 failed'"
"$rs" >/dev/null 2>&1
[ $? -eq 2 ]
tap_ok $? "no suite: exit 2"
"$rs" "a=true" "no-equals-sign" >/dev/null 2>&1
[ $? -eq 2 ]
tap_ok $? "a suite that is not NAME=COMMAND: exit 2"

tap_finish
