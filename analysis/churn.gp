# SPDX-License-Identifier: GPL-2.0
#
# Huge pages over a guest's life (convbench --workload=churn): per mode,
# the share of the churned ranges KVM maps at 2M against the operations
# done (left), and each size class's median latency over the interval
# before each mark (right, log y, the first round), from RUN/churn.csv
# (a churn run) or make bench's RUN/churn/churn.csv,
# RUN/gmem/churn/churn.csv and RUN/churn-merge/churn.csv (in place with
# the merge back on: inplace+merge). Every round is its own line (a
# fresh VM each).
#
#   gnuplot -e "run='DIR'" analysis/churn.gp
#   gnuplot -c analysis/churn.gp DIR
#
# Writes DIR/plots/churn.png and .svg.

if (!exists("run")) run = (ARGC >= 1) ? ARG1 : ""
if (run eq "") {
	print "usage: gnuplot -c analysis/churn.gp RUN_FOLDER (a --workload=churn run)"
	exit status 2
}
# the churn files of the run: its own, or make bench's two kernels'
csvs = system("for f in '".run."/churn.csv' '".run."/churn/churn.csv' '".run."/gmem/churn/churn.csv' '".run."/churn-merge/churn.csv'; do [ -s \"$f\" ] && printf '%s ' \"$f\"; done")
if (words(csvs) == 0) {
	print "plot: ".run.": no churn.csv (not a --workload=churn run, nor make bench's)"
	exit status 1
}
csv = word(csvs, 1)
system("mkdir -p '".run."/plots'")

# what the files hold: modes, rounds, size classes (p50_<size>_ns); the
# columns are the first file's (every churn run has the same)
modes = system("awk -F, 'FNR > 1 && !s[$1]++ { printf \"%s \", $1 }' ".csvs)
rounds = system("awk -F, 'FNR > 1 && !s[$2]++ { printf \"%s \", $2 }' ".csvs)
classes = system("awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /^p50_.*_ns$/) { c = $i; sub(/^p50_/, \"\", c); sub(/_ns$/, \"\", c); printf \"%s \", c } }' '".csv."'")
colof(name) = system("awk -F, -v n='".name."' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) print i }' '".csv."'") + 0
jsonof(f) = system("dirname '".f."'")."/churn.json"
prov = system("sed -n 's/.*\"accel\": \"\\([^\"]*\\)\".*/\\1/p' '".jsonof(csv)."' 2>/dev/null | head -n 1")

c_destructive = "#D55E00"
c_inplace = "#0072B2"
c_gmem = "#009E73"
c_merge = "#56B4E9"
mode_color(m) = (m eq "inplace") ? c_inplace : (m eq "gmem") ? c_gmem : (m eq "inplace+merge") ? c_merge : c_destructive
# does file f hold mode m (exactly: inplace is not inplace+merge)?
has(f, m) = system("cut -d, -f1 '".f."' | grep -qxF '".m."' && echo 1 || echo 0") + 0
class_dt(k) = k == 1 ? 1 : k == 2 ? 2 : k == 3 ? 4 : 5

set datafile separator ","
set key outside bottom center horizontal samplen 2 font ",9"
set grid lc rgb "#e4e4e4"
set xlabel "conversions done (per vCPU)"
cop = colof("op")
ccov = colof("coverage_2m")

do for [o = 1:2] {
	if (o == 1) {
		set terminal pngcairo size 1200,520 font "sans,10" noenhanced
		set output run."/plots/churn.png"
	} else {
		set terminal svg size 1200,520 font "sans,10" noenhanced dynamic background rgb "white"
		set output run."/plots/churn.svg"
	}
	set multiplot layout 1, 2 title "Huge pages under conversion churn".(prov eq "" ? "" : " (".prov.")") font ",12"
	set title "2M coverage of the churned ranges (KVM's 2M entries)"
	set ylabel "share mapped at 2M"
	set xlabel "conversions done + 1 (per vCPU, log)"
	set logscale x
	set yrange [0:1.05]
	unset logscale y
	plot for [f in csvs] for [m in modes] for [r in rounds] f \
		using (strcol(1) eq m && strcol(2) eq r ? column(cop) + 1 : NaN):(column(ccov)) \
		with linespoints pt 7 ps 0.5 lw 2 lc rgb mode_color(m) \
		title (r eq word(rounds, 1) && has(f, m) ? m : "")
	set title "p50 per size class over each interval"
	set ylabel "latency (us, log)"
	set xlabel "conversions done (per vCPU)"
	unset logscale x
	set yrange [*:*]
	set logscale y
	plot for [f in csvs] for [m in modes] for [k = 1:words(classes)] f \
		using (strcol(1) eq m && strcol(2) eq word(rounds, 1) ? column(cop) : NaN):(column(colof("p50_".word(classes, k)."_ns")) / 1000) \
		with linespoints pt 7 ps 0.4 lw 1.5 dt class_dt(k) lc rgb mode_color(m) \
		title (has(f, m) ? m." ".word(classes, k) : "")
	unset multiplot
	set output
}
