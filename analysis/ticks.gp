# SPDX-License-Identifier: GPL-2.0
#
# Tick marks for log axes (loaded by common.gp; nothing else needed, so
# analysis/test_report.sh loads it alone to check the helpers)

# 1-1.5-2-3-5-7 tics for log axes that span less than a decade (us)
tics125 = ""
do for [e = -3:7] {
	do for [mm in "1 1.5 2 3 5 7"] {
		tics125 = tics125.(tics125 eq "" ? "(" : ", ").sprintf("%g", mm * 10**e)
	}
}
tics125 = tics125.")"
tics125w = ""	# 1-2-5, for ranges of a few decades
do for [e = -3:7] {
	do for [mm in "1 2 5"] {
		tics125w = tics125w.(tics125w eq "" ? "(" : ", ").sprintf("%g", mm * 10**e)
	}
}
tics125w = tics125w.")"
# the 1-2-5 value at or below x > 0, and the one at or above it
dec(x) = 10.0 ** floor(log10(x))
below125(x) = x / dec(x) >= 5 ? 5 * dec(x) : x / dec(x) >= 2 ? 2 * dec(x) : dec(x)
above125(x) = below125(x) == x ? x : x / dec(x) > 5 ? 10 * dec(x) : \
	x / dec(x) > 2 ? 5 * dec(x) : 2 * dec(x)
