#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# convreport on a tiny synthetic run folder made here: report.txt is
# written (and printed), every line fits 72 columns, the ratio table and
# the three functions' side-by-side histograms are there with the right
# numbers (inplace is exactly 0.7 x destructive), the TCG note, the exit
# codes (2 bad usage, 1 no samples.csv), reruns replace the report.
#
#   analysis/test_report.sh     (CONVREPORT=path, default build/analysis/convreport)
#
# Then, when gnuplot is installed, every analysis/*.gp on the same folder
# (with and without trace.csv): a PNG and an SVG each.
#
# POSIX sh. TAP-like lines; the last line is "N passed, N failed[, N
# skipped]".

HERE=$(cd "$(dirname "$0")" && pwd)
CR=${CONVREPORT:-$HERE/../build/analysis/convreport}
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
		printf "%s,%d,%s,explicit,1,0,%d,%d,%d,0,%d,%d,1,%d,%d,%d,0\n", \
			m ? "inplace" : "destructive", sz[s], dr[d], i, v, v, \
			v / 2, v / 2, v / 3, v / 9, v / 9
	}
}' > "$run/samples.csv"

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
	plots "$run" distribution cdf phases scaling bpf-functions
	result $? "gnuplot: all five plots, PNG and SVG"
else
	skip "gnuplot: all five plots (no gnuplot)"
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
