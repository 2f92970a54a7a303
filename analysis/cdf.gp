# SPDX-License-Identifier: GPL-2.0
#
# Cumulative distribution of the conversion latency (total_ns of
# samples.csv), both modes: one panel per size (rows) and direction
# (columns), log x. The tail matters as much as the median: the grey
# lines mark p50, p90 and p99.
#
#   gnuplot -e "run='results/DIR'" analysis/cdf.gp
#   gnuplot -c analysis/cdf.gp results/DIR
#
# Writes DIR/plots/cdf.png and .svg.

# ARG0 and ARG1 are the script's only until common.gp is loaded
script = ARG0
if (!exists("run")) run = (ARGC >= 1) ? ARG1 : ""
here = system("dirname '".script."'")
load here."/common.gp"

nsz = words(sizes)
ndir = words(dirs)
w = 520 * ndir + 60
h = 300 * nsz + 90

set logscale x 10
set format x "%g"
eval "set xtics ".tics125
set xlabel "latency per conversion (us, log scale)"
set ylabel "fraction of conversions <= x"
set yrange [0:1.3]	# the key lives above 1
set ytics 0, 0.1, 1
set grid xtics ytics lc rgb "#e4e4e4"
set key top left Left reverse samplen 2
# the percentiles the report quotes
set arrow 1 from graph 0, first 0.5 to graph 1, first 0.5 nohead lc rgb "#999999" dt 3 back
set arrow 2 from graph 0, first 0.9 to graph 1, first 0.9 nohead lc rgb "#999999" dt 3 back
set arrow 3 from graph 0, first 0.99 to graph 1, first 0.99 nohead lc rgb "#999999" dt 3 back
# named on the right axis, clear of the curves
set link y2
set y2tics ("p50" 0.5, "p90" 0.9, "p99" 0.99) scale 0 tc rgb "#777777" font ",8"
set ytics nomirror

ML = 0.07; MR = 0.96
do for [o = 1:2] {
	eval out_cmd(o, "cdf", w, h)
	set multiplot layout nsz, ndir title \
		"Conversion latency, cumulative distribution, ".modes_title."\n".setup \
		font ",12" margins ML, MR, 60.0 / h, 1 - 80.0 / h spacing 0.1, 105.0 / h
	do for [i = 1:nsz] {
		do for [j = 1:ndir] {
			s = word(sizes, i)
			d = word(dirs, j)
			set title word(sizelabels, i)." ".d
			cmd = ""
			files = ""
			do for [k = 1:words(modes)] {
				m = word(modes, k)
				f = data."/cdf-".m."-".s."-".d.".dat"
				if (fexists(f)) {
					files = files." '".f."'"
					key = m." ".s." ".word(sizelabels, i)." ".d
					n = cell(data."/stats.dat", key, 5)
					p50 = cell(data."/stats.dat", key, 6)
					p99 = cell(data."/stats.dat", key, 8)
					cmd = cmd.(cmd eq "" ? "" : ", ")."'".f."' using 1:2 with steps lw 2 lc rgb '".mode_color(m)."' title '".m." (n=".n."): p50 ".fmt_us(p50 + 0)." us, p99 ".fmt_us(p99 + 0)." us'"
				}
			}
			r = range_of(files, 1, 1)
			if (word(r, 2) + 0 > 0) {
				set xrange [word(r, 1) / 1.1 : word(r, 2) * 1.1]
			} else {
				set xrange [*:*]
			}
			if (cmd eq "") {
				set label 10 "no samples" at graph 0.5, 0.5 center
				plot NaN notitle
				unset label 10
			} else {
				eval "plot ".cmd
			}
		}
	}
	unset multiplot
	set output
}
