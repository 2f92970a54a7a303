#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The data path after the VM, on synthetic rounds made here: three
# boots as make bench leaves them (untraced, traced and counting runs,
# a clock check each; the third boot's clock is off), merged by
# convbench --merge, then reported by convreport and plotted.
#   - merge: the invalid boot is left out and said so, rounds and
#     samples of the valid ones only, overhead per boot, trace files
#     summed, work counts with whether the boots agree;
#   - convreport: 72 columns, ASCII, report.txt == stdout, the setup and
#     method, per cell n and p50/p90/p99 with the samples beyond each,
#     the ratio (inplace is 0.7 x destructive in every round, up to a
#     per-round drift) with its CI over rounds and each round's ratio,
#     tails withheld below 50 samples beyond, the work, overhead and
#     kernel function sections, hyperfine; its numbers are
#     summary.json's; exit codes;
#   - plots: convreport --plot-data tables from summary.json, every
#     analysis/*.gp (when gnuplot is installed), make plot and report;
#   - the third column: three gmem boots merged on their own, then the
#     6.1 merge with --gmem-run: gmem over destructive is 1.4 and
#     inplace over gmem 0.5 in every round, up to the drift; the
#     report's gmem rows, the three ratios each with its CI, gmem's
#     kernel and what differs, the v5 functions beside their 6.12
#     counterparts.
#   - the emulator's fixed costs: each boot's calibration and counted
#     faults through both merges into the report, every figure
#     recomputed here;
#   - README.md's generated tables are what convreport prints from the
#     committed runs they name, and a changed figure fails the check.
#
#   analysis/test_report.sh   (CONVREPORT=path, CONVBENCH=path: default
#                              build/analysis/convreport, build/bench/convbench)
#
# POSIX sh. TAP-like lines; the last line is "N passed, N failed[, N
# skipped]".

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
CR=${CONVREPORT:-$TOP/build/analysis/convreport}
CB=${CONVBENCH:-$TOP/build/bench/convbench}
tmp=$(mktemp -d) || exit 1
trap '[ -n "$KEEP" ] || rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../tests/lib/tap.sh"

for b in "$CR" "$CB"; do
	[ -x "$b" ] || { echo "# no $b (make it, or set CONVREPORT/CONVBENCH)"; tap_ok 1 "$b is built"; tap_finish; }
done

# --- three boots: 2 sizes x 2 directions x 2 modes, 60 samples per cell
boots=$tmp/boots
samples() {	# samples ROUND FACTOR [RUN]: a samples.csv on stdout
	awk -v r="$1" -v f="$2" -v run="${3:-1}" 'BEGIN {
		print "round,mode,size,direction,trigger,preserve,vcpu,iter," \
		      "total_ns,first_ns,copy_ns,exit_rt_ns,after_exit_ns,exits," \
		      "host_ns,host_record_ns,host_mem_ns,host_release_ns"
		split("4K 2M", sz, " "); split("to-shared to-private", dr, " ")
		for (m = 0; m < 2; m++) for (s = 1; s <= 2; s++) for (d = 1; d <= 2; d++)
		for (i = 0; i < 60; i++) {
			base = (s == 1 ? 50000 : 5000000) * (d == 1 ? 1 : 1.2) * f
			v = base * (1 + (i * 7 % 60) / 100)
			# inplace is 0.7 x destructive, drifting by round
			if (m) v *= 0.7 * run * (1 + 0.02 * (r - 0.5))
			c = m ? 0 : v / 10
			printf "%d,%s,%s,%s,explicit,1,0,%d,%d,%d,%d,%d,%d,1,%d,%d,%d,0\n", \
				r, m ? "inplace" : "destructive", sz[s], dr[d], i, v, v, \
				c, (v - c) / 2, (v - c) / 2, v / 3, v / 9, v / 9
		}
	}'
}
summary() {	# summary ROUND: a boot's plain/summary.json on stdout
	cat <<JSON
{
  "provenance": {
    "convbench_version": "abc1234", "date": "2026-12-03T05:04:28Z",
    "kernel_release": "6.1.192-convbench-00017-gabcdef12",
    "series_sha": "0123456789abcdef0123", "config_sha": null,
    "qemu_version": "7.2.22", "accel": "tcg",
    "cpu_model": "${CPU:-Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz}",
    "argv": ["convbench", "--rounds=1", "--iterations=${ITER:-300}"]
  },
  "method": { "rounds": 1, "order_seed": 99 },
  "probe_calibration": { "ok": true, "ns_per_call": $((10000 + 100 * $1)), "traced": false },
  "rounds": [ { "round": $1, "order": "2M destructive, 2M inplace, 4K inplace, 4K destructive" } ],
  "cells": [ $(cal_cells "$1") ]
}
JSON
}
# the VMs' calibration of round R: null exit 3000 + 200 R (+ 400 in
# place), NPT fault 2000 + 200 R (fixed_expect computes with them)
cal_cells() {
	awk -v r="$1" 'BEGIN {
		split("4K 2M", sz, " ")
		for (m = 0; m < 2; m++) for (s = 1; s <= 2; s++)
			printf "%s{ \"mode\": \"%s\", \"size\": \"%s\", \"direction\": \"to-shared\", \"fixed_costs\": { \"null_exit_ns\": { \"n\": 32, \"p50\": %d }, \"npt_fault_ns\": { \"n\": 32, \"p50\": %d } } }", \
				n++ ? ", " : "", m ? "inplace" : "destructive", sz[s], \
				3000 + 200 * r + 400 * m, 2000 + 200 * r
	}'
}
# fixed_expect NUM_MODE NUM_FACTOR SIZE DIR: the ratio less the fixed
# costs, computed here from what samples() and cal_cells() made, over
# the valid rounds 0 and 1: per round (p50 - fixed) of the numerator
# (inplace, or destructive scaled by NUM_FACTOR as gmem is) over that
# of destructive; fixed = 1 exit x null exit + 1 fault x NPT fault
fixed_expect() {
	awk -v nm="$1" -v nf="$2" -v sz="$3" -v dr="$4" '
	function p50(r, m, f,   i, base, v, k, lo, hi) {
		for (i = 0; i < 60; i++) {
			base = (sz == "4K" ? 50000 : 5000000) * (dr == "to-shared" ? 1 : 1.2) * f
			v = base * (1 + (i * 7 % 60) / 100)
			if (m) v *= 0.7 * 1 * (1 + 0.02 * (r - 0.5))
			k = i * 7 % 60
			if (k == 29) lo = int(v)
			if (k == 30) hi = int(v)
		}
		return (lo + hi) / 2
	}
	function fixed(r, m) { return 3000 + 200 * r + 400 * m + 2000 + 200 * r }
	BEGIN {
		for (r = 0; r < 2; r++) {
			num = nm == "inplace" ? p50(r, 1, 1) - fixed(r, 1) : p50(r, 0, nf) - fixed(r, 0)
			g += log(num / (p50(r, 0, 1) - fixed(r, 0))) / 2
		}
		printf "%.3f\n", exp(g)
	}'
}
# less_fixed_bad REPORT LABEL RAW NUM_MODE NUM_FACTOR: how many of the
# four (size, direction) lines "LABEL  raw RAW ... less fixed X" in
# REPORT's fixed-cost section do not give fixed_expect's X (each named)
less_fixed_bad() {
	nbad=0
	for sz in 4K 2M; do
		for dr in to-shared to-private; do
			want=$(fixed_expect "$4" "$5" $sz $dr)
			sed -n "/^$sz $dr\$/,/^[0-9]/p" "$1" |
				grep -qE "^    $2  raw $3 .* less fixed $want( |\$)" ||
				{ echo "# $sz $dr: $2 less fixed: want $want" >&2; nbad=$((nbad + 1)); }
		done
	done
	echo $nbad
}
work() {	# work IPIS: counts/summary.json, IPIs vary by boot
	awk -v ipis="$1" 'BEGIN {
		print "{ \"cells\": ["
		split("4K 2M", sz, " "); split("to-shared to-private", dr, " ")
		split("1 512", pg, " ")
		for (m = 0; m < 2; m++) for (s = 1; s <= 2; s++) for (d = 1; d <= 2; d++) {
			p = m ? 0 : pg[s]
			printf "%s{ \"mode\": \"%s\", \"size\": \"%s\", \"direction\": \"%s\", \"work\": { \"exits\": { \"per_conversion\": 2 }, \"npt_faults\": { \"per_conversion\": 1 }, \"spte_4k\": { \"per_conversion\": %d }, \"spte_2m\": { \"per_conversion\": %d }, \"host_faults\": { \"per_conversion\": 1 }, \"pages_allocated\": { \"per_conversion\": %d }, \"pages_freed\": { \"per_conversion\": %d }, \"pages_zeroed\": { \"per_conversion\": %d }, \"bytes_copied\": { \"per_conversion\": %d }, \"tlb_flush_requests\": { \"per_conversion\": 1 }, \"ipis\": { \"per_conversion\": %s } } }\n", \
				n++ ? ", " : "", m ? "inplace" : "destructive", sz[s], dr[d], \
				s == 1, s == 2, p, p, p, m ? 0 : 2 * 4096 * pg[s], ipis
		}
		print "] }"
	}'
}
traced() {	# traced DIR ROUND: a traced run's files
	mkdir -p "$1"
	samples "$2" 1.1 > "$1/samples.csv"
	{
		echo "probe,mode,size,phase,low_ns,high_ns,count"
		for m in destructive inplace; do
			for s in 4K 2M; do
				echo "shmem_fallocate,$m,$s,to-shared,8192,9215,60"
				echo "shmem_fallocate,$m,$s,to-shared,9216,10239,40"
				echo "shmem_fallocate,$m,$s,setup,9216,10239,1"
				echo "memfile_notifier_invalidate,$m,$s,to-private,4096,4607,50"
			done
		done
	} > "$1/trace.csv"
	{
		echo "probe,attach,mode,size,phase,calls,inclusive_ns,exclusive_ns,conversions"
		for m in destructive inplace; do
			for s in 4K 2M; do
				echo "shmem_fallocate,fentry,$m,$s,to-shared,100,1200000,900000,60"
				echo "shmem_fallocate,fentry,$m,$s,setup,1,10000,10000,0"
				echo "memfile_notifier_invalidate,fentry,$m,$s,to-private,50,250000,250000,60"
			done
		done
	} > "$1/trace-totals.csv"
	# the probes' calibration: 2 hits per call of 1500 + 100 K ns each
	cat > "$1/summary.json" <<JSON
{ "probe_calibration": { "ok": true, "traced": true, "hits_per_call": 2,
    "ns_per_call": $((10000 + 100 * $2 + 2 * (1500 + 100 * $2))) },
  "trace": { "set": "default", "timing": "exclusive",
    "probes": [ { "probe": "memfile_notifier_invalidate", "attach": "fentry", "not_traced_why": null },
                { "probe": "kvm_faultin_pfn_private", "attach": null, "not_traced_why": "not in BTF or kallsyms" },
                { "probe": "shmem_fallocate", "attach": "fentry", "not_traced_why": null },
                { "probe": "shmem_convert_range", "attach": "fentry", "not_traced_why": null } ],
    "contexts": [ { "context": "destructive 4K to-shared", "hits": 360, "conversions": 60 } ] } }
JSON
}
for r in 0 1 2; do
	b=$boots/boot-$r
	mkdir -p "$b/plain" "$b/counts"
	samples $r 1 > "$b/plain/samples.csv"
	summary $r > "$b/plain/summary.json"
	traced "$b/traced" $r
	work "0.$r" > "$b/counts/summary.json"
	printf 'valid=1\ntsc_khz=2600000\ntsc_khz_measured=2599990\ndeviation_pct=-0.0004\nclocksource=tsc\n' > "$b/clock.env"
