#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The guest's TSC against the host's clock over one boot (make bench).
# Each mark is a group of lines (bench/vm/clock_mark.h) stamped with the
# host's clock on arrival: "host_s=S CONVBENCH-CLOCK GROUP tsc=T
# raw_ns=N tsc_khz=K ...". A line's host stamp minus its TSC time is
# the clocks' offset plus the console's latency, which jumps now and
# then (a busy host, the first line of a boot): the median offset of
# each group, and the rate between the "start" and "end" groups. A TSC
# more than 0.5% off the rate it is taken for, in either direction,
# makes the boot invalid; marks delivered in a burst cannot be compared
# (checked=0, the boot stays in).
#
#   clock-check.sh CLOCK_LOG CLOCK_ENV
#
# Writes CLOCK_ENV (valid=, why=, checked=, tsc_khz=, tsc_khz_measured=,
# deviation_pct=, ...); exit 0 (the verdict is in the file), 2 usage.
if [ $# -ne 2 ]; then
	echo "usage: $0 CLOCK_LOG CLOCK_ENV" >&2
	exit 2
fi
awk -v out="$2" '
	function median(g,   i, j, x, n) {
		n = cnt[g]
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && o[g, j - 1] > o[g, j]; j--) {
				x = o[g, j]; o[g, j] = o[g, j - 1]; o[g, j - 1] = x
			}
		return n % 2 ? o[g, (n + 1) / 2] : (o[g, n / 2] + o[g, n / 2 + 1]) / 2
	}
	{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		g = $3; khz = f["tsc_khz"]
		if (khz <= 0) next
		gt = f["tsc"] / (khz * 1000)
		o[g, ++cnt[g]] = f["host_s"] - gt
		# a group spans ~0.4 s of guest time: so should its host stamps
		if (cnt[g] == 1) { g0[g] = gt; h0[g] = f["host_s"] }
		gspan[g] = gt - g0[g]; hspan[g] = f["host_s"] - h0[g]
		gsum[g] += gt; rsum[g] += f["raw_ns"] / 1e9; k[g] = khz
		cs = f["clocksource"]; early = f["tsc_early_khz"]
		if (f["tsc_unstable"] == 1) unstable = 1
	}
	END {
		if (!cnt["start"] || !cnt["end"]) {
			print "valid=0\nwhy=no clock marks at the start and the end of the boot" > out
			exit
		}
		khz = k["start"]
		# the console held the lines back and let them go at once:
		# nothing to compare (not a sign of a bad clock)
		for (g in cnt)
			if (hspan[g] < gspan[g] / 2) {
				print "valid=1\nchecked=0" > out
				printf "why=the console delivered the %s marks in a burst (%.3f s for %.3f s of guest time): the clocks could not be compared\n", g, hspan[g], gspan[g] > out
				exit
			}
		print "checked=1" > out
		G = gsum["end"] / cnt["end"] - gsum["start"] / cnt["start"]
		R = rsum["end"] / cnt["end"] - rsum["start"] / cnt["start"]
		H = G + median("end") - median("start")
		meas = H > 0 ? khz * G / H : 0
		dev = 100 * (meas / khz - 1)
		rawdev = H > 0 ? 100 * (R / H - 1) : 100
		ok = dev <= 0.5 && dev >= -0.5
		printf "valid=%d\n", ok > out
		if (!ok)
			printf "why=the guest TSC ran at %.0f kHz by the host clock over %.1f s, %+.3f%% off the %d kHz it is taken for (limit 0.5%%)\n", meas, H, dev, khz > out
		printf "tsc_khz=%d\ntsc_khz_measured=%.1f\ndeviation_pct=%.4f\n", khz, meas, dev > out
		printf "guest_raw_clock_deviation_pct=%.4f\nhost_seconds=%.3f\n", rawdev, H > out
		printf "clocksource=%s\ntsc_early_khz=%s\n", cs, early > out
		if (unstable)
			print "tsc_messages=the kernel log says the TSC is unstable" > out
	}' "$1" 2>/dev/null ||
	printf 'valid=0\nwhy=no clock.log from the VM runner\n' >"$2"
exit 0
