#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# convreport on a tiny synthetic run folder made here: report.txt is
# written (and printed), every line fits 72 columns, the ratio table and
# the three functions' side-by-side histograms are there with the right
# numbers (inplace is exactly 0.7 x destructive), the TCG note, the exit
# codes (2 bad usage, 1 no samples.csv), reruns replace the report.
# Then every other way in that analysis/README.md documents: make report
# and make plot, gnuplot -e and -c, convreport's -s, -n (subsampling:
# same medians, the CI from a random subset, said so) and -h,
# hyperfine.json, a run with a gmem/ subfolder (make bench's third
# column), a run without summary.json, one mode only, no samples,
# unreadable rows, plotdata.sh's CDF thinning, stamp and exit codes, and
# the reference run in results/ (its medians are convbench's own).
#
#   analysis/test_report.sh     (CONVREPORT=path, default build/analysis/convreport;
#                                SAMPLES_CHECK=path: the synthetic samples
#                                must satisfy convbench's timing invariants)
#
# When gnuplot is installed, every analysis/*.gp on the same folder (with
# and without trace.csv): a PNG and an SVG each.
#
# POSIX sh. TAP-like lines; the last line is "N passed, N failed[, N
# skipped]".

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
CR=${CONVREPORT:-$HERE/../build/analysis/convreport}
CHECK=${SAMPLES_CHECK:-}
tmp=$(mktemp -d) || exit 1
trap '[ -n "$KEEP" ] || rm -rf "$tmp"' EXIT
n=0 passed=0 failed=0 skipped=0

result() {	# result 0|1 text
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"; passed=$((passed + 1))
	else
		echo "not ok $n - $2"; failed=$((failed + 1))
	fi
}

skip() {	# skip text
	n=$((n + 1)); skipped=$((skipped + 1))
	echo "ok $n - $1 # SKIP"
}

finish() {
	if [ $skipped -gt 0 ]; then
		echo "$passed passed, $failed failed, $skipped skipped"
	else
		echo "$passed passed, $failed failed"
	fi
	[ $failed -eq 0 ]
	exit
}

if [ ! -x "$CR" ]; then
	echo "# no convreport at $CR (make $CR, or set CONVREPORT)"
	result 1 "convreport is built"
	finish
fi

# --- the run folder: 2 sizes x 2 directions x 2 modes, 50 samples each
run=$tmp/2026-12-03-6.1.192-abc1234
mkdir -p "$run"
awk 'BEGIN {
	print "mode,size,direction,trigger,preserve,vcpu,iter,total_ns," \
	      "first_ns,copy_ns,exit_rt_ns,after_exit_ns,exits,host_ns," \
	      "host_record_ns,host_mem_ns,host_release_ns"
	split("4096 2097152", sz, " "); split("to-shared to-private", dr, " ")
	for (m = 0; m < 2; m++) for (s = 1; s <= 2; s++) for (d = 1; d <= 2; d++)
	for (i = 0; i < 50; i++) {
		base = (s == 1 ? 50000 : 5000000) * (d == 1 ? 1 : 1.2)
		v = base * (1 + (i * 7 % 50) / 100)
		if (m) v *= 0.7
		# destructive --preserve copies (0.1 of the total), in place
		# does not; the parts add up to the total, as in convbench
		c = m ? 0 : v / 10
		printf "%s,%d,%s,explicit,1,0,%d,%d,%d,%d,%d,%d,1,%d,%d,%d,0\n", \
			m ? "inplace" : "destructive", sz[s], dr[d], i, v, v, \
			c, (v - c) / 2, (v - c) / 2, v / 3, v / 9, v / 9
	}
}' > "$run/samples.csv"
if [ -x "$CHECK" ]; then
	"$CHECK" "$run/samples.csv" | sed 's/^/# /'
	"$CHECK" "$run/samples.csv" > /dev/null
	result $? "the synthetic samples.csv satisfies convbench's timing invariants"
fi

