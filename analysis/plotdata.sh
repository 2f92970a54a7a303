#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Plot tables for the analysis/*.gp scripts, from a convbench run folder:
#
#   analysis/plotdata.sh RUN
#
# writes RUN/plots/data/ (whitespace-separated, one header line with #):
#   meta              key=value: accel, kernel, cpu, date, sizes, modes ...
#   stats.dat         mode size_bytes size dir n p50_us p90_us p99_us
#   stats-M-D.dat     the same for one mode and direction, by size
#   hist-M-S-D.dat    low_us high_us pct_per_16th_octave (M mode, S bytes, D dir)
#   cdf-M-S-D.dat     total_us fraction_at_or_below
#   phases-S.dat      per (dir, mode): x, label, cumulated phase medians (us)
#   ratio.dat         size_bytes size dir p50 lo hi p99 lo hi (inplace/destructive)
#   ratio-D.dat       the same for one direction, by size
#   ratio-gm-de-D.dat, ratio-in-gm-D.dat  gmem/destructive, inplace/gmem
#                     (from convreport's ratios.csv, with a gmem/ boot)
#   trace-S.dat       top functions: name, us per conversion and calls per
#                     conversion for destructive, inplace and unnamed
#                     contexts (S = bytes, or "all")
# Percentiles are numpy-'linear' (bench/stats.h), from samples.csv. A
# make bench run's gmem/ subfolder (the 6.12 kernel's boot) adds its
# samples.csv and hist.csv as a third mode. Only POSIX sh, awk (mawk is
# enough) and sort. Nothing is redone while RUN/plots/data/stamp is newer
# than the inputs and this script.
#
# Exit: 0, 1 no samples.csv or nothing in it, 2 bad usage.
set -eu

[ $# -eq 1 ] && [ -d "$1" ] || {
	echo "usage: analysis/plotdata.sh RUN_FOLDER" >&2
	exit 2
}
run=$1
samples=$run/samples.csv
gmem=$run/gmem/samples.csv
[ -f "$samples" ] || [ -f "$gmem" ] || { echo "plotdata: $samples: missing" >&2; exit 1; }
out=$run/plots/data
export LC_ALL=C

# up to date?
if [ -f "$out/stamp" ]; then
	stale=
	for f in "$samples" "$run/hist.csv" "$run/summary.json" \
		 "$run/trace.csv" "$gmem" "$run/gmem/hist.csv" \
		 "$run/ratios.csv" "$0"; do
		[ -e "$f" ] && [ "$f" -nt "$out/stamp" ] && stale=1
	done
	[ -n "$stale" ] || exit 0
fi

mkdir -p "$run/plots"
tmp=$(mktemp -d "$run/plots/.data.XXXXXX")
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT

# the gmem boot's samples (and histogram buckets) as a third mode
if [ -f "$gmem" ]; then
	{ cat "$samples" 2>/dev/null || head -n 1 "$gmem"; tail -n +2 "$gmem"; } \
		> "$tmp/samples.all"
	samples=$tmp/samples.all
fi
hist=$run/hist.csv
if [ -s "$run/gmem/hist.csv" ]; then
	{ cat "$hist" 2>/dev/null || head -n 1 "$run/gmem/hist.csv"
	  tail -n +2 "$run/gmem/hist.csv"; } > "$tmp/hist.all"
	hist=$tmp/hist.all
fi

# column number of header name $2 in CSV $1 (0 if absent)
col() {
	head -n 1 "$1" | tr -d '\r' | awk -F, -v n="$2" \
		'{ for (i = 1; i <= NF; i++) if ($i == n) { print i; exit } print 0 }'
}

c_mode=$(col "$samples" mode)
c_size=$(col "$samples" size)
c_dir=$(col "$samples" direction)
[ "$c_mode" -gt 0 ] && [ "$c_size" -gt 0 ] && [ "$c_dir" -gt 0 ] || {
	echo "plotdata: $samples: no mode,size,direction header" >&2
	exit 1
}

