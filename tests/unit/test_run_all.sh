#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The in-VM runner's accounting (tests/vm/run-all.sh), with fake tests
# in a copy of its folder, under busybox sh as in the VM: TAP lines
# counted as they say; a test whose exit code disagrees with its lines
# (exit 1 without "not ok", exit 0 without any result line, a crash, a
# timeout, a test not built) fails; exit 4 is a skip; the closing line
# adds up every test and the exit status is 0 only when nothing failed.
#
#   tests/unit/test_run_all.sh
#
# TAP lines; the last line is "N passed, N failed".

top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../lib/tap.sh"
SH=sh
command -v busybox >/dev/null 2>&1 && SH="busybox sh"

d=$tmp/tests
mkdir -p "$d"
cp "$top/tests/vm/run-all.sh" "$d/"
fake() {	# NAME BODY
	printf '#!/bin/sh\n%s\n' "$2" >"$d/$1"
	chmod +x "$d/$1"
}
fake t_pass 'echo "ok 1 - a"; echo "ok 2 - b"; echo "2 passed, 0 failed"; exit 0'
fake t_fail 'echo "ok 1 - a"; echo "not ok 2 - b"; echo "1 passed, 1 failed"; exit 1'
fake t_fail_silent 'echo "ok 1 - a"; echo "1 passed, 0 failed"; exit 1'
fake t_notok_exit0 'echo "not ok 1 - a"; echo "0 passed, 1 failed"; exit 0'
fake t_silent0 'echo "setting up"; exit 0'
fake t_skip 'echo "ok 1 - all # SKIP no /dev/kvm"; echo "0 passed, 0 failed, 1 skipped"; exit 4'
fake t_skip_silent 'exit 4'
fake t_crash 'echo "ok 1 - a"; kill -SEGV $$'
fake t_exit2 'echo "ok 1 - a"; exit 2'
fake t_hang 'echo "ok 1 - a"; exec sleep 30'
fake t_mixed 'echo "ok 1 - a"; echo "ok 2 - b # SKIP no huge pages"; echo "not ok 3 - c"; echo "ok 4 - d"; exit 1'
fake t_comment 'echo "# ok 1 - not a result"; echo "  ok 2 - indented"; echo "ok 3 - real"; exit 0'

# ra NAME WANT-RC WANT-CLOSING TESTS...
ra() {
	name=$1 want_rc=$2 want=$3
	shift 3
	TESTS="$*" TEST_TIMEOUT=2 $SH "$d/run-all.sh" >"$tmp/out" 2>&1
	rc=$?
	last=$(tail -n 1 "$tmp/out")
	[ $rc -eq "$want_rc" ] && [ "$last" = "$want" ]
	tap_ok $? "$name: exit $rc, '$last' (want $want_rc, '$want')"
}
ra "a passing test" 0 "2 passed, 0 failed, 0 skipped" t_pass
ra "a failing test" 1 "1 passed, 1 failed, 0 skipped" t_fail
ra "exit 1 without a not-ok line" 1 "1 passed, 1 failed, 0 skipped" t_fail_silent
ra "a not-ok line with exit 0" 1 "0 passed, 1 failed, 0 skipped" t_notok_exit0
ra "exit 0 without any result line" 1 "0 passed, 1 failed, 0 skipped" t_silent0
ra "a skip" 0 "0 passed, 0 failed, 1 skipped" t_skip
ra "exit 4 without a SKIP line" 0 "0 passed, 0 failed, 1 skipped" t_skip_silent
ra "a crash after a passing line" 1 "1 passed, 1 failed, 0 skipped" t_crash
ra "exit 2 after a passing line" 1 "1 passed, 1 failed, 0 skipped" t_exit2
ra "a test past TEST_TIMEOUT" 1 "1 passed, 1 failed, 0 skipped" t_hang
ra "a test not built" 1 "0 passed, 1 failed, 0 skipped" t_missing
ra "pass, skip and fail lines in one test" 1 "2 passed, 1 failed, 1 skipped" t_mixed
ra "only lines starting with ok count" 0 "1 passed, 0 failed, 0 skipped" t_comment
ra "the sum over tests" 1 "4 passed, 2 failed, 2 skipped" t_pass t_fail t_skip t_skip_silent t_comment t_silent0
grep -q '^# t_fail: 1 passed, 1 failed, 0 skipped (exit 1)$' "$tmp/out" &&
	grep -q '^# t_silent0: 0 passed, 1 failed, 0 skipped (exit 0)$' "$tmp/out"
tap_ok $? "each test's own count is printed"
ra "the sum over passing tests" 0 "5 passed, 0 failed, 1 skipped" t_pass t_skip t_pass t_comment

tap_finish