cat > "$run/summary.json" <<'EOF'
{
  "provenance": {
    "convbench_version": "abc1234",
    "date": "2026-12-03T05:04:28Z",
    "kernel_release": "6.1.192-convbench-00017-gabcdef12",
    "kernel_version": "Linux version 6.1.192 \"quoted\" (gcc)",
    "series_sha": "0123456789abcdef0123",
    "config_sha": null,
    "qemu_version": "7.2.22",
    "accel": "tcg",
    "cpu_model": "Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz",
    "argv": ["convbench", "--mode=destructive,inplace"]
  },
  "cells": [],
  "ratios_inplace_over_destructive": []
}
EOF

# convtrace CSV: sub_bits 3 buckets; one context names no mode, one
# probe is reported missing, and the context names are quoted once
{
	echo "probe,attach,context,context_name,count,sum_ns,lo_ns,hi_ns,n"
	c=0
	for m in destructive inplace; do
		for s in 4K 2M; do
			c=$((c + 1))
			echo "shmem_fallocate,fentry,$c,$m $s to-shared,100,900000,8192,9215,60"
			echo "shmem_fallocate,fentry,$c,$m $s to-shared,100,900000,9216,10239,40"
			echo "memfile_notifier_invalidate,fentry,$c,\"$m $s to-shared\",50,250000,4096,4607,50"
			echo "sys_fallocate,tp,$c,$m $s to-shared,100,1000000,8192,9215,100"
		done
	done
	echo "shmem_fallocate,fentry,9,,3,30000,8192,9215,3"
	echo "kvm_userspace_exit,tp,1,destructive 4K to-shared,120,0,,,"
	echo "# missing,kvm_faultin_pfn_private,not in BTF or kallsyms"
} > "$run/trace.csv"
cp "$run/trace.csv" "$tmp/trace.csv.v5"	# tests below remove it

# --- the report
"$CR" "$run" > "$tmp/stdout" 2> "$tmp/stderr"
rc=$?
result $rc "convreport exits 0 on a complete run folder ($rc)"
sed 's/^/# stderr: /' "$tmp/stderr"
rep=$run/report.txt
[ -f "$rep" ]
result $? "report.txt is written"
cmp -s "$rep" "$tmp/stdout"
result $? "stdout is the same text as report.txt"
long=$(awk 'length($0) > 72 { n++ } END { print n + 0 }' "$rep")
result "$long" "every line is at most 72 columns ($long longer)"
LC_ALL=C grep -q '[^ -~]' "$rep"
[ $? -ne 0 ]
result $? "plain ASCII, no tabs"

setup=$(grep -c '^setup: ' "$rep")
[ "$setup" -eq 1 ]
result $? "one setup line ($setup)"
grep -q '^setup: .*6.1.192-convbench-00017-gabcdef12, .*tcg, .*Xeon Platinum 8375C$' "$rep"
result $? "setup: kernel, accelerator, CPU (a long name shortened to fit)"
grep -q '^note: emulated timings: compare ratios, not absolute us$' "$rep"
result $? "TCG run: the emulated-timings note"