# mode size dir value, sorted by group then value (ns)
sorted_col() {	# sorted_col NAME
	c=$(col "$samples" "$1")
	[ "$c" -gt 0 ] || return 0
	awk -F, -v m="$c_mode" -v s="$c_size" -v d="$c_dir" -v c="$c" \
		'NR > 1 && $c != "" { print $m, $s, $d, $c + 0 }' "$samples" |
		sort -k1,1 -k2,2n -k3,3 -k4,4g
}

# percentiles per group of sorted "mode size dir value" lines
PCT_AWK='
function pct(p,   h, k) {
	h = (n - 1) * p / 100; k = int(h)
	if (k >= n - 1) return v[n - 1]
	return v[k] + (h - k) * (v[k + 1] - v[k])
}
function flush() {
	if (n) print g, n, pct(50) / 1000, pct(90) / 1000, pct(99) / 1000
	n = 0
}
{ key = $1 " " $2 " " $3; if (key != g) { flush(); g = key } v[n++] = $4 }
END { flush() }'

# size label as convbench prints it (bench/options.c size_str)
SIZE_AWK='
function sz(b) {
	if (b > 0 && b % 1048576 == 0) return (b / 1048576) "M"
	if (b > 0 && b % 1024 == 0) return (b / 1024) "K"
	return b
}'

sorted_col total_ns > "$tmp/total.sorted"
[ -s "$tmp/total.sorted" ] || { echo "plotdata: $samples: no samples" >&2; exit 1; }

# stats.dat
awk "$PCT_AWK" "$tmp/total.sorted" | awk "$SIZE_AWK"'
	BEGIN { print "# mode size_bytes size dir n p50_us p90_us p99_us" }
	{ print $1, $2, sz($2), $3, $4, $5, $6, $7 }' > "$tmp/stats.dat"

# stats-M-D.dat: the same rows for one mode and direction, by size
awk -v dir="$tmp" '$1 != "#" { print | ("sort -k2,2n > \"" dir "/stats-" $1 "-" $4 ".dat\"") }' \
	"$tmp/stats.dat"

# cdf-M-S-D.dat, at most ~2000 points per curve (and always the last)
awk -v dir="$tmp" '
	function flush(   i, step) {
		if (!n) return
		step = int((n + 1999) / 2000)
		f = dir "/cdf-" g ".dat"
		print "# total_us fraction" > f
		for (i = 1; i <= n; i++)
			if (i % step == 0 || i == n || i == 1)
				print v[i] / 1000, i / n > f
		close(f); n = 0
	}
	{ key = $1 "-" $2 "-" $3; if (key != g) { flush(); g = key } v[++n] = $4 }
	END { flush() }' "$tmp/total.sorted"

# hist-M-S-D.dat: hist.csv when present (convbench's buckets: log2 with
# 16 sub-buckets), else the same bucketing of samples.csv. y is percent
# of the cell's conversions per 1/16 octave, so that buckets of unequal
# log width compare and modes with different n overlay.
if [ -s "$hist" ]; then
	awk -F, 'NR > 1 && NF >= 6 {
		b = $2; u = substr(b, length(b)); x = b + 0
		if (u == "K") x *= 1024; else if (u == "M") x *= 1048576
		else if (u == "G") x *= 1073741824
		print $1, x, $3, $4, $5, $6 }' "$hist"
else
	awk '{	v = int($4); s = 1
		while (v >= 32 * s) s *= 2	# bucket width: 2^(log2(v) - 4)
		lo = int(v / s) * s
		k = $1 " " $2 " " $3 " " lo " " lo + s - 1
		if (!(k in c)) order[++nk] = k
		c[k]++ }
		END { for (i = 1; i <= nk; i++) print order[i], c[order[i]] }' \
		"$tmp/total.sorted"
