#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# convbench compare (convreport --compare) on synthetic runs whose
# answer is known: run A and run B hold the same six boots' values up
# to a factor per cell (B = 1.25 A: slower; 0.8 A: faster; 1.02 A:
# within noise), so Welch's interval has df = 10 and every ratio and
# bound is recomputed here with t(0.975, 10) = 2.228139. Also: tails
# compared only where both runs have 50 samples beyond; cells one run
# holds listed apart (gmem's from B's gmem/); the identity (the same
# machine, another host CPU flagged, the A/B's kernel named); JSON;
# 72 columns; a one-boot run without an interval; exit codes; and
# convbench compare runs the same.
#
#   analysis/test_compare.sh   (CONVREPORT=path, CONVBENCH=path: default
#                               build/analysis/convreport, build/bench/convbench)
#
# POSIX sh. TAP-like lines; the last line is "N passed, N failed[, N
# skipped]".

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
CR=${CONVREPORT:-$TOP/build/analysis/convreport}
CB=${CONVBENCH:-$TOP/build/bench/convbench}
tmp=$(mktemp -d) || exit 1
trap '[ -n "$KEEP" ] || rm -rf "$tmp"' EXIT
. "$HERE/../tests/lib/tap.sh"

[ -x "$CR" ] || { echo "# no $CR (make it, or set CONVREPORT)"; tap_ok 1 "$CR is built"; tap_finish; }

# the boots' factors: exp(+-0.1, +-0.05, +-0.02), geometric mean 1
NOISE="1.105170918 0.904837418 1.051271096 0.951229425 1.020201340 0.980198673"
T975_10=2.228139

# cells RUNFACTORS BEYOND99 [NBOOTS] [MODES] [SIZES]: a cells array;
# RUNFACTORS "de4 in4 de2 in2": each cell's factor, both directions
cells() {
	awk -v fac="$1" -v b99="$2" -v nb="${3:-6}" -v modes="${4:-destructive inplace}" \
	    -v sizes="${5:-4K 2M}" -v noise="$NOISE" -v nx="${NX:-}" 'BEGIN {
		split(fac, f, " "); split(noise, z, " "); hasnx = split(nx, w, " ")
		nm = split(modes, md, " "); ns = split(sizes, sz, " ")
		split("to-shared to-private", dr, " ")
		for (m = 1; m <= nm; m++) for (s = 1; s <= ns; s++) for (d = 1; d <= 2; d++) {
			k = (s - 1) * 2 + m; if (k > 4) k = 4
			base = (sz[s] == "4K" ? 100000 : sz[s] == "64K" ? 500000 : 2000000) * (d == 1 ? 1 : 1.1) * (m == 2 ? 0.7 : 1) * f[k]
			pr = ""
			for (r = 1; r <= nb; r++)
				pr = pr sprintf("%s{ \"round\": %d, \"n\": 600, \"p50\": %.3f, \"p90\": %.3f, \"p99\": %.3f%s }", \
					r > 1 ? ", " : "", r - 1, base * z[r], 1.5 * base * z[r], 3 * base * z[r], \
					hasnx ? sprintf(", \"null_exit_ns\": %.6f", 40000 * z[r] * w[r]) : "")
			printf "%s{ \"mode\": \"%s\", \"size\": \"%s\", \"size_bytes\": %d, \"direction\": \"%s\", \"total_ns\": { \"n\": %d, \"p50\": %.1f, \"p90\": %.1f, \"p99\": %.1f, \"p50_beyond\": 3000, \"p90_beyond\": 600, \"p99_beyond\": %d, \"per_round\": [ %s ] } }\n", \
				n++ ? ", " : "", md[m], sz[s], sz[s] == "4K" ? 4096 : sz[s] == "64K" ? 65536 : 2097152, \
				dr[d], 600 * nb, base, 1.5 * base, 3 * base, b99, pr
		}
	}'
}
# run DIR RUNFACTORS BEYOND99 [NBOOTS] [MODES] [SIZES]
run() {
	mkdir -p "$1"
	cat > "$1/summary.json" <<JSON
{ "provenance": { "convbench_version": "abc1234", "accel": "tcg",
    "qemu_version": "7.2.22", "cpu_model": "AMD EPYC Processor",
    "kernel_release": "6.1.192-convbench" },
  "cells": [ ${EXTRA:+$EXTRA, }$(cells "$2" "$3" "${4:-6}" "${5:-destructive inplace}" "${6:-4K 2M}") ] }
JSON
}
# meta DIR HOSTCPU KERNELKEY
meta() {
	cat > "$1/meta.json" <<JSON
{ "host_cpu": "$2", "host_cpus": 2, "host_virt": "yes",
  "vm": { "host_kernel": "6.18.44", "qemu_version": "7.2.22",
          "accel_opt": "tcg,thread=multi", "cpu": "EPYC", "cpus": 2, "mem_mb": 3072 },
  "convbench_git": "abc1234", "kernel_cache_key": "$3", "rounds": 6,
  "iterations_per_round": 600, "iterations_at": null }
JSON
}

