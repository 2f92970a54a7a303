# SPDX-License-Identifier: GPL-2.0
#
# I/O through shared buffers (convbench --workload=io): per mode, the
# throughput of each strategy against the request size (left: MB/s each
# way, geometric mean over rounds, log axes; bounce dashed, share solid)
# and share's p50 over bounce's with its 95% interval over rounds
# (right: below 1 sharing in place beats bouncing; the crossover, the
# smallest such size, marked per mode),
# from RUN/io.csv (an io run) or make bench's RUN/io/io.csv and
# RUN/gmem/io/io.csv.
#
#   gnuplot -e "run='DIR'" analysis/io.gp
#   gnuplot -c analysis/io.gp DIR
#
# Writes DIR/plots/io.png and .svg (and their tables in DIR/plots/data/).

if (!exists("run")) run = (ARGC >= 1) ? ARG1 : ""
if (run eq "") {
	print "usage: gnuplot -c analysis/io.gp RUN_FOLDER (a --workload=io run)"
	exit status 2
}
csvs = system("for f in '".run."/io.csv' '".run."/io/io.csv' '".run."/gmem/io/io.csv'; do [ -s \"$f\" ] && printf '%s ' \"$f\"; done")
if (words(csvs) == 0) {
	print "plot: ".run.": no io.csv (not a --workload=io run, nor make bench's)"
	exit status 1
}
data = run."/plots/data"
system("mkdir -p '".data."'")
# each ratio's 95% interval over rounds as the report gives it, from the
# churn.json beside each io.csv (io.modes[].sizes[] share_over_bounce_p50;
# a brace a line, a value a line; null, as for one round, is none):
# "mode size lo hi" rows in io-ci.dat
system("for f in ".csvs."; do j=$(dirname \"$f\")/churn.json; [ -s \"$j\" ] && cat \"$j\"; done | sed 's/[{}]/\\n&\\n/g; s/,/\\n/g' | awk '" . \
	"/\"mode\": / { m = $2; gsub(/[\",]/, \"\", m) }" . \
	"/\"size_bytes\": / { sz = $2 + 0 }" . \
	"/\"share_over_bounce_p50\": / { in_r = 1; lo = hi = \"\"; next }" . \
	"in_r && /\"ci95_lo\": [-+.0-9]/ { lo = $2 + 0 }" . \
	"in_r && /\"ci95_hi\": [-+.0-9]/ { hi = $2 + 0 }" . \
	"in_r && /^[ \t]*}/ { in_r = 0; if (lo != \"\" && hi != \"\") print m, sz, lo, hi }' > '".data."/io-ci.dat'")
# per mode and strategy: size, MB/s and p50 (geometric means over the
# rounds); per mode: size, share p50 / bounce p50 and its interval
# (NaN NaN where churn.json has none); the crossovers
system("awk -F, -v d='".data."' '" . \
	"BEGIN { while ((getline l < (d \"/io-ci.dat\")) > 0) { split(l, y, \" \"); ci[y[1], y[2] + 0] = y[3] \" \" y[4] } }" . \
	"FNR == 1 { delete c; for (i = 1; i <= NF; i++) c[$i] = i; next }" . \
	"{ k = $1 SUBSEP $3 SUBSEP $(c[\"size_bytes\"]); n[k]++;" . \
	"  lm[k] += log($(c[\"mb_per_s\"])); lp[k] += log($(c[\"p50_ns\"]));" . \
	"  if (!(($1, $3) in seen)) { seen[$1, $3] = 1 }" . \
	"  if (!($1 in ms)) { ms[$1] = 1; modes[++nm] = $1 }" . \
	"  sz[$(c[\"size_bytes\"])] = 1 }" . \
	"END { ns = 0; for (s in sz) size[++ns] = s + 0;" . \
	"  for (i = 2; i <= ns; i++) for (j = i; j > 1 && size[j-1] > size[j]; j--) { t = size[j]; size[j] = size[j-1]; size[j-1] = t }" . \
	"  cross = d \"/io-crossover.dat\"; printf \"\" > cross;" . \
	"  for (m = 1; m <= nm; m++) { md = modes[m]; x = 0;" . \
	"    for (st = 1; st <= 2; st++) { s = st == 1 ? \"bounce\" : \"share\"; f = d \"/io-\" md \"-\" s \".dat\"; printf \"# size_bytes mb_per_s p50_us\\n\" > f;" . \
	"      for (i = 1; i <= ns; i++) { k = md SUBSEP s SUBSEP size[i]; if (n[k]) printf \"%d %.6g %.6g\\n\", size[i], exp(lm[k] / n[k]), exp(lp[k] / n[k]) / 1000 > f } close(f) }" . \
	"    f = d \"/io-\" md \"-ratio.dat\"; printf \"# size_bytes share_over_bounce_p50 lo hi\\n\" > f;" . \
	"    for (i = 1; i <= ns; i++) { a = md SUBSEP \"share\" SUBSEP size[i]; b = md SUBSEP \"bounce\" SUBSEP size[i];" . \
	"      if (n[a] && n[b]) { r = exp(lp[a] / n[a] - lp[b] / n[b]); k = md SUBSEP size[i];" . \
	"        printf \"%d %.6g %s\\n\", size[i], r, (k in ci) ? ci[k] : \"NaN NaN\" > f; if (!x && r < 1) x = size[i] } }" . \
	"    close(f); printf \"%s %d\\n\", md, x > cross }" . \
	"  close(cross) }' ".csvs)
