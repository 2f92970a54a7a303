#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make test's short storm: convstress (tests/stress/) for STRESS_S
# seconds (default 15) in the debug kernel's test boot, after the
# kernel's tests. make stress runs it for 10 minutes in a boot of its
# own. busybox sh; convstress prints the TAP line and the closing line.
# Its 4 vCPUs meet the emulator's triple fault (emu_retry.sh) in about
# one 15 s storm of 10 under TCG: only that failure, said that way, is
# run again, with the same seed, up to twice; the earlier runs' lines
# are kept as comments and the faults counted before the last run's
# lines. tests/unit/test_emu_retry.sh checks these rules.
cd "$(dirname "$0")" || exit 1
. ./emu_retry.sh
out=${TMPDIR:-/tmp}/test_stress_short.$$
seed= faults=0
for try in 1 2 3; do
	./convstress --duration="${STRESS_S:-15}" ${seed:+--seed="$seed"} \
		>"$out" 2>&1
	rc=$?
	# convstress stops at its first failure and names it in its TAP line
	[ $rc -eq 1 ] && [ $try -lt 3 ] &&
		grep '^not ok 1 - convstress: ' "$out" >"$out.fail" &&
		emu_fault "$out.fail" || break
	sed "s/^/# run $try: /" "$out"
	faults=$((faults + 1))
	echo "# emulator triple fault, run again with the same seed"
	# (the replay line comes at the start and again at the end)
	seed=$(sed -n 's/^# replay: convstress --seed=\([0-9]*\).*/\1/p' "$out" | head -n 1)
done
[ $faults -eq 0 ] ||
	echo "# emulator triple faults: $faults (each run again with the same seed)"
cat "$out"
rm -f "$out" "$out.fail"
exit $rc