done
printf 'valid=0\nwhy=the guest TSC ran 1.2%% slow\ntsc_khz=2600000\n' > "$boots/boot-2/clock.env"
printf 'valid=1\nchecked=0\nwhy=the console delivered the start marks in a burst\n' > "$boots/boot-1/clock.env"

# --- merge
run=$tmp/2026-12-03-6.1.192-abc1234
"$CB" --merge="$boots" --out="$run" > "$tmp/merge.out" 2> "$tmp/merge.err"
rc=$?
sed 's/^/# merge: /' "$tmp/merge.err"
tap_ok $rc "convbench --merge of 3 boots exits 0 ($rc)"
grep -q 'boot 2 left out: the guest TSC ran 1.2% slow' "$tmp/merge.err" &&
	grep -q '"invalid_why": "the guest TSC ran 1.2% slow"' "$run/summary.json" &&
	grep -q '"rounds_valid": 2' "$run/summary.json"
tap_ok $? "the boot whose clock was off is left out, and said so"
rows=$(($(wc -l < "$run/samples.csv") - 1))
[ "$rows" -eq 960 ] && ! grep -q '^2,' "$run/samples.csv"
tap_ok $? "samples.csv: the valid boots' 2 x 480 samples ($rows), none of boot 2"
[ -s "$run/overhead.txt" ] && grep -q '"overhead_pct": 10' "$run/summary.json"
tap_ok $? "overhead.txt and summary.json: traced 1.1 x untraced is +10%"
# destructive 4K to-shared: p50 64750 untraced, 71225 traced, 6 hits
# per conversion; boot K's probes cost 1500 + 100 K ns a hit, so boot
# 0 leaves 71225 - 9000 and boot 1 71225 - 9600 over 64750
want=$(awk 'BEGIN { printf "%.4f", 100 * (sqrt((71225 - 9000) / 64750 * (71225 - 9600) / 64750) - 1) }')
got=$(grep -A 20 '"direction": "to-shared"' "$run/summary.json" | awk '
	/"overhead_pct"/ { on = 1 } on && /"corrected_pct"/ { gsub(/[",]/, ""); printf "%.4f", $2; exit }')
grep -q '"probe_ns_per_hit": 1550' "$run/summary.json" && [ "$got" = "$want" ] &&
	grep -q '"corrected_within_5pct": true' "$run/summary.json" &&
	[ "$(grep -c '"corrected_rounds": 2' "$run/summary.json")" = 1 ] &&
	grep -qE '^destructive 4K to-shared +1550 +61925 +-4\.4% ' "$run/overhead.txt"
tap_ok $? "the probes' cost calibrated per boot corrects the traced p50: $got% (want $want), 1550 ns a hit, within 5%"
grep -q '^shmem_fallocate,destructive,4K,to-shared,8192,9215,120$' "$run/trace.csv" &&
	grep -q '^shmem_fallocate,fentry,destructive,4K,to-shared,200,2400000,1800000,120$' "$run/trace-totals.csv"
tap_ok $? "trace.csv and trace-totals.csv: the valid boots summed"
grep -A 6 '"ipis"' "$run/summary.json" | grep -q '"exact": false' &&
	grep -A 6 '"pages_zeroed"' "$run/summary.json" | grep -q '"exact": true'
tap_ok $? "work counts: exact where the boots agree, not where IPIs differ"

# --- latencies.hlog: the same samples as HdrHistogram's interval log
# one interval per (round, mode, size, direction), in samples.csv's
# order; hlog_samples LOG CSV: the reader's SAMPLES file, each interval
# (tag, start, length from the log's line) with samples.csv's values
hlog_samples() {
	awk -F, -v lf="$1" 'BEGIN {
		while ((getline l < lf) > 0)
			if (l ~ /^Tag=/) {
				split(substr(l, 5), f, ",")
				tag[++nl] = f[1]; start[nl] = f[2]; len[nl] = f[3]
			}
	}
	NR > 1 {
		k = $2 "-" $3 "-" $4
		g = $1 SUBSEP k
		if (!(g in grp)) { grp[g] = ++ng; key[ng] = k; nth[k]++; which[k, nth[k]] = ng }
		i = grp[g]; val[i, ++cnt[i]] = $9
	}
	END {
		for (l = 1; l <= nl; l++) {
			t = tag[l]; used[t]++; i = which[t, used[t]]
			printf "interval %s %s %s 1 1099511627776 3 %d\n", t, start[l], len[l], cnt[i]
			for (j = 1; j <= cnt[i]; j++) print val[i, j]
		}
	}' "$2"
}
hl=$run/latencies.hlog
lines=$(grep -c '^Tag=' "$hl" 2>/dev/null)
groups=$(awk -F, 'NR > 1 && !seen[$1 FS $2 FS $3 FS $4]++ { n++ } END { print n + 0 }' "$run/samples.csv")
[ -s "$hl" ] && [ "$lines" = "$groups" ] && [ "$lines" = 16 ] &&
	grep -q '^#\[Histogram log format version 1.3\]$' "$hl" &&
	grep -q '^Tag=inplace-2M-to-private,' "$hl"
tap_ok $? "latencies.hlog: one interval per round and cell direction ($lines of $groups)"
hlog_samples "$hl" "$run/samples.csv" > "$tmp/hlog.samples"
n_hl=$(awk '$1 == "interval" { s += $8 } END { print s + 0 }' "$tmp/hlog.samples")
[ "$n_hl" = "$rows" ]
tap_ok $? "every sample of samples.csv is in one interval ($n_hl of $rows)"
sh "$TOP/tests/unit/hdrlog_read.sh" "$hl" "$tmp/hlog.samples" > "$tmp/hlog.out" 2>&1
rc=$?
sed 's/^/# reader: /' "$tmp/hlog.out" | grep -v '^# reader: ok' | head -n 20
if [ $rc = 4 ]; then
	tap_skip "a third-party reader decodes latencies.hlog" "$(grep SKIP "$tmp/hlog.out")"
else
	[ $rc = 0 ] && grep -q '^end: 0 failed$' "$tmp/hlog.out"
	tap_ok $? "hdr-histogram-js reads latencies.hlog: counts, min, max, percentiles and buckets match samples.csv"
fi

# --- the report
"$CR" "$run" > "$tmp/stdout" 2> "$tmp/stderr"
rc=$?
tap_ok $rc "convreport exits 0 on the merged run ($rc)"
sed 's/^/# stderr: /' "$tmp/stderr"
rep=$run/report.txt
cmp -s "$rep" "$tmp/stdout"
tap_ok $? "report.txt is written, the same text as stdout"
long=$(awk 'length($0) > 72 { n++ } END { print n + 0 }' "$rep")
tap_ok "$long" "every line is at most 72 columns ($long longer)"
LC_ALL=C grep -q '[^ -~]' "$rep"
[ $? -ne 0 ]
tap_ok $? "plain ASCII, no tabs"
grep -q '^setup: .*6.1.192-convbench-00017-gabcdef12, .*tcg, .*Xeon Platinum 8375C$' "$rep"
tap_ok $? "setup: kernel, accelerator, CPU (shortened to fit)"
grep -q '^method: 3 rounds (2 valid), sizes shuffled per round (order seed 99)' "$rep" &&
	grep -q '^note: round 2 left out: the guest TSC ran 1.2% slow$' "$rep"
tap_ok $? "method: rounds, valid rounds, the order seed; the round left out"
grep -q '^note: emulated timings: compare ratios, not absolute us$' "$rep"
tap_ok $? "TCG run: the emulated-timings note"
grep -q "^note: round 1's clock was not checked: the console delivered the" "$rep" &&
	grep -q '"checked": false' "$run/summary.json"
tap_ok $? "a boot whose clock could not be checked stays in, and says so"
cells=$(grep -cE '^  (destructive|inplace) +120 +[0-9.]+ \[60\] +[0-9.]+ \[12\] +[0-9.]+ \[2\]$' "$rep")
[ "$cells" -eq 8 ]
tap_ok $? "8 cells: n 120, p50/p90/p99 each with the samples beyond it ($cells)"
p50=$(awk '/"total_ns"/ { f = 1 } f && /"p50":/ { gsub(/[^0-9.]/, "", $2); print $2; exit }' "$run/summary.json")
grep -A 2 '^4K   to-shared' "$rep" | grep -q "^  destructive *120 *$(awk -v v="$p50" 'BEGIN { printf "%.2f", v / 1000 }') "
tap_ok $? "the p50 printed is summary.json's ($p50 ns)"
ratios=$(grep -cE '^  in/de p50   0\.700  95% CI 0\.[0-9]+\.\.[0-9.]+  joint 0\.[0-9]+\.\.[0-9.]+$' "$rep")
[ "$ratios" -eq 4 ]
tap_ok $? "each p50 ratio is 0.700 with a CI over rounds ($ratios of 4)"
grep -E '^  in/de p50   0\.700  95% CI ' "$rep" | awk '{ split($6, a, /\.\./); if (!(a[1] < 0.7 && a[2] > 0.7)) bad = 1 } END { exit bad }'
tap_ok $? "each CI holds 0.7"
[ "$(grep -cE '^    rounds   0\.693 0\.707$' "$rep")" -eq 4 ]
tap_ok $? "the per-round ratios are shown next to the pooled one"
[ "$(grep -c '^  in/de p99   not shown: 2 and 2 samples beyond, < 50$' "$rep")" -eq 4 ]
tap_ok $? "p99 ratios are withheld: 2 samples beyond, fewer than 50"
grep -q '^Work per conversion' "$rep" &&
	grep -A 3 '^2M to-shared' "$rep" | grep -qE '^  destructive +2 +1 +0/1 +1 +512/512/512 +4096 +1 +0.05\*$'
tap_ok $? "the work table: pages, KiB copied, * where the boots differ"
grep -qE '^destructive 4K to-shared +[0-9.]+ +\+10.0% ' "$rep"
tap_ok $? "the overhead table: +10% per cell"
grep -q '^shmem_fallocate, 4K conversions$' "$rep" &&
	grep -qE '^ *nsecs +: destructive +inplace$' "$rep" &&
	grep -q '^  destructive  1.667 calls per conversion, 9.000 us per call$' "$rep"
tap_ok $? "kernel functions: calls per conversion, exclusive us per call, histograms side by side"
grep -A 1 '^kvm_faultin_pfn_private$' "$rep" | grep -q 'not traced: not in BTF or kallsyms'
tap_ok $? "a missing probe says why"
! grep -q 'setup' "$rep" || ! grep -A 6 '^shmem_fallocate, 4K' "$rep" | grep -q '101'
tap_ok $? "setup phases are not in the conversions' histograms"
# the tails: pooled percentiles, each with its band over resampled boots
grep -q '^Tails, us: the pooled percentiles' "$rep" &&
	grep -A 3 '^4K   to-shared  *p50  *p90  *p99  *p99.9$' "$rep" |
	awk 'NR == 3 { n = split($0, f, " "); for (i = 1; i <= n; i++) if (f[i] ~ /^[0-9.]+\.\.[0-9.]+$/) b++ } END { exit b != 4 }'
tap_ok $? "tails: p50..p99.9 per cell, each with a 95% band from resampling the boots"

# the emulator's fixed costs: each round's VMs' calibration (plain
# summary.json) priced by the conversion's exit and its counted fault
grep -q "^The emulator's fixed costs, us" "$rep" &&
	grep -A 3 '^4K to-shared$' "$rep" | grep -qE '^  destructive +3\.1 +2\.1 +5\.2 ' &&
	grep -A 3 '^4K to-shared$' "$rep" | grep -qE '^  inplace +3\.5 +2\.1 +5\.6 '
tap_ok $? "fixed costs: per cell the calibration's medians over rounds and the fixed cost per conversion (5.2 and 5.6 us)"
bad=$(less_fixed_bad "$rep" in/de 0.700 inplace 1)
tap_ok $bad "in/de less the fixed costs, per round (p50 - fixed) over (p50 - fixed), as computed here ($bad differ)"

cp "$rep" "$tmp/first"
"$CR" -q "$run" > "$tmp/quiet"
cmp -s "$rep" "$tmp/first" && [ ! -s "$tmp/quiet" ]
tap_ok $? "a rerun replaces report.txt with the same text; -q prints nothing"
left=$(ls -A "$run" | grep -c '^\.report')
tap_ok "$left" "no temp files left in the folder ($left)"

cat > "$run/hyperfine.json" <<'EOF2'
{ "results": [ { "command": "convbench --mode=destructive --size=4K", "mean": 2.638, "stddev": 0.064, "times": [2.6, 2.64, 2.67] } ] }
EOF2
"$CR" -q "$run"
grep -A 3 '^Whole convbench runs (hyperfine), wall time:$' "$rep" |
	grep -q '^    mean 2.638 s +- 0.064 s, 3 runs$'
tap_ok $? "hyperfine.json: each command with its mean, stddev and runs"

# --- plot data and plots
"$CR" --plot-data "$run"
d=$run/plots/data
[ "$(grep -vc '^#' "$d/stats.dat")" -eq 8 ] &&
	awk -v p="$p50" '$1 == "destructive" && $3 == "4K" && $4 == "to-shared" { exit !($6 == p / 1000) }' "$d/stats.dat"
tap_ok $? "--plot-data: stats.dat has the 8 cells, p50 from summary.json"
grep -q '^4096 4K to-shared 0\.699[0-9]* 0\.[0-9]* [0-9.]* NaN NaN NaN NaN NaN NaN NaN NaN NaN$' "$d/ratio.dat" && [ -s "$d/cdf-inplace-2097152-to-private.dat" ] &&
	[ -s "$d/hist-destructive-4096-to-shared.dat" ] && [ -s "$d/phases-4096.dat" ] &&
	grep -q 'shmem_fallocate' "$d/trace-4096.dat"
tap_ok $? "--plot-data: ratios, CDFs, histograms, phases, trace tables"
# a CDF of many samples is thinned evenly over the whole range: its
# first point the smallest sample, its last the sample at the highest
# banded percentile (no tail without its band: the summary's p99.9 here,
# the 4995th of 5000), and the point at one half the median (5000
# samples 1..5000 us, shuffled)
big=$tmp/big
cp -r "$run" "$big" && rm -rf "$big/plots"
awk 'NR == 1 { print; next } $2 == "destructive" && $3 == "4K" && $4 == "to-shared" { row = $0 } END {
	n = split(row, f, ",")
	for (i = 0; i < 5000; i++) {
		f[9] = ((i * 2003) % 5000 + 1) * 1000
		line = f[1]; for (j = 2; j <= n; j++) line = line "," f[j]
		print line
	} }' FS=, "$run/samples.csv" > "$big/samples.csv"
"$CR" --plot-data "$big"
c=$big/plots/data/cdf-destructive-4096-to-shared.dat
pts=$(grep -vc '^#' "$c" 2>/dev/null)
[ "${pts:-0}" -ge 1000 ] && [ "$pts" -le 2002 ] &&
	awk '!/^#/ { if (!n++) first = $1; last = $1; lf = $2; if (!h && $2 >= 0.5) { h = 1; med = $1 } }
		END { exit !(first == 1 && last == 4995 && lf == 0.999 && med >= 2490 && med <= 2510) }' "$c"
tap_ok $? "--plot-data: a CDF of 5000 samples thinned evenly to $pts points, from the smallest to the banded p99.9's sample"
# every sample once, in order, up to fraction 1 (n <= 2000: no thinning)
cdf=$d/cdf-destructive-4096-to-shared.dat
awk '!/^#/ { n++; v[n] = $1; f[n] = $2 }
	END {
		if (n < 2) exit 1
		for (k = 1; k <= n; k++) {
			if (f[k] < k / n - 1e-5 || f[k] > k / n + 1e-5) exit 1
			if (k > 1 && v[k] < v[k - 1]) exit 1
		}
	}' "$cdf"
tap_ok $? "--plot-data: a CDF steps by 1/n from 1/n over sorted samples ($(grep -vc '^#' "$cdf") rows)"
# the tail's bands: one row per banded percentile, as summary.json's
# spectrum gives it (stats.dat's p50 and p99 bands, from the same cell),
# each band around its value, and the curve ends at the highest one
# (the first sample at or beyond it: 120 of 120 here)
band=$d/cdfband-destructive-4096-to-shared.dat
awk 'FNR == 1 { file++ } /^#/ { next }
	file == 1 && $1 == "destructive" && $3 == "4K" && $4 == "to-shared" {
		want[0.5] = $9 " " $10; want[0.99] = $11 " " $12 }
	file == 2 { n++; if ($3 > $2 || $4 < $2) bad++
		if (($1 in want) && want[$1] != $3 " " $4) bad++
		top = $1 }
	file == 3 { lf = $2; rows++ }
	END { exit !(n == 4 && !bad && top == 0.999 && lf >= top && lf < top + 1 / rows) }' \
	"$d/stats.dat" "$band" "$cdf"
tap_ok $? "--plot-data: the CDF's p50, p90, p99, p99.9 with their bands over boots, the curve drawn up to the last ($(grep -vc '^#' "$band" 2>/dev/null) rows)"
# a run without bands (one boot: nothing to resample) has no band rows
# and its curves stop at p90
nb=$tmp/nobands
cp -r "$run" "$nb" && rm -rf "$nb/plots"
sed -E 's/"band_(lo|hi)": [-0-9.e+]+/"band_\1": null/' "$run/summary.json" > "$nb/summary.json"
"$CR" --plot-data "$nb" > /dev/null 2>&1
! ls "$nb"/plots/data/cdfband-* > /dev/null 2>&1 &&
	awk '!/^#/ { lf = $2; n++ } END { exit !(n > 0 && lf >= 0.9 && lf < 0.9 + 1 / 60) }' \
	"$nb/plots/data/cdf-destructive-4096-to-shared.dat"
tap_ok $? "--plot-data: a run without bands draws no tail: its CDF stops at p90, no band rows"
# the synthetic samples have copy = total/10 (destructive) or 0 and
# copy + exit round trip + after exit = total, so the stacked guest
# phases must end at the median total and start at a tenth of it
awk '!/^#/ {
		t = $11; want = ($3 == "inplace") ? 0 : t / 10
		if ($4 < want - 0.01 * t || $4 > want + 0.01 * t) bad++
		if ($5 < $4 || $6 < $5) bad++
		if ($6 < t - 0.01 * t || $6 > t + 0.01 * t) bad++
		# host: record = memory = total/9, no release, handler total/3
		if ($7 < t / 9 - 0.01 * t || $7 > t / 9 + 0.01 * t) bad++
		if ($8 < 2 * t / 9 - 0.01 * t || $8 > 2 * t / 9 + 0.01 * t) bad++
		if ($9 != $8 || $10 < t / 3 - 0.01 * t || $10 > t / 3 + 0.01 * t) bad++
		rows++
	}
	END { exit !(rows == 4 && bad == 0) }' "$d/phases-4096.dat"
tap_ok $? "--plot-data: the phase bars stack copy, exit round trip and after exit to the median total, and the host's phases"
# beyond 2000 samples a CDF is thinned to every step-th, keeping the
# first and the last: a run whose one cell has 6000 (step 3), drawn to
# its banded p99.9 (the 5994th)
big=$tmp/big-run
cp -r "$run" "$big" && rm -rf "$big/plots"
awk -F, 'NR == 1 { print; next }
	$2 == "destructive" && $3 == "4K" && $4 == "to-shared" {
		for (c = 0; c < 50; c++) { $8 = $8 + 1000 * c; print }
	}' OFS=, "$run/samples.csv" > "$big/samples.csv"
"$CR" --plot-data "$big" > /dev/null 2>&1
cdf=$big/plots/data/cdf-destructive-4096-to-shared.dat
awk '!/^#/ { n++; f[n] = $2; v[n] = $1 }
	END {
		if (n != 1999) exit 1
		if (f[1] < 1 / 6000 - 1e-6 || f[1] > 1 / 6000 + 1e-6) exit 1
		if (f[2] < 3 / 6000 - 1e-6 || f[2] > 3 / 6000 + 1e-6) exit 1
		if (f[n] != 0.999) exit 1
		for (k = 2; k <= n; k++) if (f[k] <= f[k - 1] || v[k] < v[k - 1]) exit 1
	}' "$cdf"
tap_ok $? "--plot-data: 6000 samples thin to 1999 CDF points, 1/n, 3/n ... 0.999 ($(grep -vc '^#' "$cdf" 2>/dev/null) rows)"
grep -qx 'accel_note=TCG (emulated) timings' "$d/meta"
tap_ok $? "--plot-data: the plots' titles say TCG"
sed 's/"accel": "tcg"/"accel": "kvm"/' "$run/summary.json" > "$tmp/kvm.json"
mkdir -p "$tmp/kvmrun" && cp "$tmp/kvm.json" "$tmp/kvmrun/summary.json"
"$CR" --plot-data "$tmp/kvmrun" > /dev/null 2>&1
grep -qx 'accel_note=hardware (KVM) timings' "$tmp/kvmrun/plots/data/meta"
tap_ok $? "--plot-data: a KVM run's plots say hardware"
if command -v gnuplot > /dev/null; then
	make -s -C "$TOP" --no-print-directory plot RUN="$run" > "$tmp/make.out" 2>&1
	rc=$?
	sed 's/^/# /' "$tmp/make.out" | grep -v '\.png$\|\.svg$'
	ok=0
	for p in distribution cdf phases scaling bpf-functions; do
		[ -s "$run/plots/$p.png" ] && [ -s "$run/plots/$p.svg" ] ||
			{ echo "# no $p.png or .svg"; ok=1; }
	done
	[ $rc -eq 0 ] && [ $ok -eq 0 ]
	tap_ok $? "make plot RUN=...: all five plots, PNG and SVG ($rc)"
	gnuplot -c "$HERE/dist.gp" "$run" > "$tmp/gp.out" 2>&1
	tap_ok $? "gnuplot -c analysis/dist.gp RUN: the plot"
	gnuplot "$HERE/dist.gp" > "$tmp/gp.out" 2>&1
	rc=$?
	[ $rc -eq 2 ] && grep -q 'usage: gnuplot' "$tmp/gp.out"
	tap_ok $? "gnuplot without a run folder: usage, status 2 ($rc)"
	# a log axis of 1-2-5 ticks widened to the ticks around its data
	# (cdf.gp over a wide span): the tick at or below, at or above
	got=$(gnuplot -e "load '$HERE/ticks.gp'; print sprintf('%g %g %g %g %g %g %g %g', below125(230), above125(230), below125(190), above125(30250), below125(5000), above125(5000), above125(0.3), below125(0.03))" 2>&1)
	[ "$got" = "200 500 100 50000 5000 5000 0.5 0.02" ]
	tap_ok $? "ticks.gp: the 1-2-5 ticks around 230, 190, 30250, 5000, 0.3, 0.03 ($got)"
else
	tap_skip "make plot, gnuplot -c, gnuplot without a folder, ticks.gp (no gnuplot)"
fi

# --- the third column: gmem boots (the 6.12 kernel), merged on their own,
# then the 6.1 merge's ratios against them (round K with round K)
gsamples() {	# gsamples ROUND: gmem is 1.4 x destructive in every round
	samples "$1" 1.4 | awk -F, -v OFS=, 'NR == 1 { print; next }
		$2 == "destructive" { $2 = "gmem"; print }'
}
gboots=$tmp/gboots
for r in 0 1 2; do
	b=$gboots/boot-$r
	mkdir -p "$b/plain" "$b/traced" "$b/counts"
	gsamples $r > "$b/plain/samples.csv"
	work 0 | sed 's/"destructive"/"gmem"/' > "$b/counts/summary.json"
	summary $r | sed 's/6\.1\.192-convbench-00017-gabcdef12/6.12.57-convbench-gmem/; s/"destructive"/"gmem"/g' > "$b/plain/summary.json"
	gsamples $r > "$b/traced/samples.csv"
	{
		echo "probe,mode,size,phase,low_ns,high_ns,count"
		for s in 4K 2M; do
			echo "kvm_gmem_fallocate,gmem,$s,to-shared,8192,9215,60"
		done
	} > "$b/traced/trace.csv"
	{
		echo "probe,attach,mode,size,phase,calls,inclusive_ns,exclusive_ns,conversions"
		for s in 4K 2M; do
			echo "kvm_gmem_fallocate,fentry,gmem,$s,to-shared,60,600000,540000,60"
		done
	} > "$b/traced/trace-totals.csv"
	cat > "$b/traced/summary.json" <<JSON
{ "trace": { "set": "default", "timing": "exclusive",
    "probes": [ { "probe": "kvm_gmem_fallocate", "attach": "fentry", "not_traced_why": null } ] } }
JSON
	printf 'valid=1\ntsc_khz=2600000\ntsc_khz_measured=2599990\ndeviation_pct=-0.0004\nclocksource=tsc\n' > "$b/clock.env"
done
run3=$tmp/2026-12-03-6.1.192-abc1234-3
"$CB" --merge="$gboots" --out="$tmp/gmem" > "$tmp/gmerge.out" 2> "$tmp/gmerge.err"
rc=$?
sed 's/^/# gmem merge: /' "$tmp/gmerge.err"
[ $rc -eq 0 ] && grep -q '"rounds_valid": 3' "$tmp/gmem/summary.json" &&
	grep -q '"mode": "gmem"' "$tmp/gmem/summary.json" &&
	grep -q '"p50_ci95_lo"' "$tmp/gmem/summary.json"
tap_ok $? "the gmem boots merge into a run of their own: rounds, cells, intervals ($rc)"
# rounds of the two kernels are paired by number, not position: gmem's
# boot 0 left out, gmem 1.4 x (1 + 0.1 R) x destructive in round R; the
# 6.1 run's valid rounds are 0 and 1, so only round 1 pairs (1.540)
g2=$tmp/gboots2
cp -r "$gboots" "$g2"
for r in 0 1 2; do
	samples $r "$(awk -v r=$r 'BEGIN { print 1.4 * (1 + 0.1 * r) }')" |
		awk -F, -v OFS=, 'NR == 1 { print; next } $2 == "destructive" { $2 = "gmem"; print }' \
		> "$g2/boot-$r/plain/samples.csv"
done
printf 'valid=0\nwhy=the guest TSC ran 0.9%% fast\ntsc_khz=2600000\n' > "$g2/boot-0/clock.env"
"$CB" --merge="$g2" --out="$tmp/gmem2" > /dev/null 2>&1 &&
	"$CB" --merge="$boots" --gmem-run="$tmp/gmem2" --out="$tmp/pair" > "$tmp/pair.out" 2>&1
rc=$?
awk '/^gmem\/destructive over rounds/ { on = 1; next } /over rounds/ { on = 0 }
	on && / p50 [0-9]/ { n++; if ($0 !~ / p50 1\.540 \(CI n\/a: 1 round\)  rounds 1\.540$/) bad++ }
	END { exit !(n == 4 && !bad) }' "$tmp/pair.out"
tap_ok $? "gm/de pairs round K with round K: gmem's rounds 1-2 with 6.1's 0-1 give round 1 only, 1.540 ($rc)"
# as make bench does: the 6.1 merge, then gmem's run as its gmem/
"$CB" --merge="$boots" --gmem-run="$tmp/gmem" --out="$run3" > "$tmp/merge3.out" 2> "$tmp/merge3.err"
rc=$?
cp -r "$tmp/gmem" "$run3/gmem"
sed 's/^/# merge: /' "$tmp/merge3.err"
[ $rc -eq 0 ] && grep -q '"ratios_against_gmem"' "$run3/summary.json" &&
	grep -q '"beyond_gmem"' "$run3/summary.json" &&
	grep -q '^gmem/destructive over rounds' "$tmp/merge3.out" &&
	grep -q '^inplace/gmem over rounds' "$tmp/merge3.out"
tap_ok $? "--merge --gmem-run: the ratios against gmem in summary.json and on stdout ($rc)"
"$CR" "$run3" > /dev/null 2> "$tmp/stderr3"
rc=$?
rep3=$run3/report.txt
sed 's/^/# stderr: /' "$tmp/stderr3"
tap_ok $rc "convreport exits 0 on the three-way run ($rc)"
cells=$(grep -cE '^  gmem +180 +[0-9.]+ \[90\] +[0-9.]+ \[18\] +[0-9.]+ \[0\]$' "$rep3")
[ "$cells" -eq 4 ] && [ "$(grep -cE '^  (destructive|inplace) +120 ' "$rep3")" -eq 8 ]
tap_ok $? "three columns: gmem's 4 cells (n 180, 3 boots) under the 8 of 6.1 ($cells)"
grep -A 4 '^2M to-shared$' "$rep3" | grep -qE '^  gmem +2 +1 +0/1 +1 +512/512/512 +4096 +1 +0$'
tap_ok $? "the work table has gmem's rows, from gmem/summary.json"
gm=$(grep -cE '^  gm/de p50   1\.400  95% CI 1\.400\.\.1\.400  joint 1\.400\.\.1\.400$' "$rep3")
in=$(grep -cE '^  in/gm p50   0\.500  95% CI 0\.[0-9]+\.\.[0-9.]+  joint 0\.[0-9]+\.\.[0-9.]+$' "$rep3")
[ "$gm" -eq 4 ] && [ "$in" -eq 4 ] && [ "$(grep -cE '^  in/de p50   0\.700  ' "$rep3")" -eq 4 ]
tap_ok $? "ratios against destructive and against gmem, each with its CI ($gm, $in of 4)"
grep -E '^  in/gm p50   0\.500  95% CI ' "$rep3" | awk '{ split($6, a, /\.\./); if (!(a[1] < 0.5 && a[2] > 0.5)) bad = 1 } END { exit bad }' &&
	[ "$(grep -c '^  gm/de p99   not shown: 0 and 2 samples beyond, < 50$' "$rep3")" -eq 4 ]
tap_ok $? "in/gm's CIs hold 0.5; gmem's tail ratios withheld as the others"
# gmem's fixed costs come through gmem/summary.json's rounds
bad=$(less_fixed_bad "$rep3" gm/de 1.400 gmem 1.4)
tap_ok $bad "gm/de less the fixed costs: gmem's rounds' calibration through its merged summary ($bad differ)"
grep -q '^gmem: kernel 6.12.57-convbench-gmem, other boots (gmem/)' "$rep3" &&
	grep -q '^note: gmem is guest_memfd as upstream merged' "$rep3" &&
	grep -q 'between boots too' "$rep3"
tap_ok $? "the setup names gmem's kernel and says what differs, and that its ratios compare boots"
# the headline make bench ends with: every ratio and CI the report's
"$CR" --headline "$run3" > "$tmp/head3"
rc=$?
bad=$(awk '
	FNR == NR && /^[0-9]+[KMG]? +to-(shared|private) / { sz = $1; dr = $2 }
	FNR == NR && /^  (in\/de|gm\/de|in\/gm) p50 / {
		want[$1, sz, dr] = $3 " (" $6 ")"; nw++; next }
	FNR == NR { next }
	/^(in\/de|gm\/de|in\/gm) / { r = $1; $1 = "" ; $0 = $0 }
	/^ +[0-9]+[KMG]? +[0-9]/ {
		s = $1; sh = $2 " " $3; pr = $4 " " $5; nh++
		if (want[r, s, "to-shared"] != sh) { print "# " r " " s " to-shared: " sh; b++ }
		if (want[r, s, "to-private"] != pr) { print "# " r " " s " to-private: " pr; b++ }
	}
	END { print (b + 0) + (nh == 6 && nw == 12 ? 0 : 100) }' "$rep3" "$tmp/head3" | tail -n 1)
[ $rc = 0 ] && [ "$bad" = 0 ] && [ "$(head -n 1 "$tmp/head3")" = "$run3" ] &&
	[ "$(tail -n 1 "$tmp/head3")" = "report: $run3/report.txt" ] &&
	[ "$(wc -l < "$tmp/head3")" -le 14 ] &&
	awk 'length($0) > 72 { exit 1 }' "$tmp/head3"
tap_ok $? "--headline: the three ratios per size and direction as the report has them, the folder, report.txt ($bad differ)"
grep -q '^Kernel functions: v5 (6.1) and their 6.12 counterparts$' "$rep3" &&
	grep -A 6 '^shmem_fallocate (v5)$' "$rep3" | grep -qE '^  4K +1.67 x 9.000 +1.67 x 9.000 +1 x 9.000$' &&
	grep -A 4 '^kvm_faultin_pfn_private (v5)$' "$rep3" | grep -qE '^  4K +not traced +not traced +not traced$'
tap_ok $? "the v5 functions next to their 6.12 counterparts, per conversion"
# the plots' tables: gmem's lines and the ratios against it
"$CR" --plot-data "$run3"
d3=$run3/plots/data
grep -q '^modes=destructive inplace gmem $' "$d3/meta" &&
	[ "$(grep -c '^gmem ' "$d3/stats-gmem-to-shared.dat")" -eq 2 ] &&
	[ "$(grep -c '^gmem ' "$d3/stats.dat")" -eq 4 ] &&
	[ -s "$d3/cdf-gmem-2097152-to-private.dat" ] &&
	[ -s "$d3/hist-gmem-4096-to-shared.dat" ] &&
	awk '!/^#/ { n++; if (!($10 > 1.3 && $10 < 1.5 && $11 <= $10 && $10 <= $12 &&
		$13 > 0.45 && $13 < 0.55 && $14 < $13 && $13 < $15)) bad++ }
		END { exit !(n == 4 && !bad) }' "$d3/ratio.dat"
