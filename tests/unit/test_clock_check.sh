#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make bench's clock check (bench/vm/clock-check.sh), fed clock logs made
# here with a known drift of the guest TSC against the host's clock: a
# TSC on time or 0.3% off either way passes, 0.7% fast or 0.7% slow
# fails with the deviation's sign in the reason (issue 22, item 9: a
# check that accepts one direction of drift must fail here), a console
# that held the marks back is "not checked" and stays in, a boot
# without end marks or without a log is left out. The console's latency
# jumps on the first line of a group (the median offset must absorb it).
#
#   tests/unit/test_clock_check.sh [TESTS_DIR]   (TESTS_DIR unused)
#
# TAP lines; the last line is "N passed, N failed".

top=$(cd "$(dirname "$0")/../.." && pwd)
check=$top/bench/vm/clock-check.sh
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../lib/tap.sh"

# clock_log DRIFT_PCT [BURST]: 5 start and 5 end marks 20 s of host time
# apart, the guest TSC running DRIFT_PCT% fast (negative: slow) against
# the 2096000 kHz it is taken for; the first line of each group 30 ms
# late on the console; BURST=1: the end group arrives at once
clock_log() {
	awk -v drift="$1" -v burst="${2:-0}" 'BEGIN {
		khz = 2096000; h0 = 1796494355.1
		for (g = 0; g < 2; g++)
			for (i = 0; i < 5; i++) {
				host = h0 + 20 * g + 0.1 * i
				late = i == 0 ? 0.03 : 0
				if (burst && g == 1) host = h0 + 20.4
				tsc = (host - h0 + 3) * khz * 1000 * (1 + drift / 100)
				printf "host_s=%.9f CONVBENCH-CLOCK %s tsc=%.0f raw_ns=%.0f tsc_khz=%d clocksource=tsc tsc_early_khz=%d tsc_unstable=0\n", \
					host + late, g ? "end" : "start", tsc, \
					(host - h0 + 3) * 1e9, khz, khz
			}
	}'
}

verdict() {	# DRIFT [BURST]: the clock.env of such a log
	clock_log "$@" > "$tmp/clock.log"
	sh "$check" "$tmp/clock.log" "$tmp/clock.env"
}

for d in 0 0.3 -0.3; do
	verdict $d
	grep -q '^valid=1$' "$tmp/clock.env" && grep -q '^checked=1$' "$tmp/clock.env" &&
		awk -F= -v d=$d '$1 == "deviation_pct" { e = $2 - d; exit !(e < 0.01 && e > -0.01) }' "$tmp/clock.env"
	tap_ok $? "a TSC ${d}% off: valid, the deviation measured ($(sed -n 's/^deviation_pct=//p' "$tmp/clock.env")%)"
done
verdict 0.7
grep -q '^valid=0$' "$tmp/clock.env" && grep -q '^why=.*, +0\.7[0-9]*% off the 2096000 kHz' "$tmp/clock.env"
tap_ok $? "a TSC 0.7% fast: left out, the reason says +0.7%"
verdict -0.7
grep -q '^valid=0$' "$tmp/clock.env" && grep -q '^why=.*, -0\.7[0-9]*% off the 2096000 kHz' "$tmp/clock.env"
tap_ok $? "a TSC 0.7% slow: left out, the reason says -0.7%"
verdict 0 1
grep -q '^valid=1$' "$tmp/clock.env" && grep -q '^checked=0$' "$tmp/clock.env" &&
	grep -q '^why=the console delivered the end marks in a burst' "$tmp/clock.env"
tap_ok $? "marks delivered in a burst: not checked, the boot stays in"
clock_log 0 | grep -v ' end ' > "$tmp/clock.log"
sh "$check" "$tmp/clock.log" "$tmp/clock.env"
grep -q '^valid=0$' "$tmp/clock.env" && grep -q 'no clock marks at the start and the end' "$tmp/clock.env"
tap_ok $? "no end marks: left out, said why"
sh "$check" "$tmp/nope.log" "$tmp/clock.env"
grep -q '^valid=0$' "$tmp/clock.env" && grep -q 'no clock.log' "$tmp/clock.env"
tap_ok $? "no clock log: left out, said why"
sh "$check" > /dev/null 2>&1
tap_ok $(( $? != 2 )) "no arguments: exit 2"
tap_finish