grep -q '^size  direction   mode  *n  *p50 us  *p99 us$' "$rep"
result $? "the table has its header"
cells=$(grep -cE '^(4K|2M)? +(to-shared|to-private)? +(destructive|inplace) +50 ' "$rep")
[ "$cells" -eq 8 ]
result $? "8 cells (size x direction x mode), n = 50 each ($cells)"
grep -qE '^4K    to-shared   destructive +50 +[0-9.]+ +[0-9.]+$' "$rep"
result $? "median and p99 in us per cell"
ratios=$(grep -cE '^ +in/de +0\.700 +0\.700$' "$rep")
[ "$ratios" -eq 4 ]
result $? "inplace/destructive is 0.700 at p50 and p99 in all 4 ($ratios)"
cis=$(grep -E '^ +95% CI +[0-9.]+\.\.[0-9.]+ +[0-9.]+\.\.[0-9.]+$' "$rep" |
	awk '{ split($3, a, /\.\./); if (a[1] + 0 <= 0.7 && a[2] + 0 >= 0.7) k++ }
	     END { print k + 0 }')
[ "$cis" -eq 4 ]
result $? "each median ratio has a 95% CI that holds 0.7 ($cis of 4)"
grep -q 'bootstrap, 2000 resamples, seed 1' "$rep"
result $? "the bootstrap is named (2000 resamples, seed)"

for f in memfile_notifier_invalidate shmem_fallocate; do
	grep -q "^$f, 4K conversions, ns per call$" "$rep"
	result $? "$f: a histogram per size"
done
grep -qE '^ *nsecs +: destructive +inplace$' "$rep"
result $? "histograms side by side: destructive | inplace"
grep -qE '^ *8192 -> 16383 +: 100 +\|\*+\| 100 +\|\*+\|$' "$rep"
result $? "shmem_fallocate 4K: 100 calls 8-16 us in each mode"
grep -q '^  destructive: 100 calls, mean 9.000 us$' "$rep"
result $? "calls and mean per call (counted once per context)"
grep -q '^kvm_faultin_pfn_private: not traced (not in BTF or kallsyms)$' "$rep"
result $? "a missing probe says why"
grep -q 'sys_fallocate' "$rep"
[ $? -ne 0 ]
result $? "only the three functions are shown"
grep -A 3 '^shmem_fallocate, all sizes, ns per call,$' "$rep" |
	grep -q '^  all: 3 calls, mean 10.00 us$'
result $? "contexts that name no mode: shown as both modes together"

# --- reruns and variants
cp "$rep" "$tmp/first"
"$CR" -q "$run" > "$tmp/quiet"
rc=$?
[ $rc -eq 0 ] && [ ! -s "$tmp/quiet" ] && cmp -s "$rep" "$tmp/first"
result $? "a rerun replaces report.txt with the same text; -q prints nothing"
left=$(ls -A "$run" | grep -c '^\.report')
result "$left" "no temp files left in the folder ($left)"

# --- the plots, with trace.csv (then without it, below)
plots() {	# plots RUN NAMES...
	r=$1
	shift
	for g in dist cdf phases scaling bpf; do
		gnuplot -e "run='$r'" "$HERE/$g.gp" > "$tmp/gp.out" 2>&1 ||
			{ sed 's/^/# /' "$tmp/gp.out"; return 1; }
	done
	for p in "$@"; do
		[ -s "$r/plots/$p.png" ] && [ -s "$r/plots/$p.svg" ] || {
			echo "# no $r/plots/$p.png or .svg"; return 1; }
	done
}
if command -v gnuplot > /dev/null; then
	make -s -C "$TOP" --no-print-directory plot RUN="$run" \
		> "$tmp/make.out" 2>&1
	rc=$?
	sed 's/^/# /' "$tmp/make.out" | grep -v '\.png$\|\.svg$'
	ok=0
	for p in distribution cdf phases scaling bpf-functions; do
		[ -s "$run/plots/$p.png" ] && [ -s "$run/plots/$p.svg" ] ||
			{ echo "# no $p.png or .svg"; ok=1; }
	done
	[ $rc -eq 0 ] && [ $ok -eq 0 ]
	result $? "make plot RUN=...: all five plots, PNG and SVG ($rc)"
else
	skip "make plot: all five plots (no gnuplot)"
fi

rm "$run/trace.csv"
if command -v gnuplot > /dev/null; then
	rm -rf "$run/plots"
	plots "$run" distribution cdf phases scaling &&
		[ ! -e "$run/plots/bpf-functions.png" ] &&
		grep -q 'no trace.csv' "$tmp/gp.out"
	result $? "gnuplot without trace.csv: four plots, the BPF one skipped"
else
	skip "gnuplot without trace.csv (no gnuplot)"
fi
"$CR" -q "$run"
grep -q '^no trace.csv (tracing unavailable): histograms skipped$' "$rep"
result $? "without trace.csv: one line says the histograms are skipped"

grep -q 'clocks disagree' "$rep"
[ $? -ne 0 ]
result $? "consistent clocks: no clock note"
# host_ns (column 14) longer than exit_rt_ns (11) in every row
skew=$tmp/skew
mkdir "$skew"
awk -F, -v OFS=, 'NR > 1 { $14 = $11 * 2 } { print }' "$run/samples.csv" \
	> "$skew/samples.csv"
"$CR" -q "$skew"
grep -q '^note: in 400 of 400 conversions the host handler' "$skew/report.txt"
result $? "host handler longer than the guest round trip: a clock note"
if [ -x "$CHECK" ]; then
	"$CHECK" "$skew/samples.csv" > "$tmp/check.out"
	[ $? -eq 1 ] && grep -q "outside the guest's exit round trip" "$tmp/check.out"
	result $? "samples_check flags the same rows (a handler outside its round trip)"
fi

# --- the other documented ways in
make -s -C "$TOP" --no-print-directory report RUN="$run" > "$tmp/make.out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q '^Latency per conversion' "$tmp/make.out" &&
	grep -q '^Latency per conversion' "$run/report.txt"
result $? "make report RUN=...: report.txt written and printed ($rc)"
make -s -C "$TOP" --no-print-directory report > /dev/null 2> "$tmp/err"
grep -q 'no run folder' "$tmp/err"
result $? "make report without RUN says how to call it"
make -s -C "$TOP" --no-print-directory plot RUN="$tmp/nowhere" > /dev/null 2> "$tmp/err"
grep -q 'RUN=.*: not a folder' "$tmp/err"
result $? "make plot with RUN not a folder says so"
if command -v gnuplot > /dev/null; then
	rm -f "$run/plots/distribution.png"
	gnuplot -c "$HERE/dist.gp" "$run" > "$tmp/gp.out" 2>&1 &&
		[ -s "$run/plots/distribution.png" ]
	result $? "gnuplot -c analysis/dist.gp RUN: the plot"
	gnuplot "$HERE/cdf.gp" > "$tmp/gp.out" 2>&1
	rc=$?
	[ $rc -eq 2 ] && grep -q 'usage: gnuplot' "$tmp/gp.out"
	result $? "gnuplot without a run folder: usage, status 2 ($rc)"
else
	skip "gnuplot -c and usage (no gnuplot)"
fi

"$CR" -h > "$tmp/help"
rc=$?
[ $rc -eq 0 ] && grep -q -- '--max-samples=N' "$tmp/help"
result $? "-h prints the usage, exit 0 ($rc)"
"$CR" -n 1 "$run" > /dev/null 2> "$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -q 'max-samples' "$tmp/err"
result $? "-n 1 is refused naming --max-samples ($rc)"
"$CR" -s -3 "$run" > /dev/null 2> "$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -q 'seed' "$tmp/err"
result $? "-s -3 is refused naming --seed ($rc)"

# --- subsampling (-n) and the seed (-s), on a cell of 2500 per mode
big=$tmp/big
mkdir "$big"
cp "$run/summary.json" "$big/"
awk 'BEGIN {
	print "mode,size,direction,trigger,preserve,vcpu,iter,total_ns," \
	      "first_ns,copy_ns,exit_rt_ns,after_exit_ns,exits,host_ns," \
	      "host_record_ns,host_mem_ns,host_release_ns"
	for (m = 0; m < 2; m++) for (i = 0; i < 2500; i++) {
		v = 100000 * (1 + (i * 37 % 2500) / 2500)
		if (m) v *= 0.7
		printf "%s,4096,to-shared,explicit,0,0,%d,%d,%d,0,%d,%d,1,%d,%d,%d,0\n", \
			m ? "inplace" : "destructive", i, v, v, v / 2, v / 2, \
			v / 3, v / 9, v / 9
	}
}' > "$big/samples.csv"
rows() {	# the table's cell rows and ratio of a report
	grep -E '^(4K)? +(to-shared)? +(destructive|inplace|in/de) ' "$1"
}
ci_width() {	# width of the first median CI
	grep -E '^ +95% CI ' "$1" | head -n 1 |
		awk '{ split($3, a, /\.\./); print a[2] - a[1] }'
}
"$CR" -q "$big" && cp "$big/report.txt" "$tmp/full"
"$CR" -q -n 100 "$big" && cp "$big/report.txt" "$tmp/sub"
"$CR" -q -n 100 "$big" && cp "$big/report.txt" "$tmp/sub2"
"$CR" -q -n 100 -s 7 "$big" && cp "$big/report.txt" "$tmp/sub7"
# (the note is wrapped at 72 columns)
tr '\n' ' ' < "$tmp/sub" |
	grep -q 'from a random 100 samples per side where there are more' &&
	! grep -q 'from a random' "$tmp/full"