modes = system("awk '{ printf \"%s \", $1 }' '".data."/io-crossover.dat'")
crossof(m) = system("awk -v m='".m."' '$1 == m { print $2 }' '".data."/io-crossover.dat'") + 0
json = system("for f in ".csvs."; do d=$(dirname \"$f\"); [ -s \"$d/churn.json\" ] && { echo \"$d/churn.json\"; break; }; done")
prov = json eq "" ? "" : system("sed -n 's/.*\"accel\": \"\\([^\"]*\\)\".*/\\1/p' '".json."' 2>/dev/null | head -n 1")

c_destructive = "#D55E00"
c_inplace = "#0072B2"
c_gmem = "#009E73"
mode_color(m) = (m eq "inplace") ? c_inplace : (m eq "gmem") ? c_gmem : c_destructive
nudge(m) = (m eq "inplace") ? 1 : (m eq "gmem") ? 1.08 : 0.92
sizelabel(b) = b >= 1048576 ? sprintf("%dM", b / 1048576) : sprintf("%dK", b / 1024)

set key outside bottom center horizontal samplen 3 font ",9"
set grid lc rgb "#e4e4e4"
set logscale x 2
set xlabel "request size"
set xtics ("4K" 4096, "16K" 16384, "64K" 65536, "256K" 262144, "1M" 1048576, "2M" 2097152, "4M" 4194304)

do for [o = 1:2] {
	if (o == 1) {
		set terminal pngcairo size 1200,520 font "sans,10" noenhanced
		set output run."/plots/io.png"
	} else {
		set terminal svg size 1200,520 font "sans,10" noenhanced dynamic background rgb "white"
		set output run."/plots/io.svg"
	}
	set multiplot layout 1, 2 title "I/O through shared buffers: bounce vs share in place".(prov eq "" ? "" : " (".prov.")") font ",12"
	set logscale y 10
	set ylabel "MB/s each way (geometric mean over rounds)"
	plot for [m in modes] data."/io-".m."-bounce.dat" using 1:2 with linespoints dt 2 pt 6 lc rgb mode_color(m) title m." bounce", \
	     for [m in modes] data."/io-".m."-share.dat" using 1:2 with linespoints dt 1 pt 7 lc rgb mode_color(m) title m." share"
	set ylabel "share p50 / bounce p50 (below 1: sharing wins)"
	# the left panel's sizes, with room for the nudged intervals
	set xrange [GPVAL_X_MIN / 1.15 : GPVAL_X_MAX * 1.15]
	unset arrow
	i = 0
	do for [m in modes] {
		i = i + 1
		x = crossof(m)
		if (x > 0) {
			set arrow i from x, graph 0 to x, graph 1 nohead dt 3 lw 1.5 lc rgb mode_color(m)
		}
	}
	# the modes a little apart, so that their intervals do not hide each other
	plot for [m in modes] data."/io-".m."-ratio.dat" using ($1 * nudge(m)):2 with lines lc rgb mode_color(m) notitle, \
	     for [m in modes] data."/io-".m."-ratio.dat" using ($1 * nudge(m)):2:3:4 with yerrorbars pt 7 ps 0.8 lc rgb mode_color(m) \
		title m.(crossof(m) > 0 ? ": crossover ".sizelabel(crossof(m)) : ": no crossover"), \
	     1 with lines lc rgb "#888888" dt 2 notitle
	unset multiplot
	unset arrow
	set autoscale x
}
