# SPDX-License-Identifier: GPL-2.0
#
# Where the kernel spends a conversion's time, from convtrace (trace.csv):
# for the top functions (and tracepoint rows) of each size, the time
# spent inside per recorded conversion (sum of the calls' durations over
# the conversions samples.csv has for that mode and size), both modes.
# Labels: calls per conversion. Functions nest (shmem_fallocate contains
# memfile_notifier_invalidate ...): the bars do not add up. When the
# trace's contexts name no mode (convtrace -- convbench), one grey bar
# per probe: both modes together, over all recorded conversions.
#
#   gnuplot -e "run='results/DIR'" analysis/bpf.gp
#   gnuplot -c analysis/bpf.gp results/DIR
#
# Writes DIR/plots/bpf-functions.png and .svg; without trace.csv it says
# so and writes nothing.

# ARG0 and ARG1 are the script's only until common.gp is loaded
script = ARG0
if (!exists("run")) run = (ARGC >= 1) ? ARG1 : ""
here = system("dirname '".script."'")
load here."/common.gp"

if (!has_trace) {
	print "bpf.gp: ".run." has no trace.csv (tracing unavailable): no BPF plot"
	exit
}
# trace-SIZE.dat, by size ("all": contexts without a size)
tfiles = system("cd '".data."' && ls trace-*.dat 2>/dev/null | sed 's/^trace-//; s/[.]dat$//' | sort -n | tr '\\n' ' '")
nt = words(tfiles)
if (nt == 0) {
	print "bpf.gp: ".run."/trace.csv has no timed calls in named contexts: no BPF plot"
	exit
}

w = 1100
h = 330 * nt + 135

set style fill solid 0.85 border lc rgb "#444444"
set grid xtics lc rgb "#e4e4e4"
set xlabel "time inside the function per conversion (us)"
set xrange [0:*]
set offsets 0, graph 0.12, 0, 0
set ytics scale 0 font ",9"
# one key for the figure, under its title, outside every plot
set key at screen 0.5, screen 1 - 56.0 / h center top horizontal maxrows 1 samplen 2 width 2
sz_label(s) = s eq "all" ? "All sizes" : (s + 0 >= 1048576 && (s + 0) % 1048576 == 0) ? sprintf("%dM", (s + 0) / 1048576) : sprintf("%dK", (s + 0) / 1024)
calls(c) = c > 0 ? sprintf(c >= 10 ? "%.0fx" : "%.2fx", c) : ""

do for [o = 1:2] {
	eval out_cmd(o, "bpf-functions", w, h)
	set multiplot layout nt, 1 title \
		"Kernel time per conversion by function (convtrace, BPF), ".modes_title."\n".setup \
		font ",12" margins 0.25, 0.97, 60.0 / h, 1 - 105.0 / h spacing 0, 90.0 / h
	do for [i = 1:nt] {
		if (i == 2) { unset key }
		s = word(tfiles, i)
		f = data."/trace-".s.".dat"
		n = system("awk '$1 != \"#\"' '".f."' | wc -l") + 0
		set title sz_label(s).(s eq "all" ? "" : " conversions").": top ".n." probes (label: calls per conversion; functions nest, bars do not add up)"
		set yrange [n - 0.4 : -0.6]
		# contexts that name no mode: one grey bar, both modes together
		mixed = system("awk '$1 != \"#\" && $7 > 0 { n++ } END { print n + 0 }' '".f."'") + 0
		named = system("awk '$1 != \"#\" && ($3 > 0 || $5 > 0) { n++ } END { print n + 0 }' '".f."'") + 0
		if (named) {
			plot f using ($3 / 2):1:(0):3:($1 - 0.38):($1 - 0.02):ytic(2) with boxxy lc rgb c_destructive title "destructive", \
			     '' using ($5 / 2):1:(0):5:($1 + 0.02):($1 + 0.38) with boxxy lc rgb c_inplace title "inplace", \
			     '' using 3:($1 - 0.2):(calls($4)) with labels left offset 0.5, 0 font ",8" notitle, \
			     '' using 5:($1 + 0.2):(calls($6)) with labels left offset 0.5, 0 font ",8" notitle
		} else {
			plot f using ($7 / 2):1:(0):7:($1 - 0.3):($1 + 0.3):ytic(2) with boxxy lc rgb "#999999" title "both modes (trace contexts name no mode)", \
			     '' using 7:1:(calls($8)) with labels left offset 0.5, 0 font ",8" notitle
		}
	}
	unset multiplot
	set output
}