A=$tmp/a B=$tmp/b
# A: a 64K cell besides (only in A)
EXTRA=$(cells "1 1 1 1" 60 6 destructive 64K) run "$A" "1 1 1 1" 60
meta "$A" "AMD EPYC 7B13" k1
# B: destructive 4K slower, inplace 4K faster, 2M within noise; 2M
# p99 with 49 samples beyond (not compared)
run "$B" "1.25 0.8 1.02 1.02" 60
sed -i '/"size": "2M"/s/"p99_beyond": 60/"p99_beyond": 49/' "$B/summary.json"
meta "$B" "AMD EPYC 7B13" k2
mkdir -p "$B/gmem"
run "$B/gmem" "1 1 1 1" 60 6 gmem 4K

out=$tmp/out.txt
"$CR" --compare "$A" "$B" > "$out" 2> "$tmp/err"
tap_ok $? "convreport --compare A B exits 0"

# expect MODE SIZE DIR PCT FACTOR: "ratio lo hi mark" from the data
expect() {
	awk -v f="$5" -v t="$T975_10" -v noise="$NOISE" 'BEGIN {
		n = split(noise, z, " ")
		for (i = 1; i <= n; i++) m += log(z[i]) / n
		for (i = 1; i <= n; i++) v += (log(z[i]) - m) ^ 2 / (n - 1)
		half = t * sqrt(2 * v / n)
		lo = f * exp(-half); hi = f * exp(half)
		printf "%.3f (%.3f..%.3f) %s\n", f, lo, hi, (lo > 1 ? "+" : (hi < 1 ? "-" : "~"))
	}'
}
# row MODE SIZE DIR PCT: the text row's "ratio (lo..hi) mark"
row() {
	awk -v c="$1 $2 $3" -v p="$4" '
		substr($0, 1, 26) ~ /[a-z]/ { cell = $1 " " $2 " " $3; pct = $4 }
		substr($0, 1, 26) !~ /[a-z]/ { pct = $1 }
		cell == c && pct == p { print $(NF - 2), $(NF - 1), $NF; exit }' "$out"
}
nbad=0
for spec in "destructive 4K to-shared p50 1.25" "destructive 4K to-private p99 1.25" \
	    "inplace 4K to-shared p50 0.8" "inplace 4K to-private p90 0.8" \
	    "destructive 2M to-shared p50 1.02" "inplace 2M to-private p90 1.02"; do
	set -- $spec
	want=$(expect "$@")
	got=$(row "$1" "$2" "$3" "$4")
	[ "$got" = "$want" ] || { echo "# $spec: got '$got', want '$want'"; nbad=$((nbad + 1)); }
done
tap_ok $nbad "B/A and its Welch interval recomputed: 1.25 slower (+), 0.8 faster (-), 1.02 within noise (~)"

# --conf=99: t(0.995, 10) = 3.169273
"$CR" --compare --conf=99 "$A" "$B" > "$tmp/c99.txt"
want=$(T975_10=3.169273; expect destructive 2M to-shared p50 1.02)
out0=$out out=$tmp/c99.txt
got=$(row destructive 2M to-shared p50)
out=$out0
[ "$got" = "$want" ] && grep -q "(99% CI)" "$tmp/c99.txt"
tap_ok $? "--conf=99: the interval at that level ($got)"

[ -z "$(row destructive 2M to-shared p99)" ] && [ -n "$(row destructive 4K to-shared p99)" ]
tap_ok $? "p99 compared only where both runs have 50 samples beyond it (B's 2M: 49)"

grep -q "^only in A (not compared):" "$out" && grep -q "^  destructive 64K to-shared$" "$out" &&
	grep -q "^only in B (not compared):" "$out" && grep -q "^  gmem 4K to-private$" "$out"
tap_ok $? "cells one run holds listed apart (A's 64K, B's gmem/ cells)"

grep -q "^20 rows: 6 B slower, 6 B faster, 8 within noise, 0 without an interval$" "$out"
tap_ok $? "the closing count: 20 rows, 6 slower, 6 faster, 8 within noise"

grep -q "^same machine and emulator: host AMD EPYC 7B13 x 2" "$out" &&
	grep -q "^  kernel: A k1, B k2$" "$out" && ! grep -q "NOT THE SAME" "$out"
tap_ok $? "same identity: the machine said once, the A/B's kernel named"

awk 'length($0) > 72 { bad = 1 } END { exit bad }' "$out" && ! LC_ALL=C grep -q '[^ -~]' "$out"
tap_ok $? "72 columns, ASCII"

meta "$B" "Intel Xeon 8375C" k2
"$CR" --compare "$A" "$B" > "$tmp/other.txt"
grep -q "^NOT THE SAME MACHINE OR EMULATOR" "$tmp/other.txt" &&
	grep -q "^  host CPU: A AMD EPYC 7B13, B Intel Xeon 8375C$" "$tmp/other.txt" &&
	grep -q "^destructive 4K to-shared   p50" "$tmp/other.txt"
tap_ok $? "another host CPU: still compared, flagged, the field named"