tap_ok $? "--plot-data of a three-way run: gmem's rows, gm/de (1.4) and in/gm (0.5) with their CIs"
if command -v gnuplot > /dev/null; then
	gnuplot -c "$HERE/scaling.gp" "$run3" > "$tmp/gp3.out" 2>&1 &&
		[ -s "$run3/plots/scaling.png" ] && ! grep -qi 'warning\|error' "$tmp/gp3.out"
	tap_ok $? "the scaling plot of a three-way run draws without a gnuplot complaint"
fi
long=$(awk 'length($0) > 72 { n++ } END { print n + 0 }' "$rep3")
tap_ok "$long" "the three-way report: every line at most 72 columns ($long longer)"
"$CB" --gmem-run="$run3/gmem" --out="$tmp/m4" > /dev/null 2> "$tmp/err"
rc=$?
"$CB" --merge="$boots" --gmem-run="$tmp/empty-gmem" --out="$tmp/m5" > /dev/null 2> "$tmp/err2"
rc2=$?
[ $rc -eq 2 ] && grep -q -- '--gmem-run only goes with --merge' "$tmp/err" &&
	[ $rc2 -eq 2 ] && grep -q -- '--gmem-run=' "$tmp/err2" && [ ! -e "$tmp/m5/summary.json" ]