result $? "-n 100: the CI is said to come from 100 random samples per side (not without -n)"
rows "$tmp/full" > "$tmp/rows.full"
rows "$tmp/sub" > "$tmp/rows.sub"
[ -s "$tmp/rows.full" ] && cmp -s "$tmp/rows.full" "$tmp/rows.sub"
result $? "-n 100: n, p50, p99 and the ratio still come from all 2500 samples"
wf=$(ci_width "$tmp/full") ws=$(ci_width "$tmp/sub")
awk -v f="$wf" -v s="$ws" 'BEGIN { exit !(f > 0 && s > 2 * f) }'
result $? "-n 100: the median's CI is wider than from all samples ($ws vs $wf)"
cmp -s "$tmp/sub" "$tmp/sub2"
result $? "-n 100 twice: the same report (fixed seed)"
grep -q 'seed 7' "$tmp/sub7" && ! cmp -s "$tmp/sub" "$tmp/sub7"
result $? "-s 7: another subset and resampling, and the report names seed 7"

# --- hyperfine.json, no summary.json, one mode, no samples, bad rows
{
	echo '{ "results": ['
	echo '  { "command": "convbench --mode=destructive --size=4K",'
	echo '    "mean": 1.1875, "stddev": 0.0247, "times": [1.1, 1.2, 1.3] },'
	echo '  { "command": "convbench --mode=inplace --size=4K",'
	echo '    "mean": 2.6375, "stddev": 0.0642, "times": [2.6, 2.7, 2.6] }'
	echo '] }'
} > "$run/hyperfine.json"
"$CR" -q "$run"
grep -A 5 '^Whole convbench runs (hyperfine), wall time:$' "$rep" |
	grep -q '^    mean 2.638 s +- 0.064 s, 3 runs$' &&
	grep -q '^  \$ convbench --mode=destructive --size=4K$' "$rep"
