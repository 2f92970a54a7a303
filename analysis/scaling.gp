# SPDX-License-Identifier: GPL-2.0
#
# How the cost grows with the size converted: median and p99 per
# conversion against size (log-log) for both modes, one column per
# direction; below, the ratio inplace / destructive of the medians and of
# the p99s with their 95% bootstrap CIs (summary.json's; without it the
# ratios are drawn without CI). A ratio below 1: inplace is faster. With
# a gmem/ boot (make bench's third column) the panel shows the three
# ratios of medians, gmem/destructive and inplace/gmem too, with the CIs
# of convreport's ratios.csv.
#
#   gnuplot -e "run='results/DIR'" analysis/scaling.gp
#   gnuplot -c analysis/scaling.gp results/DIR
#
# Writes DIR/plots/scaling.png and .svg.

# ARG0 and ARG1 are the script's only until common.gp is loaded
script = ARG0
if (!exists("run")) run = (ARGC >= 1) ? ARG1 : ""
here = system("dirname '".script."'")
load here."/common.gp"

ndir = words(dirs)
w = 560 * ndir + 60
h = 760
st = data."/stats.dat"

# size tics as convbench names them
xt = ""
do for [i = 1:words(sizes)] {
	xt = xt.(i == 1 ? "(" : ", ")."'".word(sizelabels, i)."' ".word(sizes, i)
}
xt = xt.")"
smin = word(sizes, 1) + 0
smax = word(sizes, words(sizes)) + 0

# plotdata.sh's rows for mode m and direction d, by size
rows(m, d) = data."/stats-".m."-".d.".dat"
rrows(d) = data."/ratio-".d.".dat"
# the pairs with the gmem boot (convreport's ratios.csv): gm-de, in-gm
grows(p, d) = data."/ratio-".p."-".d.".dat"

set logscale x 2
eval "set xtics ".xt
set xrange [smin / 1.6 : smax * 1.6]
set grid xtics ytics mytics lc rgb "#e4e4e4"
set key top left Left reverse samplen 3 opaque

colw = 0.92 / ndir
do for [o = 1:2] {
	eval out_cmd(o, "scaling", w, h)
	set multiplot title "Latency per conversion against size, ".modes_title."\n".setup font ",12"
	do for [j = 1:ndir] {
		d = word(dirs, j)
		x0 = 0.06 + (j - 1) * colw
		set lmargin at screen x0 + 0.045
		set rmargin at screen x0 + colw - 0.02

		# top: latency, log-log
		set tmargin at screen 1 - 80.0 / h
		set bmargin at screen 0.42
		set title d
		set logscale y 10
		set format y "%g"
		set ylabel "latency per conversion (us, log)"
		set format x ""
		unset xlabel
		r = range_of("'".rows("destructive", d)."' '".rows("inplace", d)."' '".rows("gmem", d)."'", 6, 8)
		if (word(r, 2) + 0 > 0) {
			set yrange [word(r, 1) / 1.5 : word(r, 2) * 1.5]
		} else {
			set yrange [*:*]
		}
		eval "set ytics ".tics125w
		set mytics 10
		cmd = ""
		do for [k = 1:words(modes)] {
			m = word(modes, k)
			c = mode_color(m)
			cmd = cmd.(cmd eq "" ? "" : ", "). \
				sprintf("'%s' using 2:6 with linespoints lw 2 pt 7 lc rgb '%s' title '%s median', ", rows(m, d), c, m). \
				sprintf("'%s' using 2:8 with linespoints lw 2 dt 2 pt 6 lc rgb '%s' title '%s p99'", rows(m, d), c, m)
		}
		eval "plot ".cmd

		# bottom: ratio
		set tmargin at screen 0.40
		set bmargin at screen 60.0 / h
		unset title
		unset logscale y
		set format y "%.2f"
		set ytics autofreq
		set mytics default
		set format x "%g"
		eval "set xtics ".xt
		set xlabel "size converted (bytes, log scale)"
		three = fexists(grows("gm-de", d))
		set ylabel (three ? "ratio of medians" : "inplace / destructive")
		if (three) {
			# the gmem boot's pairs: medians only, each with its CI
			r = range_of("'".rrows(d)."' '".grows("gm-de", d)."' '".grows("in-gm", d)."'", 4, 6)
			lo = word(r, 1) + 0
			hi = word(r, 2) + 0
			lo = lo > 1 ? 1 : lo
			hi = hi < 1 ? 1 : hi
			set yrange [lo - 0.1 * (hi - lo) - 0.02 : hi + 0.35 * (hi - lo) + 0.02]
			plot 1 with lines lc rgb "#888888" dt 3 notitle, \
			     rrows(d) using 1:4:5:6 with yerrorbars lw 1.5 pt 7 lc rgb "black" title "inplace / destructive, 95% CI", \
			     '' using 1:4 with lines lc rgb "black" notitle, \
			     grows("gm-de", d) using ($1 * 1.08):4:5:6 with yerrorbars lw 1.5 pt 5 lc rgb c_gmem title "gmem / destructive", \
			     '' using ($1 * 1.08):4 with lines lc rgb c_gmem notitle, \
			     grows("in-gm", d) using ($1 * 1.16):4:5:6 with yerrorbars lw 1.5 pt 9 lc rgb c_inplace title "inplace / gmem", \
			     '' using ($1 * 1.16):4 with lines lc rgb c_inplace notitle
		} else {
			if (fexists(rrows(d))) {
				r = range_of("'".rrows(d)."'", 4, 9)
				lo = word(r, 1) + 0
				hi = word(r, 2) + 0
				lo = lo > 1 ? 1 : lo
				hi = hi < 1 ? 1 : hi
				set yrange [lo - 0.1 * (hi - lo) - 0.02 : hi + 0.25 * (hi - lo) + 0.02]
				set label 2 "below 1: inplace faster" at graph 0.98, first 1 right offset 0, -0.8 tc rgb "#666666" font ",8"
				plot 1 with lines lc rgb "#888888" dt 3 notitle, \
				     rrows(d) using 1:4:5:6 with yerrorbars lw 1.5 pt 7 lc rgb "black" title "median ratio, 95% CI", \
				     '' using ($1 * 1.12):7:8:9 with yerrorbars lw 1.5 pt 6 lc rgb "#777777" title "p99 ratio, 95% CI", \
				     '' using 1:4 with lines lc rgb "black" notitle, \
				     '' using ($1 * 1.12):7 with lines dt 2 lc rgb "#777777" notitle
				unset label 2
			} else {
				set yrange [0:2]
				set label 1 "no ratio: the run has ".word(modes, 1)." only" at graph 0.5, 0.7 center
				plot 1 with lines lc rgb "#888888" dt 3 notitle
				unset label 1
			}
		}
		set format x ""
	}
	unset multiplot
	set output
}