tap_ok $? "--gmem-run without --merge, or on a folder without a merged gmem run: exit 2 ($rc, $rc2)"

# --- earlier runs: --history=ROOT lists them beside each ratio, for
# repeatability; no interval takes them in
# three earlier runs of the same build in which inplace was 0.9, 1.1 and
# 0.95 times what it is here (0.63, 0.77, 0.665), one on another CPU,
# one of other arguments (--iterations=600), one whose summary.json is
# cut short, and a folder that is not a run
hroot=$tmp/results
mkdir -p "$hroot"
earlier() {	# earlier NAME RUNFACTOR [CPU [ITERATIONS]]
	eb=$tmp/eboots-$1
	for r in 0 1; do
		mkdir -p "$eb/boot-$r/plain"
		samples $r 1 "$2" > "$eb/boot-$r/plain/samples.csv"
		CPU=$3 ITER=$4 summary $r > "$eb/boot-$r/plain/summary.json"
		printf 'valid=1\ntsc_khz=2600000\ntsc_khz_measured=2599990\ndeviation_pct=-0.0004\nclocksource=tsc\n' > "$eb/boot-$r/clock.env"
	done
	"$CB" --merge="$eb" --out="$hroot/$1" > /dev/null 2>&1
}
earlier 2026-12-01-100000-a 0.9
earlier 2026-12-01-110000-b 1.1
earlier 2026-12-01-120000-c 0.5 "AMD EPYC 7B13"
earlier 2026-12-01-130000-d 1
earlier 2026-12-01-140000-e 0.95
earlier 2026-12-01-150000-f 0.5 "" 600
head -c 200 "$hroot/2026-12-01-130000-d/summary.json" > "$tmp/cut" &&
	mv "$tmp/cut" "$hroot/2026-12-01-130000-d/summary.json"