result $? "hyperfine.json: each command with its mean, stddev and runs"

# --- make bench's third column: gmem/ from another boot, gmem at 0.5 x
# destructive (so gm/de 0.500, in/gm 1.400), its trace's counterparts
three=$tmp/three
mkdir -p "$three/gmem"
cp "$run/samples.csv" "$run/summary.json" "$three/"
cp "$tmp/trace.csv.v5" "$three/trace.csv"
{
	head -n 1 "$run/samples.csv"
	awk -F, -v OFS=, '$1 == "destructive" { $1 = "gmem"
		for (i = 8; i <= 12; i++) $i = int($i / 2); $10 = int($10)
		$14 = int($14 / 2); $15 = int($15 / 2); $16 = int($16 / 2)
		print }' "$run/samples.csv"
} > "$three/gmem/samples.csv"
sed 's/6.1.192-convbench-00017-gabcdef12/6.12.118-gmem/; s/"0123456789abcdef0123"/"fedcba9876543210"/' \
	"$run/summary.json" > "$three/gmem/summary.json"
{
	echo "probe,attach,context,context_name,count,sum_ns,lo_ns,hi_ns,n"
	echo "kvm_gmem_fallocate,fentry,1,gmem 4K to-shared,50,300000,4096,8191,50"
	echo "kvm_gmem_invalidate_begin,fentry,1,gmem 4K to-shared,50,100000,1024,2047,50"
	echo "kvm_faultin_pfn_private,fentry,2,gmem 4K to-private,50,150000,2048,4095,50"
} > "$three/gmem/trace.csv"
"$CR" -q "$three" 2> "$tmp/err"
rc=$?
rep3=$three/report.txt
[ $rc -eq 0 ] && [ "$(grep -cE ' gmem +50 ' "$rep3")" -eq 4 ] &&
	[ "$(grep -cE '^ +gm/de +0\.500 +0\.500$' "$rep3")" -eq 4 ] &&
	[ "$(grep -cE '^ +in/gm +1\.400 +1\.400$' "$rep3")" -eq 4 ] &&
	[ "$(grep -cE '^ +in/de +0\.700 +0\.700$' "$rep3")" -eq 4 ]
