# SPDX-License-Identifier: GPL-2.0
#
# Loaded by every analysis/*.gp once it has set `script` (its ARG0),
# `here` (its folder) and `run` (-e "run='DIR'" or its ARG1; "" if
# neither): checks the run folder, makes the plot tables
# (analysis/plotdata.sh), reads the run's metadata, and defines what the
# plots share (colours, file tests, output to PNG and SVG).

if (run eq "") {
	print "usage: gnuplot -e \"run='RUN_FOLDER'\" ".script."  (or gnuplot -c ".script." RUN_FOLDER)"
	exit status 2
}
if (system("[ -d '".run."' ] && echo 1 || echo 0") + 0 == 0) {
	print "plot: ".run.": not a folder"
	exit status 2
}
rc = system("sh '".here."/plotdata.sh' '".run."'; echo $?") + 0
if (rc != 0) {
	print "plot: no plot data for ".run." (plotdata.sh exit ".rc.")"
	exit status 1
}
data = run."/plots/data"
plots = run."/plots"

meta(k) = system("sed -n 's/^".k."=//p' '".data."/meta'")
accel = meta("accel")
accel_note = meta("accel_note")
kernel = meta("kernel")
cpu = meta("cpu")
sizes = meta("sizes")
sizelabels = meta("sizelabels")
dirs = meta("dirs")
modes = meta("modes")
has_trace = meta("trace") + 0

# "kernel 6.1.192, AMD EPYC Processor, TCG (emulated) timings"
setup = "kernel ".kernel.(cpu eq "" ? "" : ", ".cpu)
if (accel_note ne "") setup = setup.", ".accel_note

fexists(f) = system("[ -s '".f."' ] && echo 1 || echo 0") + 0
# one number from a whitespace table: the first row whose first
# columns match `match` (space-separated), column c
cell(f, match, c) = system("awk -v m='".match."' -v c=".c." '$1 != \"#\" && index($0, m \" \") == 1 { print $c; exit }' '".f."'")

# Okabe-Ito colours, safe for colour-blind readers
c_destructive = "#D55E00"
c_inplace = "#0072B2"
c_gmem = "#009E73"
mode_color(m) = (m eq "inplace") ? c_inplace : (m eq "gmem") ? c_gmem : c_destructive

has_cairo = strstrt(GPVAL_TERMINALS, "pngcairo") > 0
# eval out_cmd(i, name, w, h): output to plots/name.png (i = 1) or .svg (2)
png_term(w, h) = has_cairo ? \
	sprintf("set terminal pngcairo size %d,%d font 'sans,10' noenhanced", w, h) : \
	sprintf("set terminal png size %d,%d noenhanced", w, h)
svg_term(w, h) = sprintf("set terminal svg size %d,%d font 'sans,10' noenhanced dynamic background rgb 'white'", w, h)
out_cmd(i, name, w, h) = (i == 1 ? png_term(w, h) : svg_term(w, h)) . \
	"; set output '".plots."/".name.(i == 1 ? ".png'" : ".svg'")

load here."/ticks.gp"
# "lo hi": the range of the numbers (not NaN) in columns c1..c2 of the
# files (space-separated, quoted); "0 0" when there are none
range_of(files, c1, c2) = system("cat ".files." 2>/dev/null | awk '$1 != \"#\" { for (i = ".c1."; i <= ".c2."; i++) if ($i ~ /^[-+]?[0-9.]+([eE][-+]?[0-9]+)?$/) { v = $i + 0; if (!n++ || v < lo) lo = v; if (!(n - 1) || v > hi) hi = v } } END { print lo + 0, hi + 0 }'")

# microseconds with 3 to 4 significant digits, no exponent
fmt_us(x) = x >= 1000 ? sprintf("%.0f", x) : x >= 100 ? sprintf("%.1f", x) : \
	x >= 10 ? sprintf("%.2f", x) : sprintf("%.3f", x)
# "destructive vs inplace", the three modes (gmem: 6.12, another boot)
# or the one mode the run has
modes_title = words(modes) == 3 ? "destructive vs inplace (6.1) vs gmem (6.12, another boot)" : \
	words(modes) == 2 ? word(modes, 1)." vs ".word(modes, 2) : word(modes, 1)." only"

set termoption noenhanced
