#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make test's short storm: convstress (tests/stress/) for STRESS_S
# seconds (default 15) in the debug kernel's test boot, after the
# kernel's tests. make stress runs it for 10 minutes in a boot of its
# own. busybox sh; convstress prints the TAP line and the closing line.
# Its 4 vCPUs can meet the emulator's triple fault (emu_retry.sh): only
# that failure, said that way, is run again once, with the same seed;
# the first run's lines are kept as comments.
cd "$(dirname "$0")" || exit 1
. ./emu_retry.sh
out=${TMPDIR:-/tmp}/test_stress_short.$$
./convstress --duration="${STRESS_S:-15}" >"$out" 2>&1
rc=$?
# convstress stops at its first failure and names it in its one TAP line
if [ $rc -eq 1 ] && grep '^not ok 1 - convstress: ' "$out" >"$out.fail" &&
   emu_fault "$out.fail"; then
	sed 's/^/# first run: /' "$out"
	echo "# emulator triple fault, run again once with the same seed"
	seed=$(sed -n 's/^# replay: convstress --seed=\([0-9]*\).*/\1/p' "$out")
	rm -f "$out" "$out.fail"
	exec ./convstress --duration="${STRESS_S:-15}" ${seed:+--seed="$seed"}
fi
cat "$out"
rm -f "$out" "$out.fail"
exit $rc