result $? "gmem/: its 4 rows, and gm/de 0.500, in/gm 1.400 next to in/de ($rc)"
[ "$(grep -cE '^ +95% CI +[0-9.]+\.\.[0-9.]+ +[0-9.]+\.\.[0-9.]+$' "$rep3")" -eq 12 ]
result $? "gmem/: every ratio has its 95% CI (12)"
grep -q '^gmem: kernel 6.12.118-gmem, another boot (gmem/), series fedcba987654' "$rep3" &&
	grep -q '^note: gmem is guest_memfd as upstream merged' "$rep3" &&
	grep -q 'another boot of another kernel' "$rep3"
result $? "gmem/: its kernel and boot are named, and what differs besides the path"
grep -A 1 '^shmem_fallocate (v5)$' "$rep3" | grep -q '^  / kvm_gmem_fallocate (6.12)$' &&
	grep -A 5 '^shmem_fallocate (v5)$' "$rep3" |
	grep -qE '^  4K +1\.00 x 9\.000 +1\.00 x 9\.000 +0\.50 x 6\.000$' &&
	grep -A 5 '^kvm_faultin_pfn_private (v5)$' "$rep3" |
	grep -qE '^  4K +not traced +not traced +0\.50 x 3\.000$'
result $? "gmem/: v5 functions and their 6.12 counterparts side by side, per conversion"
long=$(awk 'length($0) > 72 { n++ } END { print n + 0 }' "$rep3")
result "$long" "gmem/: every line is at most 72 columns ($long longer)"
rm -f "$three/samples.csv" "$three/trace.csv"
"$CR" -q "$three" 2> "$tmp/err"
rc=$?
[ $rc -eq 0 ] && [ "$(grep -cE ' gmem +50 ' "$three/report.txt")" -eq 4 ] &&
	! grep -qE ' (destructive|inplace) +50 ' "$three/report.txt"
result $? "gmem/ alone (BENCH_MODES=gmem): a report of gmem only ($rc)"

alone=$tmp/alone
mkdir "$alone"
grep -v '^inplace,' "$run/samples.csv" > "$alone/samples.csv"
"$CR" -q "$alone"
grep -q '^note: no summary.json: provenance unknown$' "$alone/report.txt"
result $? "no summary.json: the report says provenance is unknown"
grep -q 'No inplace/destructive ratio' "$alone/report.txt" &&
	! grep -qE '^ .*(inplace|in/de) ' "$alone/report.txt" &&
	[ "$(grep -cE ' destructive +50 ' "$alone/report.txt")" -eq 4 ]
result $? "one mode only: its 4 rows, no inplace rows, no ratio (says why)"

head -n 1 "$run/samples.csv" > "$alone/samples.csv"
"$CR" -q "$alone"
rc=$?
[ $rc -eq 1 ] && grep -q '^no conversions recorded' "$alone/report.txt"
result $? "samples.csv without samples: exit 1, the report says so ($rc)"
{ cat "$run/samples.csv"; echo "garbage,row"; echo "destructive,4096,sideways,x"; } \
	> "$alone/samples.csv"
"$CR" -q "$alone" 2> "$tmp/err"
rc=$?
[ $rc -eq 0 ] && grep -q '2 rows skipped' "$tmp/err"
result $? "unreadable rows are skipped and counted on stderr ($rc)"

# --- plotdata.sh: CDF thinning, the stamp, exit codes
sh "$HERE/plotdata.sh" "$big"
rc=$?
cdf=$big/plots/data/cdf-destructive-4096-to-shared.dat
pts=$(grep -vc '^#' "$cdf" 2>/dev/null)
[ $rc -eq 0 ] && [ "$pts" -le 2001 ] && [ "$pts" -ge 1000 ] &&
	[ "$(tail -n 1 "$cdf" | awk '{ print $2 }')" = 1 ]
