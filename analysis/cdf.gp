# SPDX-License-Identifier: GPL-2.0
#
# Cumulative distribution of the conversion latency (total_ns of
# samples.csv), both modes: one panel per size (rows) and direction
# (columns), log x, y on a scale of nines (0.9, 0.99, 0.999 equally
# apart). The tail matters as much as the median: the grey
# lines mark p50, p90 and p99, and each mode's p50, p90, p99 and p99.9
# carry their 95% band over resampled boots (horizontal bars). No tail
# is drawn without its band: a curve stops at its highest banded
# percentile (p90 in a run of one boot, which has no bands).
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
# y: the fraction at or below x on a scale of nines, -log10(1 - F), so
# that p90, p99 and p99.9 are as far apart as p0 and p90 (a linear axis
# puts the whole tail in its top tenth); F = 1 has no place on it
nines(f) = f < 1 ? -log10(1 - f) : NaN
set ylabel "fraction of conversions <= x"
set yrange [0:4.1]	# the key lives above p99.9
set ytics ("0" 0, "0.5" nines(0.5), "0.9" nines(0.9), "0.99" nines(0.99), "0.999" nines(0.999))
set grid xtics ytics lc rgb "#e4e4e4"
set key top left Left reverse samplen 2
# the percentiles the report quotes
set arrow 1 from graph 0, first nines(0.5) to graph 1, first nines(0.5) nohead lc rgb "#999999" dt 3 back
set arrow 2 from graph 0, first nines(0.9) to graph 1, first nines(0.9) nohead lc rgb "#999999" dt 3 back
set arrow 3 from graph 0, first nines(0.99) to graph 1, first nines(0.99) nohead lc rgb "#999999" dt 3 back
set arrow 4 from graph 0, first nines(0.999) to graph 1, first nines(0.999) nohead lc rgb "#999999" dt 3 back
# named on the right axis, clear of the curves
set link y2
set y2tics ("p50" nines(0.5), "p90" nines(0.9), "p99" nines(0.99), "p99.9" nines(0.999)) scale 0 tc rgb "#777777" font ",8"
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
			bfiles = ""
			nobands = ""
			do for [k = 1:words(modes)] {
				m = word(modes, k)
				f = data."/cdf-".m."-".s."-".d.".dat"
				if (fexists(f)) {
					files = files." '".f."'"
					key = m." ".s." ".word(sizelabels, i)." ".d
					n = cell(data."/stats.dat", key, 5)
					p50 = cell(data."/stats.dat", key, 6)
					p99 = cell(data."/stats.dat", key, 8)
					lo99 = cell(data."/stats.dat", key, 11) + 0
					hi99 = cell(data."/stats.dat", key, 12) + 0
					b = data."/cdfband-".m."-".s."-".d.".dat"
					t99 = (lo99 == lo99 && hi99 == hi99) ? \
						"p99 ".fmt_us(p99 + 0)." (".fmt_us(lo99)."..".fmt_us(hi99).") us" : \
						"p99 ".fmt_us(p99 + 0)." us, no band"
					cmd = cmd.(cmd eq "" ? "" : ", ")."'".f."' using 1:(nines($2)) with steps lw 2 lc rgb '".mode_color(m)."' title '".m." (n=".n."): p50 ".fmt_us(p50 + 0)." us, ".t99."'"
					if (fexists(b)) {
						bfiles = bfiles." '".b."'"
						cmd = cmd.", '".b."' using 2:(nines($1)):3:4 with xerrorbars pt 7 ps 0.4 lw 1.5 lc rgb '".mode_color(m)."' notitle"
					} else {
						nobands = nobands.m." "
					}
				}
			}
			r = range_of(files, 1, 1)
			rb = range_of(bfiles, 3, 4)
			xlo = word(r, 1) + 0
			xhi = word(r, 2) + 0
			if (word(rb, 2) + 0 > 0) {
				xlo = (xlo > 0 && xlo < word(rb, 1) + 0) ? xlo : word(rb, 1) + 0
				xhi = xhi > word(rb, 2) + 0 ? xhi : word(rb, 2) + 0
			}
			if (xhi > 0) {
				set xrange [xlo / 1.1 : xhi * 1.1]
			} else {
				set xrange [*:*]
			}
			# 1-1.5-2-3-5-7 over a decade or so; past 20x, where
			# those labels would run into each other, 1-2-5, the
			# range widened to the 1-2-5 ticks around the data so
			# that a tick lies on either side of every value
			if (xlo > 0 && xhi / xlo > 20) {
				set xrange [below125(xlo / 1.1) : above125(xhi * 1.1)]
				eval "set xtics ".tics125w
			} else {
				eval "set xtics ".tics125
			}
			if (nobands ne "") {
				set label 11 "no bands (one boot): ".nobands."drawn to p90" at graph 0.98, 0.04 right font ",8" tc rgb "#777777"
			} else {
				unset label 11
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