mkdir -p "$hroot/notes"
hrun=$hroot/2026-12-03-140000-x
"$CB" --merge="$boots" --history="$hroot" --out="$hrun" > "$tmp/hmerge.out" 2> "$tmp/hmerge.err"
rc=$?
sed 's/^/# history merge: /' "$tmp/hmerge.err"
[ $rc -eq 0 ] && grep -q -- '--history: 2026-12-01-130000-d left out: ' "$tmp/hmerge.err"
tap_ok $? "--history: a merge over earlier runs exits 0, the cut-short one said ($rc)"
tr -d ' \n' < "$hrun/summary.json" > "$tmp/h.json"
grep -q '"runs":\[{"run":"2026-12-01-100000-a","gmem_same":false},{"run":"2026-12-01-110000-b","gmem_same":false},{"run":"2026-12-01-140000-e","gmem_same":false}\],"other_build_or_machine":1,"other_arguments":1,"unreadable":1' "$tmp/h.json"
tap_ok $? "summary.json's history: the three of this build, oldest first; one of another CPU, one of other arguments, one unreadable"
"$CR" "$hrun" > /dev/null 2>&1
hrep=$hrun/report.txt
tr '\n' ' ' < "$hrep" | sed 's/   */ /g' > "$tmp/hrep1"
grep -q "95% CI of a ratio: this run's ratio on this host, from its own rounds" "$tmp/hrep1" &&
	grep -q "'joint': all 4 estimated p50 ratios at once. No earlier run enters a CI; earlier runs of this build are listed as 'earlier', for repeatability" "$tmp/hrep1" &&
	[ "$(grep -c '^    earlier  0.630 0.770 0.665$' "$hrep")" -eq 4 ]