fi | awk -v dir="$tmp" '
	{ k = $1 "-" $2 "-" $3; tot[k] += $6; line[++n] = $0; key[n] = k }
	END {
		for (i = 1; i <= n; i++) {
			split(line[i], a, " ")
			lo = a[4] < 1 ? 1 : a[4]
			w = 16 * log((a[5] + 1) / lo) / log(2)
			f = dir "/hist-" key[i] ".dat"
			if (!(f in seen)) { print "# low_us high_us pct_per_16th_octave" > f; seen[f] = 1 }
			print lo / 1000, (a[5] + 1) / 1000, 100 * a[6] / tot[key[i]] / w > f
		}
	}'

# phases-S.dat: per (dir, mode) the medians of the guest's phases,
# cumulated (copy, exit round trip, after exit), and of the host
# handler's (record, memory, release, rest of the handler). The host
# handler is timed by the host's clock, the rest by the guest's: two
# bars, not one stack.
for p in copy_ns exit_rt_ns after_exit_ns host_ns host_record_ns \
	 host_mem_ns host_release_ns; do
	sorted_col "$p" | awk "$PCT_AWK" | awk -v p="$p" '{ print $1, $2, $3, p, $5 }'
done > "$tmp/phase.med"
awk '$1 != "#" { print $1, $2, $4, "total_ns", $6 }' "$tmp/stats.dat" \
	>> "$tmp/phase.med"
awk -v dir="$tmp" "$SIZE_AWK"'
	{ k = $2 " " $3 " " $1; m[k, $4] = $5 + 0
	  if (!(k in seen)) { seen[k] = 1; keys[++nk] = k }
	  if (!($2 in sseen)) { sseen[$2] = 1; sizes[++ns] = $2 } }
	END {
		for (i = 1; i <= ns; i++) {
			s = sizes[i]; f = dir "/phases-" s ".dat"
			print "# x dir mode copy exit_rt after_exit (cumulated, us) | " \
			      "record memory release handler_rest (cumulated, us) | " \
			      "median_total_us cluster_x" > f
			x = 0
			for (di = 1; di <= 2; di++) {
				d = di == 1 ? "to-shared" : "to-private"
				for (mi = 1; mi <= 3; mi++) {
					md = mi == 1 ? "destructive" : mi == 2 ? "inplace" : "gmem"
					k = s " " d " " md
					if (!(k in seen)) continue
					c1 = m[k, "copy_ns"]; c2 = c1 + m[k, "exit_rt_ns"]
					c3 = c2 + m[k, "after_exit_ns"]
					h1 = m[k, "host_record_ns"]; h2 = h1 + m[k, "host_mem_ns"]
					h3 = h2 + m[k, "host_release_ns"]
					h4 = m[k, "host_ns"]; if (h4 < h3) h4 = h3
					print x, d, md, c1, c2, c3, h1, h2, h3, h4, \
					      m[k, "total_ns"], di > f
					x++
				}
				x += 0.6
			}
			close(f)
		}
	}' "$tmp/phase.med"

# ratio.dat: summary.json's bootstrap CIs (pretty-printed by
# bench/jsonw.c, one key per line); without it, the point ratios only
awk "$SIZE_AWK"'
	$1 != "#" { p50[$1, $2, $4] = $6; p99[$1, $2, $4] = $8
		    if (!($2 " " $4 in seen)) { seen[$2 " " $4] = 1; keys[++n] = $2 " " $4 } }
	END {
		print "# size_bytes size dir p50 p50_lo p50_hi p99 p99_lo p99_hi"
		for (i = 1; i <= n; i++) {
			split(keys[i], a, " "); s = a[1]; d = a[2]
			if (!(("destructive", s, d) in p50) || !(("inplace", s, d) in p50))
				continue
			if (p50["destructive", s, d] <= 0 || p99["destructive", s, d] <= 0)
				continue
			print s, sz(s), d, p50["inplace", s, d] / p50["destructive", s, d], \
			      "NaN NaN", p99["inplace", s, d] / p99["destructive", s, d], "NaN NaN"
		}
	}' "$tmp/stats.dat" > "$tmp/ratio.pts"
