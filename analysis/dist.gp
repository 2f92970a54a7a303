# SPDX-License-Identifier: GPL-2.0
#
# Latency distribution of one conversion, both modes overlaid: one panel
# per size (rows) and direction (columns), log x.
#
#   gnuplot -e "run='results/DIR'" analysis/dist.gp
#   gnuplot -c analysis/dist.gp results/DIR
#
# Writes DIR/plots/distribution.png and .svg. Buckets are convbench's
# (hist.csv: log2 with 16 sub-buckets); y is the share of the cell's
# conversions per 1/16 octave, so that modes with different n overlay
# and buckets of different log width compare. Dashed lines: medians.

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
set mxtics 10
set xlabel "latency per conversion (us, log scale)"
set ylabel "% of conversions per 1/16 octave"
set yrange [0:*]
set offsets 0, 0, graph 0.5, 0	# room for the key above the bars
set grid xtics mxtics ytics lc rgb "#dddddd"
set style fill transparent solid 0.35 border
set key top right opaque box lc rgb "#cccccc"

ML = 0.07; MR = 0.98
do for [o = 1:2] {
	eval out_cmd(o, "distribution", w, h)
	set multiplot layout nsz, ndir title \
		"Conversion latency distribution, ".modes_title."\n".setup \
		font ",12" margins ML, MR, 60.0 / h, 1 - 80.0 / h spacing 0.07, 105.0 / h
	do for [i = 1:nsz] {
		do for [j = 1:ndir] {
			s = word(sizes, i)
			d = word(dirs, j)
			set title word(sizelabels, i)." ".d
			unset arrow
			cmd = ""
			files = ""
			do for [k = 1:words(modes)] {
				files = files." '".data."/hist-".word(modes, k)."-".s."-".d.".dat'"
			}
			r = range_of(files, 1, 2)
			if (word(r, 2) + 0 > 0) {
				set xrange [word(r, 1) / 1.15 : word(r, 2) * 1.15]
			} else {
				set xrange [*:*]
			}
			do for [k = 1:words(modes)] {
				m = word(modes, k)
				f = data."/hist-".m."-".s."-".d.".dat"
				if (fexists(f)) {
					med = cell(data."/stats.dat", m." ".s." ".word(sizelabels, i)." ".d, 6)
					n = cell(data."/stats.dat", m." ".s." ".word(sizelabels, i)." ".d, 5)
					set arrow from med, graph 0 to med, graph 1 nohead dt 2 lw 1.5 lc rgb mode_color(m) back
					cmd = cmd.(cmd eq "" ? "" : ", ")."'".f."' using (sqrt($1*$2)):3:1:2:(0):3 with boxxy lc rgb '".mode_color(m)."' title '".m." (n=".n.", median ".fmt_us(med + 0)." us)'"
				}
			}
			if (cmd eq "") {
				set label 1 "no samples" at graph 0.5, 0.5 center
				plot NaN notitle
				unset label 1
			} else {
				eval "plot ".cmd
			}
		}
	}
	unset multiplot
	set output
}