result $? "plotdata: a CDF of 2500 samples is thinned to $pts points, ending at 1"
touch "$tmp/mark"
sleep 1
sh "$HERE/plotdata.sh" "$big"
[ -z "$(find "$big/plots/data" -newer "$tmp/mark")" ]
result $? "plotdata: nothing is redone while the stamp is newer than the inputs"
touch "$big/samples.csv"
sh "$HERE/plotdata.sh" "$big"
[ -n "$(find "$big/plots/data" -name stats.dat -newer "$tmp/mark")" ]
result $? "plotdata: a newer samples.csv makes the tables again"
sh "$HERE/plotdata.sh" > /dev/null 2>&1
rc1=$?
sh "$HERE/plotdata.sh" "$tmp/nowhere" > /dev/null 2>&1
rc2=$?
mkdir "$tmp/nosamples"
sh "$HERE/plotdata.sh" "$tmp/nosamples" > /dev/null 2>&1
rc3=$?
[ $rc1 -eq 2 ] && [ $rc2 -eq 2 ] && [ $rc3 -eq 1 ]
result $? "plotdata: exit 2 without a folder ($rc1, $rc2), 1 without samples.csv ($rc3)"

# --- the reference run: convreport's medians are convbench's own
ref=
for d in "$TOP"/results/*/; do
	[ -f "$d/samples.csv" ] && [ -f "$d/summary.json" ] && ref=${d%/} && break
done
if [ -n "$ref" ]; then
	copy=$tmp/$(basename "$ref")
	mkdir "$copy"
	cp "$ref/samples.csv" "$ref/summary.json" "$copy/"
	"$CR" -q "$copy"
	# mode size direction p50_ns of each cell in summary.json
	awk -F'"' '/"mode":/ { m = $4 } /"size":/ { s = $4 }
		/"direction":/ { d = $4 } /"total_ns":/ { t = 1 }
		t && /"p50":/ { split($3, a, /[:,]/); print m, s, d, a[2]; t = 0 }' \
		"$copy/summary.json" > "$tmp/json.p50"
	# the same from the table (size and direction carry down)
	awk '/^Latency per conversion/ { on = 1 }
		on && / (destructive|inplace) +[0-9]+ / {
		i = 1; if ($1 ~ /^[0-9]+[KMG]?$/) s = $(i++)
		if ($i ~ /^to-/) d = $(i++)
		print $i, s, d, $(i + 2) * 1000 }' "$copy/report.txt" > "$tmp/rep.p50"
	bad=$(awk 'NR == FNR { want[$1 " " $2 " " $3] = $4; next }
		{ k = $1 " " $2 " " $3; n++
		  if (!(k in want) || want[k] == 0 ||
		      ($4 - want[k]) / want[k] > 0.001 ||
		      (want[k] - $4) / want[k] > 0.001) bad++ }
		END { print (n ? bad + 0 : -1) }' "$tmp/json.p50" "$tmp/rep.p50")
	cells=$(wc -l < "$tmp/rep.p50")
	[ "$bad" = 0 ] && [ "$cells" -eq "$(wc -l < "$tmp/json.p50")" ]
	result $? "$(basename "$ref"): every p50 in report.txt is summary.json's ($cells cells, $bad differ)"
else
	skip "the reference run: no results/*/ with samples.csv and summary.json"
fi

"$CR" > /dev/null 2>&1
rc=$?
[ $rc -eq 2 ]
result $? "no folder: exit 2 ($rc)"
"$CR" "$run/samples.csv" > /dev/null 2>&1
rc=$?
[ $rc -eq 2 ]
result $? "a file, not a folder: exit 2 ($rc)"
"$CR" --max-samples=x "$run" > /dev/null 2>&1
rc=$?
[ $rc -eq 2 ]
result $? "a bad option value: exit 2 ($rc)"
mkdir "$tmp/empty"
"$CR" "$tmp/empty" > /dev/null 2> "$tmp/err"
rc=$?
[ $rc -eq 1 ] && grep -q 'no samples.csv' "$tmp/err"
result $? "a folder without samples.csv: exit 1, says so ($rc)"

finish
