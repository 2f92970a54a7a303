#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The BPF probes' overhead in a make bench run: per cell, the median
# conversion with probes (samples-traced.csv) minus without
# (samples.csv), per probe hit (trace.csv counts per context over the
# traced conversions) and as a share of the untraced median.
#   bench/overhead.sh RUN_DIR
run=${1:?usage: bench/overhead.sh RUN_DIR}
cd "$run" || exit 2

# median of total_ns (column 8) per mode,size,direction
medians() {
	awk -F, 'NR > 1 { print $1 "," $2 "," $3 "," $8 }' "$1" |
		sort -t, -k1,1 -k2,2n -k3,3 -k4,4n |
		awk -F, '{ k = $1 "," $2 "," $3; v[k, ++n[k]] = $4; keys[k] = 1 }
		END { for (k in keys) { m = n[k]; i = int((m + 1) / 2);
			med = (m % 2) ? v[k, i] : (v[k, i] + v[k, i + 1]) / 2;
			print k "," med "," m } }'
}

medians samples.csv | sort >.plain.tmp
medians samples-traced.csv | sort >.traced.tmp
# hits per context name ("mode SIZE direction"): each probe's count once
awk -F, 'NR > 1 && $1 !~ /^#/ && $4 != "" && !seen[$1 "," $3]++ {
	hits[$4] += $5 } END { for (c in hits) print c "," hits[c] }' \
	trace.csv >.hits.tmp

echo "BPF probe overhead (same run with and without convbench --trace)"
printf '%-24s %10s %10s %8s %9s %7s\n' cell "p50 plain" "p50 traced" \
	"hits/cv" "ns/hit" share
join -t, -j1 <(sed 's/^\([^,]*\),\([^,]*\),\([^,]*\),/\1 \2 \3,/' .plain.tmp | sort) \
	<(sed 's/^\([^,]*\),\([^,]*\),\([^,]*\),/\1 \2 \3,/' .traced.tmp | sort) |
while IFS=, read -r cell p np t nt; do
	set -- $cell
	sz=$(awk -v b="$2" 'BEGIN { if (b % 1048576 == 0) print b / 1048576 "M";
		else print b / 1024 "K" }')
	name="$1 $sz $3"
	h=$(awk -F, -v n="$name" '$1 == n { print $2 }' .hits.tmp)
	awk -v c="$name" -v p="$p" -v t="$t" -v h="${h:-0}" -v nt="$nt" 'BEGIN {
		hc = nt ? h / nt : 0
		printf "%-24s %10.0f %10.0f %8.1f %9s %6.1f%%\n", c, p, t, hc,
			hc ? sprintf("%.0f", (t - p) / hc) : "-",
			p ? 100 * (t - p) / p : 0 }'
done
rm -f .plain.tmp .traced.tmp .hits.tmp
echo "ns/hit: (traced p50 - plain p50) / probe hits per conversion."