tap_ok $? "the report says no earlier run enters a CI and lists each earlier run's ratio (0.630 0.770 0.665)"
# the same cell without and with the earlier runs
w0=$(grep -m1 '^  in/de p50   0.700  95% CI' "$rep" | awk '{ split($6, a, /\.\./); print a[1], a[2] }')
w1=$(grep -m1 '^  in/de p50   0.700  95% CI' "$hrep" | awk '{ split($6, a, /\.\./); print a[1], a[2] }')
echo "# 4K to-shared p50 0.700: alone $w0, with the earlier runs $w1"
[ -n "$w0" ] && [ "$w0" = "$w1" ]
tap_ok $? "the interval is this run's alone: the same with the earlier runs listed ($w0 -> $w1)"
grep -A 40 '"size": "4K"' "$hrun/summary.json" | tr -d ' \n' | grep -qE '"ci95_df":1,"ci95_units":"rounds","ci95_covariates":\[\],"unit_sd_log":[0-9.e-]+,"joint_ci95_lo":0\.[0-9]+,"joint_ci95_hi":[0-9.]+,"joint_family":4,"derived":false' &&
	! grep -qE 'between_runs_sd_log|rounds_ci95|each_ci95|machine_ci95' "$hrun/summary.json" &&
	grep -q 'No earlier run enters any interval' "$hrun/summary.json"
tap_ok $? "summary.json: the CI's units, df and covariates, the joint CI over 4, no between-run term anywhere"
# more earlier runs than HISTORY_MAX (32): the newest 32, oldest first
many=$tmp/many
mkdir -p "$many"
for i in $(seq 10 43); do
	mkdir -p "$many/2026-11-01-1000$i"
	cp "$hroot/2026-12-01-100000-a/summary.json" "$many/2026-11-01-1000$i/"
done
"$CB" --merge="$boots" --history="$many" --out="$tmp/hm" > /dev/null 2>&1
tr -d ' \n' < "$tmp/hm/summary.json" > "$tmp/hm.json"
grep -q '"runs":\[{"run":"2026-11-01-100012",' "$tmp/hm.json" &&
	grep -q '{"run":"2026-11-01-100043","gmem_same":false}\],"other_build_or_machine":0,"other_arguments":0,"unreadable":0,"older_not_taken":2' "$tmp/hm.json"
tap_ok $? "34 earlier runs: the newest 32 taken, oldest first, 2 older counted"
"$CB" --merge="$boots" --history="$tmp/nowhere" --out="$tmp/h2" > /dev/null 2> "$tmp/herr"
rc=$?
"$CB" --history="$hroot" --out="$tmp/h3" > /dev/null 2> "$tmp/herr2"
rc2=$?
[ $rc -eq 2 ] && grep -q -- '--history=.*nowhere: No such file' "$tmp/herr" && [ ! -e "$tmp/h2/summary.json" ] &&
	[ $rc2 -eq 2 ] && grep -q -- '--history only goes with --merge' "$tmp/herr2"
tap_ok $? "--history on a missing folder, or without --merge: exit 2, said ($rc, $rc2)"
# the ratios against gmem take in an earlier run only where its gmem/
# is of the same 6.12 build
groot=$tmp/gresults
mkdir -p "$groot"
for e in a b; do
	"$CB" --merge="$tmp/eboots-2026-12-01-100000-a" --gmem-run="$tmp/gmem" \
		--out="$groot/2026-12-02-$e" > /dev/null 2>&1
	mkdir -p "$groot/2026-12-02-$e/gmem"
done
cp "$tmp/gmem/summary.json" "$groot/2026-12-02-a/gmem/"
sed 's/6\.12\.57-convbench-gmem/6.12.58-other/' "$tmp/gmem/summary.json" > "$groot/2026-12-02-b/gmem/summary.json"
"$CB" --merge="$boots" --gmem-run="$tmp/gmem" --history="$groot" --out="$tmp/g3" > /dev/null 2>&1
rc=$?
tr -d ' \n' < "$tmp/g3/summary.json" > "$tmp/g3.json"
# in/gm of run a is 0.45 (0.9 x 0.5): in/gm takes in a, not b; in/de both
[ $rc -eq 0 ] && grep -q '"runs":\[{"run":"2026-12-02-a","gmem_same":true},{"run":"2026-12-02-b","gmem_same":false}\]' "$tmp/g3.json" &&
	grep -o '"inplace_over_gmem":.*' "$tmp/g3.json" | grep -qE '^"inplace_over_gmem":\[\{"size":"4K","direction":"to-shared","n_inplace":120,"n_gmem":180,"p50":\{[^}]*"earlier_runs":\[\{"run":"2026-12-02-a","ratio":0\.4[45][0-9]*\}\]' &&
	grep -o '"ratios_inplace_over_destructive":.*' "$tmp/g3.json" | grep -qE '"earlier_runs":\[\{"run":"2026-12-02-a","ratio":0\.6[23][0-9]*\},\{"run":"2026-12-02-b","ratio":0\.6[23][0-9]*\}\]'
tap_ok $? "against gmem: an earlier run counts only with gmem/ of the same 6.12 build ($rc)"
# the family: 4 in/de and 4 gm/de estimated; in/gm their quotient,
# derived and not counted
"$CR" "$tmp/g3" > /dev/null 2>&1
tr '\n' ' ' < "$tmp/g3/report.txt" | sed 's/   */ /g' > "$tmp/g3rep"
grep -o '"gmem_over_destructive":.*' "$tmp/g3.json" | grep -qE '^"gmem_over_destructive":\[\{[^}]*"joint_family":8,"derived":false' &&
	grep -o '"inplace_over_gmem":.*' "$tmp/g3.json" | grep -qE '^"inplace_over_gmem":\[\{[^}]*"joint_family":8,"derived":true' &&
	grep -q "'joint': all 8 estimated p50 ratios at once" "$tmp/g3rep"
tap_ok $? "joint CIs over the 8 estimated ratios; in/gm derived, not counted"

# --- repeatability, apart: convreport --repeat=ROOT. meta.json (make
# bench writes it) gives each run's identity on the host: a, b and e
# share this run's, c's host CPU differs, f has none, d is unreadable
meta() {	# DIR HOST_CPU
	cat > "$1/meta.json" <<EOF
{ "vm": { "accel_opt": "tcg,thread=multi", "cpu": "EPYC,+svm,+npt",
  "qemu_version": "QEMU emulator version 7.2.22", "host_kernel": "6.1.0-test",
  "cpus": "2", "mem_mb": "4096" },
  "rounds": 2, "iterations_per_round": 60, "convbench_git": "abc1234",
  "kernel_cache_key": "k1", "host_cpu": "$2", "host_cpus": 2, "host_virt": "no" }
EOF
}
for e in 2026-12-01-100000-a 2026-12-01-110000-b 2026-12-01-140000-e; do
	meta "$hroot/$e" "Test CPU"
done
meta "$hroot/2026-12-01-120000-c" "Other CPU"
meta "$hrun" "Test CPU"
"$CR" -q --repeat="$hroot" "$hrun" > /dev/null 2> "$tmp/rep.err"
rc=$?
sed -n '/^Repeatability/,$p' "$hrun/report.txt" > "$tmp/repeat.txt"
sed 's/^/# /' "$tmp/repeat.txt" | head -n 16
[ $rc -eq 0 ] && grep -q '^  e1: 2026-12-01-140000-e$' "$tmp/repeat.txt" &&
	grep -q '^  e3: 2026-12-01-100000-a$' "$tmp/repeat.txt" &&
	[ "$(grep -cE '^  in/de 4K to-shared +0\.700  0\.665  0\.770  0\.630  22\.2% no +[0-9]+/12$' "$tmp/repeat.txt")" -eq 1 ]
tap_ok $? "--repeat: this run and its 3 earlier of the same identity, newest first, spread 22.2%, not within +-5% ($rc)"
grep -q '^  2026-12-01-120000-c: host CPU Other CPU, not Test CPU$' "$tmp/repeat.txt" &&
	grep -q '^  2026-12-01-150000-f: host CPU (no meta.json), not Test CPU$' "$tmp/repeat.txt" &&
	grep -q '^1 run with an unreadable summary.json$' "$tmp/repeat.txt" &&
	! grep -q '2026-12-03-140000-x' "$tmp/repeat.txt"
tap_ok $? "--repeat: runs of another identity named with what differs, the unreadable one counted, itself never taken"
# a margin of 25% holds all four; the ratio's CI is the run's own
ci0=$(grep -m1 '^  in/de p50   0.700  95% CI' "$hrun/report.txt" | awk '{ print $6 }')
"$CR" -q --repeat="$hroot" --margin=25 "$hrun" > /dev/null 2>&1 &&
	grep -qE '^  in/de 4K to-shared +0\.700  0\.665  0\.770  0\.630  22\.2% yes' "$hrun/report.txt" &&
	[ -n "$ci0" ] && [ "$(grep -m1 '^  in/de p50   0.700  95% CI' "$rep" | awk '{ print $6 }')" = "$ci0" ]