"$CR" --compare --json "$A" "$B" > "$tmp/out.json"
rc=$?
if command -v python3 >/dev/null 2>&1; then
	python3 - "$tmp/out.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["same_machine_and_emulator"] is False
assert any(d["field"] == "host CPU" and d["machine_or_emulator"] for d in j["differences"])
c = [x for x in j["cells"] if (x["mode"], x["size"], x["direction"], x["percentile"]) == ("destructive", "4K", "to-shared", "p50")][0]
assert abs(c["ratio"] - 1.25) < 1e-9 and c["change"] == "slower" and c["a_boots"] == 6
assert abs(c["a_ns"] - 100000) < 1e-3 and abs(c["b_ns"] - 125000) < 1e-3
assert sum(x["change"] == "faster" for x in j["cells"]) == 6
assert {"mode": "destructive", "size": "64K", "direction": "to-shared"} in j["only_in_a"]
assert {"mode": "gmem", "size": "4K", "direction": "to-shared"} in j["only_in_b"]
PY
	py=$?
	[ $rc = 0 ] && [ $py = 0 ]
	tap_ok $? "--json: parses; ratio, change, boots, geometric means, the lists"
else
	tap_skip "--json parses" "no python3"
fi

# p50n: each boot's p50 over its null exit. Boots that differ in speed
# (z) by up to 22% and in their null exit by that and a little more (w):
# B = 1.02 A is within noise in p50 but beyond it in null exits, whose
# interval comes from w alone
W="1.01 0.99 1.005 0.995 1.002 0.998"
NX=$W run "$tmp/na" "1 1 1 1" 60 6 destructive 4K
NX=$W run "$tmp/nb" "1.02 1.02 1.02 1.02" 60 6 destructive 4K
"$CR" --compare "$tmp/na" "$tmp/nb" > "$tmp/nx.txt"
out0=$out out=$tmp/nx.txt
got=$(row destructive 4K to-shared p50n)
raw=$(row destructive 4K to-shared p50)
out=$out0
# 1/w: the same log variance as w
want=$(NOISE=$W; expect destructive 4K to-shared p50n 1.02)
case $raw in *" ~") r_ok=0 ;; *) r_ok=1 ;; esac
[ "$got" = "$want" ] && [ $r_ok = 0 ] && case $want in *" +") true ;; *) false ;; esac &&
	grep -qE "^ +p50n +2\.50x +2\.55x " "$tmp/nx.txt" && ! grep -qE "^ +p50n " "$out"
tap_ok $? "p50n: the boots' speed divided out: 1.02 beyond noise in null exits ($got), within it raw ($raw); none without null exits"

# a gmem run alone (make bench's <run>/gmem): its own cells
run "$tmp/ga" "1 1 1 1" 60 6 gmem 4K
run "$tmp/gb" "1 1 1 1" 60 6 gmem 4K
"$CR" --compare "$tmp/ga" "$tmp/gb" > "$tmp/g.txt"
grep -qE "^gmem 4K to-shared +p50 +100\.0 +100\.0 1\.000 " "$tmp/g.txt"
tap_ok $? "two gmem runs alone: their gmem cells compared"

# one boot in B: a ratio, no interval, '?'
run "$tmp/one" "1 1 1 1" 60 1
"$CR" --compare "$A" "$tmp/one" > "$tmp/one.txt"
grep -qE "^destructive 4K to-shared   p50 +[0-9.]+ +[0-9.]+ [0-9.]+ \(n/a\) +\?$" "$tmp/one.txt" &&
	grep -q "^24 rows: 0 B slower, 0 B faster, 0 within noise, 24 without an interval$" "$tmp/one.txt"
tap_ok $? "a run of one boot: the ratio, no interval, marked '?'"

"$CR" --compare "$A" > /dev/null 2>&1; r1=$?
"$CR" --compare "$A" "$tmp/nothere" > /dev/null 2>&1; r2=$?
mkdir -p "$tmp/empty"
"$CR" --compare "$A" "$tmp/empty" > /dev/null 2> "$tmp/e3"; r3=$?
run "$tmp/other" "1 1 1 1" 60 6 "inplace" "64K"
"$CR" --compare "$A" "$tmp/other" > /dev/null 2> "$tmp/e4"; r4=$?
[ $r1 = 2 ] && [ $r2 = 2 ] && [ $r3 = 1 ] && grep -q "not a convbench run" "$tmp/e3" &&
	[ $r4 = 1 ] && grep -q "no cell in common" "$tmp/e4"
tap_ok $? "exit 2 for one folder or a missing one, 1 without summary.json or a common cell ($r1 $r2 $r3 $r4)"

if [ -x "$CB" ]; then
	"$CB" compare "$A" "$B" > "$tmp/cb.txt" 2>&1
	[ $? = 0 ] && cmp -s "$tmp/cb.txt" "$tmp/other.txt"
	tap_ok $? "convbench compare A B prints what convreport --compare does"
else
	tap_skip "convbench compare" "no $CB"
fi

tap_finish
