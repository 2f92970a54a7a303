# SPDX-License-Identifier: GPL-2.0
#
# How the cost grows with the size converted: median and p99 per
# conversion against size (log-log) for both modes, each with its 95%
# band from resampling whole boots (a run without the bands draws no
# p99: no tail without its band), one column per
# direction; below, the ratio inplace / destructive of the medians and of
# the p90s with their 95% CIs over rounds (summary.json's; a p90 ratio
# it withholds is not drawn), or with a gmem column (a make bench run's
# gmem/) the medians' ratios inplace/destructive, gmem/destructive and
# inplace/gmem, on a log axis centred on 1 (half and
# double equally far from it). A ratio below 1: inplace is faster. The
# keys sit outside the plots.
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
xt_blank = ""	# the same tics, no labels (the upper panels)
do for [i = 1:words(sizes)] {
	xt_blank = xt_blank.(i == 1 ? "(" : ", ")."'' ".word(sizes, i)
}
xt_blank = xt_blank.")"
smin = word(sizes, 1) + 0
smax = word(sizes, words(sizes)) + 0

# plotdata.sh's rows for mode m and direction d, by size
rows(m, d) = data."/stats-".m."-".d.".dat"
rrows(d) = data."/ratio-".d.".dat"

set logscale x 2
eval "set xtics ".xt
set xrange [smin / 1.6 : smax * 1.6]
set grid xtics ytics mytics lc rgb "#e4e4e4"
# one key per panel row for the whole figure, outside every plot: above
# the latency panels and below the ratio panels
key_top = "set key at screen 0.5, screen 1 - 52.0 / h center top horizontal maxcols 4 maxrows 1 Left reverse samplen 3 width -1"
key_bottom = "set key at screen 0.5, screen 18.0 / h center bottom horizontal maxcols 4 maxrows 1 Left reverse samplen 3 width -1"
# a ratio axis on log scale centred on 1 (0.5 and 2 equally far from it)
ratio_tics(f) = f <= 2.6 ? "(0.4, 0.5, 0.67, 0.8, 1, 1.25, 1.5, 2, 2.5)" : tics125w

colw = 0.92 / ndir
# a make bench run with its gmem/ column: the ratios against gmem too
three = words(modes) == 3
do for [o = 1:2] {
	eval out_cmd(o, "scaling", w, h)
	set multiplot title "Latency per conversion against size, ".modes_title."\n".setup font ",12"
	do for [j = 1:ndir] {
		d = word(dirs, j)
		x0 = 0.06 + (j - 1) * colw
		set lmargin at screen x0 + 0.045
		set rmargin at screen x0 + colw - 0.02

		# top: latency, log-log
		if (j == 1) { eval key_top } else { unset key }
		set tmargin at screen 1 - 124.0 / h
		set bmargin at screen 0.42
		set title d
		set logscale y 10
		set format y "%g"
		set ylabel "latency per conversion (us, log; bars: 95% band over boots)"
		eval "set xtics ".xt_blank
		unset xlabel
		r = range_of("'".rows("destructive", d)."' '".rows("inplace", d)."' '".rows("gmem", d)."'", 6, 12)
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
				sprintf("'%s' using 2:6 with lines lw 2 lc rgb '%s' notitle, ", rows(m, d), c). \
				sprintf("'%s' using 2:6:9:10 with yerrorbars lw 1.5 pt 7 lc rgb '%s' title '%s median', ", rows(m, d), c, m). \
				sprintf("'%s' using ($2 * 1.08):8:11:12 with yerrorbars lw 1 pt 6 lc rgb '%s' title '%s p99'", rows(m, d), c, m)
		}
		eval "plot ".cmd

		# bottom: ratio
		if (j == 1) { eval key_bottom } else { unset key }
		set tmargin at screen 0.40
		set bmargin at screen 112.0 / h
		unset title
		set logscale y 10
		set format y "%g"
		set mytics default
		set format x "%g"
		eval "set xtics ".xt
		set xlabel "size converted (bytes, log scale)"
		set ylabel three ? "ratio of medians, 95% CI" : "inplace / destructive"
		if (fexists(rrows(d))) {
			r = range_of("'".rrows(d)."'", 4, three ? 15 : 9)
			lo = word(r, 1) + 0
			hi = word(r, 2) + 0
			f = (lo > 0 && 1 / lo > hi) ? 1 / lo : hi
			f = (f < 1.1 ? 1.1 : f) * 1.15
			set yrange [1 / f : f]
			eval "set ytics ".ratio_tics(f)
			set label 2 three ? "below 1: the first named faster" : "below 1: inplace faster" at graph 0.98, first 1 right offset 0, -0.8 tc rgb "#666666" font ",8"
			if (three) {
				# the three medians' ratios, each with its CI
				plot 1 with lines lc rgb "#888888" dt 3 notitle, \
				     rrows(d) using 1:4:5:6 with yerrorbars lw 1.5 pt 7 lc rgb "black" title "inplace/destructive", \
				     '' using ($1 * 1.12):10:11:12 with yerrorbars lw 1.5 pt 5 lc rgb c_gmem title "gmem/destructive", \
				     '' using ($1 / 1.12):13:14:15 with yerrorbars lw 1.5 pt 9 lc rgb c_inplace title "inplace/gmem", \
				     '' using 1:4 with lines lc rgb "black" notitle, \
				     '' using ($1 * 1.12):10 with lines lc rgb c_gmem notitle, \
				     '' using ($1 / 1.12):13 with lines dt 2 lc rgb c_inplace notitle
			} else {
				plot 1 with lines lc rgb "#888888" dt 3 notitle, \
				     rrows(d) using 1:4:5:6 with yerrorbars lw 1.5 pt 7 lc rgb "black" title "median ratio, 95% CI", \
				     '' using ($1 * 1.12):7:8:9 with yerrorbars lw 1.5 pt 6 lc rgb "#777777" title "p90 ratio, 95% CI", \
				     '' using 1:4 with lines lc rgb "black" notitle, \
				     '' using ($1 * 1.12):7 with lines dt 2 lc rgb "#777777" notitle
			}
			unset label 2
		} else {
			set yrange [0.5:2]
			eval "set ytics ".ratio_tics(2)
			set label 1 "no ratio: the run has ".word(modes, 1)." only" at graph 0.5, 0.7 center
			plot 1 with lines lc rgb "#888888" dt 3 notitle
			unset label 1
		}
		set format x ""
	}
	unset multiplot
	set output
}
