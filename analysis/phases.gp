# SPDX-License-Identifier: GPL-2.0
#
# Where a conversion's time goes, from samples.csv: for each size (one
# panel), direction and mode, the median of each phase as stacked bars.
#   wide bar   the guest's view: copy (destructive with --preserve),
#              exit round trip (hypercall exit, VMM handler, re-entry),
#              after exit (touching the range until it is usable)
#   narrow bar the host handler, inside the round trip: record
#              (KVM_SET_SW_PRIVATE_RANGE), memory (fallocate / punch
#              hole / in-place request), release (dropping the stale
#              shared backing), rest of the handler
# Medians of parts do not add up to the median of the whole: the dot is
# the median total. The two bars are timed by different clocks (guest
# TSC, host TSC), so the narrow bar is not drawn inside the wide one.
#
#   gnuplot -e "run='results/DIR'" analysis/phases.gp
#   gnuplot -c analysis/phases.gp results/DIR
#
# Writes DIR/plots/phases.png and .svg.

# ARG0 and ARG1 are the script's only until common.gp is loaded
script = ARG0
if (!exists("run")) run = (ARGC >= 1) ? ARG1 : ""
here = system("dirname '".script."'")
load here."/common.gp"

nsz = words(sizes)
w = 1150
h = 300 * nsz + 120

c_copy = "#E69F00"
c_exit = "#56B4E9"
c_after = "#009E73"
c_rec = "#CC79A7"
c_mem = "#0072B2"
c_rel = "#D55E00"
c_rest = "#BBBBBB"

set ylabel "median time per conversion (us)"
set yrange [0:*]
set offsets 0.5, 0.5, graph 0.12, 0
set grid ytics lc rgb "#e4e4e4"
set xtics nomirror scale 0
set style fill solid 0.9 border lc rgb "#444444"
set key at screen 0.77, screen 1 - 85.0 / h left top Left reverse samplen 1.5 width 1

ML = 0.08; MR = 0.75
do for [o = 1:2] {
	eval out_cmd(o, "phases", w, h)
	set multiplot layout nsz, 1 title \
		"Where a conversion's time goes: median phases per conversion\n".setup \
		font ",12" margins ML, MR, 60.0 / h, 1 - 80.0 / h spacing 0, 70.0 / h
	do for [i = 1:nsz] {
		s = word(sizes, i)
		f = data."/phases-".s.".dat"
		set title word(sizelabels, i)." conversions"
		unset label
		if (i == 1) {
			set key
			# said once, next to the key
			set label 21 "Bars: the median of each phase\n(medians need not add up).\nDot: median total.\n\nWide bar: guest clock.\nNarrow bar: host handler, host\nclock (inside the exit round trip)." \
				at screen 0.77, screen 1 - 235.0 / h left font ",9" tc rgb "#444444"
		} else {
			unset key
		}
		if (!fexists(f)) {
			set label 1 "no samples" at graph 0.5, 0.5 center
			plot NaN notitle
			continue
		}
		# direction names above their pair of bars
		cl = system("awk '$1 != \"#\" { s[$2] += $1; n[$2]++ } END { for (d in s) print d, s[d] / n[d] }' '".f."'")
		do for [k = 1:words(cl) / 2] {
			set label k + 1 word(cl, 2 * k - 1) at first word(cl, 2 * k) - 0.1, graph 0.96 center font ",10"
		}
		plot \
		f using ($1 - 0.12):($4 / 2):($1 - 0.32):($1 + 0.08):(0):4:xtic(3) with boxxy lc rgb c_copy title "guest: copy (preserve)", \
		'' using ($1 - 0.12):(($4 + $5) / 2):($1 - 0.32):($1 + 0.08):4:5 with boxxy lc rgb c_exit title "guest: exit round trip", \
		'' using ($1 - 0.12):(($5 + $6) / 2):($1 - 0.32):($1 + 0.08):5:6 with boxxy lc rgb c_after title "guest: after exit (fault-in)", \
		'' using ($1 + 0.21):($7 / 2):($1 + 0.12):($1 + 0.30):(0):7 with boxxy lc rgb c_rec title "host: record private range", \
		'' using ($1 + 0.21):(($7 + $8) / 2):($1 + 0.12):($1 + 0.30):7:8 with boxxy lc rgb c_mem title "host: memory (fallocate etc.)", \
		'' using ($1 + 0.21):(($8 + $9) / 2):($1 + 0.12):($1 + 0.30):8:9 with boxxy lc rgb c_rel title "host: release shared backing", \
		'' using ($1 + 0.21):(($9 + $10) / 2):($1 + 0.12):($1 + 0.30):9:10 with boxxy lc rgb c_rest title "host: rest of the handler", \
		'' using ($1 - 0.12):11 with points pt 7 ps 1.1 lc rgb "black" title "median total"
	}
	unset multiplot
	set output
}