if [ -s "$run/summary.json" ] && grep -q '"ratios_inplace_over_destructive"' "$run/summary.json"; then
	awk '
		/"ratios_inplace_over_destructive"/ { in_r = 1; next }
		!in_r { next }
		/^  []}]/ { in_r = 0; next }
		{
			line = $0; gsub(/[",]/, "", line); n = split(line, a, ":")
			if (n < 2) { if (line ~ /}/ && size != "") { print size, dir, v["p50"], \
				v["p50_ci95_lo"], v["p50_ci95_hi"], v["p99"], v["p99_ci95_lo"], \
				v["p99_ci95_hi"]; size = ""; split("", v) } next }
			k = a[1]; gsub(/ /, "", k); x = a[2]; gsub(/ /, "", x)
			if (k == "size") size = x; else if (k == "direction") dir = x
			else v[k] = (x == "null" ? "NaN" : x)
		}' "$run/summary.json" > "$tmp/ratio.json"
else
	: > "$tmp/ratio.json"
fi
# the points from samples.csv, the CIs from summary.json where it has them
awk 'FILENAME == ARGV[1] { ci[$1, $2] = $4 " " $5 " " $7 " " $8; next }
	/^#/ { print; next }
	{ c = (($2, $3) in ci) ? ci[$2, $3] : "NaN NaN NaN NaN"; split(c, a, " ")
	  print $1, $2, $3, $4, a[1], a[2], $7, a[3], a[4] }' \
	"$tmp/ratio.json" "$tmp/ratio.pts" > "$tmp/ratio.dat"
# convreport's ratios.csv (make bench writes the report first) has every
# pair with its CI, those against gmem too: it wins where present
if [ -s "$run/ratios.csv" ]; then
	awk -F, 'NR > 1 && $1 == "inplace/destructive" {
		print $2, $3, $4, $5, $6, $7, $8, $9, $10 }' "$run/ratios.csv" |
		sed 's/nan/NaN/g' > "$tmp/ratio.csv.in"
	if [ -s "$tmp/ratio.csv.in" ]; then
		{ head -n 1 "$tmp/ratio.dat"; cat "$tmp/ratio.csv.in"; } > "$tmp/ratio.dat.new"
		mv "$tmp/ratio.dat.new" "$tmp/ratio.dat"
	fi
	rm -f "$tmp/ratio.csv.in"
	# ratio-gm-de-D.dat, ratio-in-gm-D.dat: the third column's pairs
	awk -F, -v dir="$tmp" 'NR > 1 && ($1 == "gmem/destructive" || $1 == "inplace/gmem") {
		t = $1 == "gmem/destructive" ? "gm-de" : "in-gm"
		f = dir "/ratio-" t "-" $4 ".dat"
		if (!(f in seen)) { seen[f] = 1
			print "# size_bytes size dir p50 p50_lo p50_hi p99 p99_lo p99_hi" > f }
		line = $2 " " $3 " " $4 " " $5 " " $6 " " $7 " " $8 " " $9 " " $10
		gsub(/nan/, "NaN", line); print line > f }' "$run/ratios.csv"
fi
# ratio-D.dat: one direction, by size
awk -v dir="$tmp" '$1 != "#" { print | ("sort -k1,1n > \"" dir "/ratio-" $3 ".dat\"") }' \
	"$tmp/ratio.dat"