tap_ok $? "--repeat --margin=25: every run within it; the ratio's CI the same as without earlier runs ($ci0)"
"$CR" -q --repeat="$tmp/nowhere" "$hrun" > /dev/null 2> "$tmp/rep2.err"
rc=$?
"$CR" -q --repeat="$hroot" --margin=abc "$hrun" > /dev/null 2> "$tmp/rep3.err"
rc2=$?
[ $rc -eq 2 ] && grep -q -- '--repeat=.*nowhere: No such file' "$tmp/rep2.err" &&
	[ $rc2 -eq 2 ] && grep -q -- "--margin expects a percentage above 0 and below 100, got 'abc'" "$tmp/rep3.err"
tap_ok $? "--repeat on a missing folder, --margin=abc: exit 2, said ($rc, $rc2)"

# --- the other ways in, and the ways out
make -s -C "$TOP" --no-print-directory report RUN="$run" > "$tmp/make.out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q '^Latency per conversion' "$tmp/make.out"
tap_ok $? "make report RUN=...: report.txt written and printed ($rc)"
make -s -C "$TOP" --no-print-directory report > /dev/null 2> "$tmp/err"
grep -q 'no run folder' "$tmp/err"
tap_ok $? "make report without RUN says how to call it"
"$CR" -h > "$tmp/help"
rc=$?
[ $rc -eq 0 ] && grep -q -- '--plot-data' "$tmp/help"
tap_ok $? "-h prints the usage, exit 0 ($rc)"
"$CR" --bogus "$run" > /dev/null 2>&1
rc=$?
"$CR" "$tmp/nope" > /dev/null 2> "$tmp/err"
rc2=$?
[ $rc -eq 2 ] && [ $rc2 -eq 2 ] && grep -q 'not a folder' "$tmp/err"
tap_ok $? "a bad option or a missing folder: exit 2 ($rc, $rc2)"
mkdir "$tmp/empty"
"$CR" "$tmp/empty" > /dev/null 2> "$tmp/err"
rc=$?
[ $rc -eq 1 ] && grep -q 'summary.json' "$tmp/err"
tap_ok $? "a folder without summary.json: exit 1, says so ($rc)"
"$CB" --merge="$tmp/empty" --out="$tmp/m2" > /dev/null 2> "$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -q 'no boot-K folders' "$tmp/err" && [ ! -e "$tmp/m2/summary.json" ]
tap_ok $? "--merge of a folder without boots: exit 2, nothing written ($rc)"

# --- the churn section: make bench's churn boots, as churn.json has them
ch=$tmp/churnrun
cp -r "$run" "$ch" && mkdir -p "$ch/churn" "$ch/gmem/churn"
over() {	# over MEAN LO HI: an over-rounds object
	printf '{ "mean": %s, "ci95_lo": %s, "ci95_hi": %s, "rounds": 3 }' "$1" "$2" "$3"
}
p50s() {	# p50s START STEADY (geometric means, ns; p99s 3 and 4 times)
	printf '[ { "size": "4K", "start_ns": { "geomean": %s, "ci95_lo": null, "ci95_hi": null }, "steady_ns": { "geomean": %s, "ci95_lo": %s, "ci95_hi": %s }, "start_p99_ns": { "geomean": %s, "ci95_lo": null, "ci95_hi": null }, "steady_p99_ns": { "geomean": %s, "ci95_lo": %s, "ci95_hi": %s } } ]' "$1" "$2" "$(($2 - 1000))" "$(($2 + 1000))" "$((3 * $1))" "$((4 * $2))" "$((4 * $2 - 1000))" "$((4 * $2 + 1000))"
}
churn_json() {	# churn_json MODE COV_STEADY SPLITS [MERGES]
	cat <<JSON
{ "churn": { "range_bytes": 67108864, "ops": 2000, "interval": 250, "seed": 5,
  "mix": [ { "size": "4K", "weight": 35 }, { "size": "2M", "weight": 10 } ],
  "modes": [ { "mode": "$1", "coverage_2m_start": $(over 1 null null),
    "coverage_2m_steady": $(over "$2" 0.2 0.3), "thp_splits_per_1000": $(over "$3" 7 9),
    "thp_allocs_per_1000": $(over 0 0 0), "tlb_flushes_per_1000": $(over 360 350 370),
    "thp_merges_per_1000": $(over "${4:-0}" 0 0),
    "p50": $(p50s 197000 163000) } ] } }
JSON
}
churn_json inplace 0.25 8 > "$ch/churn/churn.json"
churn_json gmem 0 0 > "$ch/gmem/churn/churn.json"
mkdir -p "$ch/churn-merge"
churn_json inplace+merge 0.14 95 89 > "$ch/churn-merge/churn.json"
"$CR" -q "$ch" > /dev/null 2>&1
grep -qx '  4K:35,2M:10 mix; 64M per vCPU, 2000 conversions, seed 5. Start: after' "$ch/report.txt" &&
	grep -qx '  inplace       100.0% 25.0% (20.0..30.0)     8.0   0.0   0.0 360.0' "$ch/report.txt" &&
	grep -qx '  gmem          100.0% 0.0% (20.0..30.0)      0.0   0.0   0.0 360.0' "$ch/report.txt" &&
	grep -qx '  inplace+merge 100.0% 14.0% (20.0..30.0)    95.0  89.0   0.0 360.0' "$ch/report.txt" &&
	grep -qx '  inplace       4K   197.0                     163.0 (162.0..164.0)' "$ch/report.txt" &&
	grep -qx '  inplace+merge 4K   197.0                     163.0 (162.0..164.0)' "$ch/report.txt" &&
	grep -qx '  inplace+merge 4K   591.0                     652.0 (651.0..653.0)' "$ch/report.txt" &&
	[ "$(awk 'length > 72' "$ch/report.txt" | wc -l)" = 0 ]
tap_ok $? "the churn section: both kernels' churn.json and the merge back's, coverage, THP events, p50s and p99s as they hold them, in 72 columns"
sed -n '/^Huge pages under/,/^  gmem  *4K/p' "$ch/report.txt" | sed 's/^/# /'
# the split events: p50 over rounds and the median work of each kind;
# a mode without a whole 2M before its events is named
mkdir -p "$ch/split" "$ch/gmem/split"
event() {	# event MODE KIND P50 FAULTS D2M D4K SPLITS FLUSH WHOLE_ONLY [MERGES]
	printf '{ "mode": "%s", "kind": "%s", "events": 100, "counted_only_after_whole_2m": %s, "p50_ns": { "geomean": %s, "ci95_lo": %s, "ci95_hi": %s, "rounds": 3 }, "work_median": { "npt_faults": %s, "pages_2m_delta": %s, "pages_4k_delta": %s, "thp_splits": %s, "tlb_flush_requests": %s, "thp_merges": %s } }' \
		"$1" "$2" "$9" "$3" "$(($3 - 5000))" "$(($3 + 5000))" "$4" "$5" "$6" "$7" "$8" "${10:-0}"
}
printf '{ "split": { "range_bytes": 2097152, "piece": "4K", "events": [ %s, %s ] } }\n' \
	"$(event inplace split 534700 1 -1 1 1 1 true)" \
	"$(event inplace rest 17597000 511 0 511 0 0 true)" > "$ch/split/churn.json"
printf '{ "split": { "range_bytes": 2097152, "piece": "4K", "events": [ %s ] } }\n' \
	"$(event gmem split 300000 1 0 1 0 1 false)" > "$ch/gmem/split/churn.json"
mkdir -p "$ch/split-merge"
printf '{ "split": { "range_bytes": 2097152, "piece": "4K", "events": [ %s ] } }\n' \
	"$(event inplace+merge uniform 1854800 1 1 -512 0 3 true 1)" > "$ch/split-merge/churn.json"
"$CR" -q "$ch" > /dev/null 2>&1
grep -qx '  inplace       split   534.7 (529.7..539.7)     1   -1   +1   1/0     1' "$ch/report.txt" &&
	grep -qx '                rest    17597 (17592..17602)   511   +0 +511   0/0     0' "$ch/report.txt" &&
	grep -qx '  gmem          split   300.0 (295.0..305.0)     1   +0   +1   0/0     1' "$ch/report.txt" &&
	grep -qx '  inplace+merge uniform 1855 (1850..1860)        1   +1 -512   0/1     3' "$ch/report.txt" &&
	grep -q '^  gmem: no whole 2M mapping before its events' "$ch/report.txt" &&
	[ "$(awk 'length > 72' "$ch/report.txt" | wc -l)" = 0 ]
tap_ok $? "the split section: each event's p50 and interval, its median work (splits and merges), gmem named as never whole, the merge back's events"
sed -n '/^Split and merge/,/^  gmem:/p' "$ch/report.txt" | sed 's/^/# /'
# the accept sweeps: per MiB, with the interval of the latency
mkdir -p "$ch/accept"
sweep() {	# sweep MODE CHUNK SWEEP MS LO HI EXITS FAULTS
	printf '{ "mode": "%s", "chunk": "%s", "sweep": "%s", "ms_per_mib": { "geomean": %s, "ci95_lo": %s, "ci95_hi": %s }, "exits_per_mib": { "mean": %s }, "npt_faults_per_mib": { "mean": %s } }' "$@"
}
printf '{ "accept": { "range_bytes": 67108864, "sweeps": [ %s, %s ] } }\n' \
	"$(sweep inplace 4K accept 36.28 35.1 37.5 256 256)" \
	"$(sweep inplace 2M pool 0.43 0.41 0.45 0.5 0.5)" > "$ch/accept/churn.json"
