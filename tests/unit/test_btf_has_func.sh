#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# btf_has_func (tests/lib/btf_has_func.c), with which the probe-point
# tests decide that a function can be probed, fed this host's kernel
# BTF: a function is "func" (exit 0); a name that is only a string (a
# struct member, a per-CPU variable) or no name at all is not, and one
# such name among functions fails the lot (exit 1); a file that is no
# BTF or is cut short is exit 2. Skipped without a readable
# /sys/kernel/btf/vmlinux.
#
#   tests/unit/test_btf_has_func.sh [TESTS_DIR]   (default build/tests)
#
# TAP lines; the last line is "N passed, N failed[, N skipped]".

bins=${1:-build/tests}
bhf=$bins/btf_has_func
btf=/sys/kernel/btf/vmlinux
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../lib/tap.sh"

if [ ! -x "$bhf" ]; then
	tap_ok 1 "btf_has_func is built ($bhf)"
	echo "$passed passed, $failed failed"
	exit 1
fi
if [ ! -r "$btf" ]; then
	echo "ok 1 - btf_has_func # SKIP no readable $btf on this host"
	echo "0 passed, 0 failed, 1 skipped"
	exit 4
fi

# run WANT-RC NAME ARGS... : output in $tmp/out
run() {
	want=$1 name=$2
	shift 2
	"$bhf" "$@" >"$tmp/out" 2>&1
	rc=$?
	[ $rc -eq "$want" ]
	tap_ok $? "$name: exit $rc (want $want)"
	[ $rc -eq "$want" ] || sed 's/^/# /' "$tmp/out"
}
run 0 "a function" -f "$btf" vfs_read
grep -qx 'vfs_read: func' "$tmp/out"
tap_ok $? "a function is said to be one"
run 1 "a struct member's name" -f "$btf" i_mode
grep -qx 'i_mode: string only' "$tmp/out"
tap_ok $? "a member's name is a string only"
run 1 "a per-CPU variable's name" -f "$btf" runqueues
run 1 "no such name" -f "$btf" convbench_no_such_function
grep -qx 'convbench_no_such_function: missing' "$tmp/out"
tap_ok $? "an unknown name is missing"
run 1 "two functions and a missing name" -f "$btf" vfs_read convbench_no_such_function vfs_write
run 1 "a missing name first, then a function" convbench_no_such_function vfs_read
run 0 "two functions, the default BTF file" vfs_read vfs_write
head -c 100000 "$btf" >"$tmp/short.btf"
run 2 "a BTF file cut short" -f "$tmp/short.btf" vfs_read
echo "not BTF" >"$tmp/text"
run 2 "a file that is no BTF" -f "$tmp/text" vfs_read
run 2 "a file that does not exist" -f "$tmp/missing" vfs_read

tap_finish