# trace-S.dat: time inside each probed function per recorded conversion
# (sum_ns over the conversions samples.csv has for that mode and size),
# contexts named "MODE SIZE DIR" (convtrace context_name); contexts that
# name no mode (convtrace -- convbench sets none) are "mixed", over all
# the conversions. Calls nest: the bars do not add up. Top 8 by the
# largest of the three.
if [ -s "$run/trace.csv" ]; then
	awk -F, '
		NR == FNR { if (FNR > 1) conv[$'"$c_mode"', $'"$c_size"']++; next }
		FNR == 1 || /^#/ || $5 == "" || $6 == "" { next }
		{
			if (seen[$1, $3, $5, $6]++) next	# count, sum repeat per bucket
			md = ""; sz = "all"; nw = split($4, w, /[ \/:]+/)
			for (i = 1; i <= nw; i++) {
				if (w[i] == "destructive" || w[i] == "inplace") md = w[i]
				else if (w[i] ~ /^[0-9]+[KMG]?$/) {
					x = w[i] + 0; u = substr(w[i], length(w[i]))
					if (u == "K") x *= 1024; else if (u == "M") x *= 1048576
					else if (u == "G") x *= 1073741824
					sz = x
				}
			}
			if (md == "") md = "mixed"	# convtrace -- convbench: no contexts
			if ($6 + 0 == 0) next
			sum[$1, md, sz] += $6; cnt[$1, md, sz] += $5
			if (!(($1, sz) in pf)) { pf[$1, sz] = 1; fn[++nf] = $1; fs[nf] = sz }
		}
		END {
			for (i = 1; i <= nf; i++) {
				f = fn[i]; s = fs[i]; line = f
				best = 0
				for (mi = 1; mi <= 3; mi++) {
					md = mi == 1 ? "destructive" : mi == 2 ? "inplace" : "mixed"
					nc = 0
					for (k in conv) { split(k, a, SUBSEP)
						if ((md == "mixed" || a[1] == md) &&
						    (s == "all" || a[2] == s)) nc += conv[k] }
					if (nc && ((f, md, s) in sum)) {
						t = sum[f, md, s] / nc / 1000; c = cnt[f, md, s] / nc
					} else { t = 0; c = 0 }
					if (t > best) best = t
					line = line " " t " " c
				}
				print s, best, line
			}
		}' "$samples" "$run/trace.csv" | sort -k1,1 -k2,2gr |
	awk -v dir="$tmp" '
		$1 != s { if (f != "") close(f); s = $1; r = 0; f = dir "/trace-" s ".dat"
			  print "# rank function destr_us_per_conv destr_calls_per_conv " \
				"inplace_us_per_conv inplace_calls_per_conv " \
				"mixed_us_per_conv mixed_calls_per_conv" > f }
		++r <= 8 { print r - 1, $3, $4, $5, $6, $7, $8, $9 > f }'
fi

# meta: provenance strings from summary.json (jsonw.c: one key a line)
prov() {	# prov KEY
	[ -s "$run/summary.json" ] || return 0
	sed -n "s/^ *\"$1\": *\"\\(.*\\)\",\\{0,1\\}\$/\\1/p" "$run/summary.json" |
		head -n 1 | tr -d "'\\\\"
}
{
	accel=$(prov accel)
	echo "accel=$accel"
	echo "kernel=$(prov kernel_release)"
	echo "cpu=$(prov cpu_model)"
	echo "date=$(prov date)"
	echo "qemu=$(prov qemu_version)"
	echo "sizes=$(awk '$1 != "#" { print $2 }' "$tmp/stats.dat" | sort -n -u | tr '\n' ' ')"
	echo "sizelabels=$(awk '$1 != "#" { print $2, $3 }' "$tmp/stats.dat" | sort -n -u |
		awk '{ print $2 }' | tr '\n' ' ')"
	echo "dirs=$(awk '$1 != "#" { print $4 }' "$tmp/stats.dat" | sort -r -u | tr '\n' ' ')"
	echo "modes=$(awk '$1 != "#" { print $1 }' "$tmp/stats.dat" | sort -u | tr '\n' ' ')"
	echo "trace=$([ -s "$run/trace.csv" ] && echo 1 || echo 0)"
	case $accel in
	tcg|TCG) echo "accel_note=TCG (emulated) timings" ;;
	"") echo "accel_note=" ;;
	*) echo "accel_note=accel $accel" ;;
	esac
} > "$tmp/meta"

rm -f "$tmp/total.sorted" "$tmp/phase.med" "$tmp/ratio.pts" "$tmp/ratio.json" \
	"$tmp/samples.all" "$tmp/hist.all"
: > "$tmp/stamp"
rm -rf "$out.old"
[ -d "$out" ] && mv "$out" "$out.old"
mv "$tmp" "$out"
rm -rf "$out.old"
trap - EXIT