"$CR" -q "$ch" > /dev/null 2>&1
grep -qx '  inplace     4K    accept 36.28 (35.10..37.50)        256.0    256.0' "$ch/report.txt" &&
	grep -qx '              2M    pool   0.43 (0.41..0.45)             0.5      0.5' "$ch/report.txt" &&
	grep -q '^  64M made shared (untimed), then' "$ch/report.txt" &&
	[ "$(awk 'length > 72' "$ch/report.txt" | wc -l)" = 0 ]
tap_ok $? "the accept section: ms per MiB with its interval, exits and faults per MiB, per mode, chunk and sweep"
# the io requests: p50s, share/bounce with its interval, the crossovers,
# the work per request
mkdir -p "$ch/io"
ovr() {	# ovr GEOMEAN LO HI
	printf '{ "geomean": %s, "ci95_lo": %s, "ci95_hi": %s, "rounds": 3 }' "$@"
}
strat() {	# strat P50_NS EXITS FAULTS COPIED
	printf '{ "p50_ns": %s, "exits_per_request": { "mean": %s }, "npt_faults_per_request": { "mean": %s }, "copied_bytes_per_request": { "mean": %s } }' \
		"$(ovr "$1" null null)" "$2" "$3" "$4"
}
iosize() {	# iosize SIZE B_P50 S_P50 RATIO LO HI NORM COPIED_B COPIED_S
	printf '{ "size_bytes": %s, "bounce": %s, "share": %s, "share_over_bounce_p50": %s, "share_over_bounce_less_exits": %s }' \
		"$1" "$(strat "$2" 1 0.1 "$8")" "$(strat "$3" 3 2 "$9")" "$(ovr "$4" "$5" "$6")" "$(ovr "$7" null null)"
}
printf '{ "io": { "modes": [ { "mode": "inplace", "sizes": [ %s, %s, %s ], "crossover": { "size_bytes": 1048576, "surely_from_bytes": null, "possibly_from_bytes": 262144 }, "crossover_less_exits": { "size_bytes": 16384 } } ] } }\n' \
	"$(iosize 4096 111800 445800 3.99 3.5 4.5 4.56 8192 0)" \
	"$(iosize 65536 800000 400000 0.5 null null 0.5 131072 0)" \
	"$(iosize 1048576 8774100 7878300 0.898 0.8 1.01 0.7 2097152 0)" > "$ch/io/churn.json"
# the --counts run: pages zeroed per request at 4K only (1M: "-")
mkdir -p "$ch/io-counts"
printf '{ "io": { "modes": [ { "mode": "inplace", "sizes": [ { "size_bytes": 4096, "bounce": { "pages_zeroed_per_request": { "mean": 0 } }, "share": { "pages_zeroed_per_request": { "mean": 2 } } } ] } ] } }\n' > "$ch/io-counts/churn.json"
"$CR" -q "$ch" > /dev/null 2>&1
grep -qx '  inplace     4K       111.8     445.8 3.99 (3.50..4.50)        4.56' "$ch/report.txt" &&
	grep -qx '              1M      8774.1    7878.3 0.90 (0.80..1.01)        0.70' "$ch/report.txt" &&
	grep -qx '              crossover 1M (surely from none, possibly from 256K);' "$ch/report.txt" &&
	grep -qx '              less exits: 16K' "$ch/report.txt" &&
	grep -qx '  inplace     4K     1.0|3.0       0.1|2.0        8|0           0|2' "$ch/report.txt" &&
	grep -qx '              1M     1.0|3.0       0.1|2.0     2048|0             -' "$ch/report.txt" &&
	[ "$(awk 'length > 72' "$ch/report.txt" | wc -l)" = 0 ]
tap_ok $? "the io section: p50s, share/bounce with its interval, the crossovers, the work per request (pages zeroed from io-counts/), in 72 columns"
sed -n '/^I\/O through/,/^  Work per/p' "$ch/report.txt" | sed 's/^/# /'
if command -v gnuplot > /dev/null; then
	# io.gp from io.csv: per mode and strategy the geometric mean over
	# rounds; the crossover where share's p50 falls below bounce's
	{
		echo "mode,round,strategy,size_bytes,requests,p50_ns,p99_ns,mean_ns,requests_per_s,mb_per_s"
		echo "inplace,0,bounce,4096,8,100000,1,1,1,40"
		echo "inplace,1,bounce,4096,8,400000,1,1,1,10"
		echo "inplace,0,share,4096,8,400000,1,1,1,10"
		echo "inplace,1,share,4096,8,400000,1,1,1,10"
		echo "inplace,0,bounce,65536,8,800000,1,1,1,80"
		echo "inplace,1,bounce,65536,8,800000,1,1,1,80"
		echo "inplace,0,share,65536,8,400000,1,1,1,160"
		echo "inplace,1,share,65536,8,400000,1,1,1,160"
	} > "$ch/io/io.csv"
	gnuplot -c "$HERE/io.gp" "$ch" > "$tmp/gpio.out" 2>&1 &&
		[ -s "$ch/plots/io.png" ] && [ ! -s "$tmp/gpio.out" ] &&
		grep -qx '4096 20 200' "$ch/plots/data/io-inplace-bounce.dat" &&
		grep -qx '4096 2 3.5 4.5' "$ch/plots/data/io-inplace-ratio.dat" &&
		grep -qx '65536 0.5 NaN NaN' "$ch/plots/data/io-inplace-ratio.dat" &&
		grep -qx 'inplace 65536' "$ch/plots/data/io-crossover.dat"
	tap_ok $? "io.gp: geometric means over rounds, share/bounce with churn.json's interval where it has one (64K's is null), the crossover at 64K, no gnuplot complaint"
	sed 's/^/# /' "$tmp/gpio.out" | head -n 5
else
	tap_skip "io.gp (no gnuplot)"
fi

# the vCPU boots: 1 against 4 vCPUs round by round, IPIs and TLB flushes,
# io at 4 vCPUs, the emulator's faults
smpcell() {	# smpcell MODE SIZE BYTES DIR P50S(3, us) IPI TLB
	printf '{ "mode": "%s", "size": "%s", "size_bytes": %s, "direction": "%s", "total_ns": { "p50": %s000, "per_round": [ { "round": 0, "p50": %s000 }, { "round": 1, "p50": %s000 }, { "round": 2, "p50": %s000 } ] }, "vm_counts": { "ipis_per_conversion": %s, "tlb_flush_requests_per_conversion": %s } }' \
		"$1" "$2" "$3" "$4" "$6" "$5" "$6" "$7" "$8" "$9"
}
smp=$ch/smp
mkdir -p "$smp/v1" "$smp/v4" "$smp/io-v4"
printf '{ "cells": [ %s ] }\n' "$(smpcell inplace 4K 4096 to-shared 100 110 90 0 1)" > "$smp/v1/summary.json"
printf '{ "cells": [ %s ] }\n' "$(smpcell inplace 4K 4096 to-shared 200 231 171 3 1)" > "$smp/v4/summary.json"
printf '{ "io": { "modes": [ { "mode": "inplace", "sizes": [ { "size_bytes": 4096, "share_over_bounce_p50": { "geomean": 3.5 } }, { "size_bytes": 2097152, "share_over_bounce_p50": { "geomean": 0.8 } } ], "crossover": { "size_bytes": 2097152 } } ] } }\n' > "$smp/io-v4/churn.json"
printf 'runs=5\nemulator_faults=1\nemulator_fault_runs=v4\nvcpus=4\n' > "$smp/emulator.env"
"$CR" -q "$ch" > /dev/null 2>&1
# rounds 2.00, 2.10, 1.90: geometric mean 1.997, t interval 1.76..2.26
grep -qx '  inplace     4K   to-shared     110.0    231.0  2.00 (1.76..2.26)' "$ch/report.txt" &&
	grep -qx '  inplace     4K          0.00|3.00              1.00|1.00' "$ch/report.txt" &&
	grep -q '^  io at 4 vCPUs, inplace: share/bounce p50 3.50 at 4K, 0.80 at 2M;' "$ch/report.txt" &&
	grep -q '^  kernel ?: the emulator.s triple fault of a nested guest met 1 of 5' "$ch/report.txt" &&
	[ "$(awk 'length > 72' "$ch/report.txt" | wc -l)" = 0 ]
tap_ok $? "the vCPU section: 1 and 4 vCPUs' p50 and their ratio round by round, IPIs and TLB flushes, io at 4 vCPUs, the emulator's faults"
sed -n '/^More vCPUs/,$p' "$ch/report.txt" | sed 's/^/# /' | head -n 20

# --- the README's tables: what convreport prints from the committed runs
(cd "$TOP" && sh analysis/readme-tables.sh --check "$CR" README.md) > "$tmp/readme.out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/readme.out" | head -n 20
nt=$(sed -n 's/^README.md: \([0-9]*\) generated tables.*/\1/p' "$tmp/readme.out")
[ $rc -eq 0 ] && [ "${nt:-0}" -ge 3 ]
tap_ok $? "README.md: its ${nt:-0} tables are what convreport prints from the committed runs ($rc)"
# a figure no committed run holds: one p50 changed by hand
sed '0,/^| 4K | to-shared | [0-9]/s/^\(| 4K | to-shared | \)\([0-9]\)/\19\2/' "$TOP/README.md" > "$tmp/README.md"
(cd "$TOP" && sh analysis/readme-tables.sh --check "$CR" "$tmp/README.md") > "$tmp/readme.out" 2>&1
rc=$?
! cmp -s "$TOP/README.md" "$tmp/README.md" && [ $rc -eq 1 ] &&
	grep -q "the block of 'convreport --markdown=threeway" "$tmp/readme.out"
tap_ok $? "a README whose table quotes a figure no run holds fails the check, naming the block ($rc)"
(cd "$TOP" && sh analysis/readme-tables.sh "$CR" "$tmp/README.md") > /dev/null 2>&1 &&
	cmp -s "$TOP/README.md" "$tmp/README.md"
tap_ok $? "readme-tables.sh rewrites the block from the run"
tap_finish
