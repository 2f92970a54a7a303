#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A kernel of your own (kernel/build.sh FLAVOUR=custom, make bench
# KERNEL=custom), tried with the project's own 6.12 series as the
# "custom" one:
#   - keys: the series as a folder and as an mbox (as b4 am writes it)
#     are one kernel, whatever the mail headers say; a changed diff is
#     another; bad KSRC, PATCHES or a family without a fragment: exit 2;
#   - the mbox's kernel is the built gmem kernel (same tarball, diffs and
#     config: taken, not built again), and --kind says gmem (main: v5);
#   - FLAVOUR=custom ./convbench asked for destructive and gmem runs gmem
#     and says destructive is not there (exit 4);
#   - make bench's runner with BENCH_KERNEL=custom and with the gmem
#     kernel (4 boots each, 4K), then convbench compare: the same
#     machine, the kernels' keys named, no change beyond noise at 99.9%.
# Needs the gmem kernel built (make kernel-gmem) and build/bench/convbench;
# without them, the key checks run and the rest is skipped.
#
#   tests/unit/test_custom_kernel.sh [BENCH_OUT]
#
# POSIX sh. TAP-like lines; the last line is "N passed, N failed[, N
# skipped]".

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
BOUT=${1:-$TOP/build/bench}
CR=$TOP/build/analysis/convreport
tmp=$(mktemp -d) || exit 1
trap '[ -n "$KEEP" ] || rm -rf "$tmp"' EXIT
. "$HERE/../lib/tap.sh"
cd "$TOP" || exit 1

real=${CONVBENCH_CACHE:-/var/cache/convbench}
[ -n "${CONVBENCH_CACHE:-}" ] || mkdir -p "$real" 2>/dev/null ||
	real=${XDG_CACHE_HOME:-$HOME/.cache}/convbench
# a cache of the test's own (the machine's custom.env untouched), the
# built kernels linked in
cache=$tmp/cache
mkdir -p "$cache"
for d in "$real"/*/; do
	[ -d "$d" ] && ln -s "${d%/}" "$cache/$(basename "$d")"
done
export CONVBENCH_CACHE=$cache

key() {	# KSRC PATCHES: the custom key, or "exit N"
	FLAVOUR=custom KSRC=$1 PATCHES=$2 kernel/build.sh --key 2>"$tmp/key.err" || echo "exit $?"
}

# --- keys
cat kernel/patches-6.12/[0-9]*.patch > "$tmp/series.mbox"
# the same diffs mailed otherwise: other From lines, subjects, dates
sed 's/^Subject: \[PATCH/Subject: [RFC PATCH v9/; s/^Date: .*/Date: Sun, 6 Dec 2026 05:00:00 +0000/' \
	"$tmp/series.mbox" > "$tmp/remailed.mbox"
# one added line of a diff changed
awk '!done && /^\+[^+].*;$/ { sub(/;$/, "; "); done = 1 } { print }' \
	"$tmp/series.mbox" > "$tmp/changed.mbox"
k1=$(key 6.12 kernel/patches-6.12)
k2=$(key /usr/src/linux-source-6.12.tar.xz "$tmp/series.mbox")
k3=$(key 6.12 "$tmp/remailed.mbox")
k4=$(key 6.12 "$tmp/changed.mbox")
case $k1 in exit*|'') ok=1 ;; *) ok=0 ;; esac
[ $ok = 0 ] && [ "$k1" = "$k2" ] && [ "$k1" = "$k3" ] && [ "$k4" != "$k1" ] &&
	! cmp -s "$tmp/series.mbox" "$tmp/changed.mbox"
tap_ok $? "custom keys: folder = mbox = remailed mbox ($k1), a changed diff is another ($k4)"

r1=$(key "" kernel/patches-6.12)
r2=$(key 6.12 "$tmp/nothere")
r3=$(key 6.x kernel/patches-6.12)
: > "$tmp/linux-source-5.10.tar.xz"
r4=$(key "$tmp/linux-source-5.10.tar.xz" kernel/patches-6.12)
grep -q "no config fragment of the project for kernel 5.10" "$tmp/key.err"
e4=$?
: > "$tmp/empty.mbox"
r5=$(key 6.12 "$tmp/empty.mbox")
[ "$r1" = "exit 2" ] && [ "$r2" = "exit 2" ] && [ "$r3" = "exit 2" ] &&
	[ "$r4" = "exit 2" ] && [ $e4 = 0 ] && [ "$r5" = "exit 1" ]
tap_ok $? "bad KSRC, PATCHES, a family without a fragment: exit 2; an mbox without a message: 1 ($r1, $r2, $r3, $r4, $r5)"

gkey=$(FLAVOUR=gmem kernel/build.sh --key)
if [ ! -f "$cache/$gkey/out/done" ]; then
	for t in "the custom kernel is the built gmem one" "--kind" \
		"./convbench on the custom kernel" "make bench's runner on it" \
		"convbench compare"; do
		tap_skip "$t" "the gmem kernel $gkey is not built (make kernel-gmem)"
	done
	tap_finish
fi

# --- the mbox's kernel: the gmem kernel's build, taken
out=$(FLAVOUR=custom KSRC=6.12 PATCHES="$tmp/series.mbox" kernel/build.sh 2>"$tmp/build.err")
rc=$?
sed 's/^/# /' "$tmp/build.err"
[ $rc = 0 ] && [ -f "$out/done" ] && grep -q "taking it" "$tmp/build.err" &&
	[ "$(cat "$out/same-as")" = "gmem $gkey" ] && [ "$(cat "$out/key")" = "$k1" ] &&
	[ "$(cat "$out/flavour")" = custom ] && cmp -s "$out/bzImage" "$cache/$gkey/out/bzImage" &&
	[ "$(cat "$cache/$gkey/out/flavour")" = gmem ] &&
	grep -q "PATCHES=.*series.mbox" "$cache/custom.env"
tap_ok $? "the custom kernel is the built gmem one, taken not built; the gmem kernel's own files untouched"

kind=$(FLAVOUR=custom kernel/build.sh --kind)
mkind=$(FLAVOUR=main kernel/build.sh --kind 2>/dev/null || echo unbuilt)
[ "$kind" = gmem ] && { [ "$mkind" = v5 ] || [ "$mkind" = unbuilt ]; }
tap_ok $? "--kind: the custom kernel runs gmem, the main one v5 ($kind, $mkind)"

if [ ! -x "$BOUT/convbench" ] || [ ! -x "$CR" ]; then
	for t in "./convbench on the custom kernel" "make bench's runner on it" "convbench compare"; do
		tap_skip "$t" "no $BOUT/convbench or $CR"
	done
	tap_finish
fi

# --- ./convbench: FLAVOUR=custom alone is the last custom kernel
FLAVOUR=custom "$BOUT/convbench" --mode=destructive,gmem --size=4K \
	--iterations=10 --out="$tmp/cli" > "$tmp/cli.out" 2> "$tmp/cli.err"
rc=$?
grep -q '^convbench: --mode=destructive: ' "$tmp/cli.err" &&
	grep -q '"mode": "gmem"' "$tmp/cli/summary.json" &&
	! grep -q '"mode": "destructive"' "$tmp/cli/summary.json" &&
	grep -q '"destructive": "' "$tmp/cli/summary.json" &&
	grep -q "custom kernel" "$tmp/cli.err"
ok=$?
[ $ok = 0 ] || tail -n 5 "$tmp/cli.err" | sed 's/^/# /'
[ $rc = 4 ] && [ $ok = 0 ]
tap_ok $? "FLAVOUR=custom ./convbench --mode=destructive,gmem: gmem runs, destructive named as missing, exit 4 ($rc)"

# --- make bench's runner: the custom kernel, then the gmem one
bench() {	# NAME ENV...: run-bench.sh into $tmp/NAME, its run's folder
	name=$1
	shift
	env BENCH_ROUNDS=4 BENCH_SIZES=4K BENCH_ITERATIONS=60 BENCH_ITERATIONS_AT= \
		BENCH_COUNT_ITERATIONS=2 BENCH_HYPERFINE=0 BENCH_ORDER_SEED=7 "$@" \
		bench/vm/run-bench.sh --out-root "$tmp/$name" 2> "$tmp/$name.err"
}
crun=$(bench custom BENCH_KERNEL=custom BENCH_CHURN_ROUNDS=0 BENCH_SMP_VCPUS=0)
crc=$?
grep -q "the custom kernel $k1 runs the gmem modes" "$tmp/custom.err"
said=$?
# the gmem run also has make bench's churn boot: two rounds, short
grun=$(bench gmem BENCH_MODES=gmem BENCH_CHURN_ROUNDS=2 BENCH_CHURN_OPS=60 \
	BENCH_SPLIT_EVENTS=10 BENCH_ACCEPT_MB=4 BENCH_IO_REQS=4 \
	BENCH_SMP_VCPUS=2 BENCH_SMP_ROUNDS=2 BENCH_SMP_ITERATIONS=4 BENCH_SMP_IO_REQS=2)
grc=$?
[ $crc = 0 ] || tail -n 5 "$tmp/custom.err" | sed 's/^/# custom: /'
[ $grc = 0 ] || tail -n 5 "$tmp/gmem.err" | sed 's/^/# gmem: /'
[ $crc = 0 ] && [ $grc = 0 ] && [ $said = 0 ] && [ -f "$crun/summary.json" ] &&
	grep -q '"kernel_flavour": "custom"' "$crun/meta.json" &&
	grep -q "\"kernel_cache_key\": \"$k1\"" "$crun/meta.json" &&
	grep -q '"kernel_flavour": "gmem"' "$grun/meta.json"
tap_ok $? "run-bench.sh BENCH_KERNEL=custom: 4 boots of the custom kernel in gmem mode, its key and flavour in meta.json"

# the churn boot: two gmem rounds of 60 conversions in churn.json and
# churn.csv, the report's section, no churn boot where rounds are 0
"$CR" "$grun" > "$tmp/grep.txt" 2>&1
[ $grc = 0 ] && [ ! -e "$crun/churn" ] &&
	[ "$(grep -c '"round":' "$grun/churn/churn.json" 2>/dev/null)" = 2 ] &&
	[ "$(grep -c '^gmem,' "$grun/churn/churn-ops.csv")" = 120 ] &&
	grep -q "^Huge pages under conversion churn" "$tmp/grep.txt" &&
	grep -qE "^  gmem +[0-9.]+%" "$tmp/grep.txt" &&
	[ "$(grep -c '^gmem,[01],[0-9]*,split,' "$grun/split/events.csv")" = 20 ] &&
	grep -qE "^  gmem +split +[0-9.]+ " "$tmp/grep.txt" &&
	[ "$(grep -c '^gmem,[01],[0-9]*,\(accept\|pool\),' "$grun/accept/accept.csv")" = 12 ] &&
	grep -qE "^  gmem +4K +accept +[0-9.]+ \([0-9.]+\.\.[0-9.]+\) +256\.0 " "$tmp/grep.txt" &&
	[ "$(grep -c '^gmem,[01],\(bounce\|share\),' "$grun/io/io.csv")" = 24 ] &&
	grep -qE "^  gmem +4K +[0-9.]+ +[0-9.]+ [0-9.]+ \([0-9.]+\.\.[0-9.]+\)" "$tmp/grep.txt" &&
	grep -qE "^  gmem +4K +1\.0\|3\.0 " "$tmp/grep.txt"
tap_ok $? "make bench's churn boot: 2 gmem rounds of 60 conversions, of 10 split events, of a 4M accept sweep and of io requests (4 by each strategy of 6 sizes), the report's sections; none with BENCH_CHURN_ROUNDS=0"
sed -n '/^Huge pages under conversion churn/,/^$/p' "$tmp/grep.txt" | sed 's/^/# /'

# the vCPU boot: gmem at 1 and 2 vCPUs with their VM-wide counts, io at
# 2; the section
[ $grc = 0 ] && [ ! -e "$crun/smp" ] &&
	[ -f "$grun/smp/v1/summary.json" ] && [ -f "$grun/smp/v2/summary.json" ] &&
	grep -q '"tlb_flush_requests_per_conversion": [0-9]' "$grun/smp/v2/summary.json" &&
	[ -s "$grun/smp/io-v2/io.csv" ] &&
	[ -f "$grun/smp/v1-busy1/summary.json" ] &&
	grep -q "^accel_opt=.*tcg,thread=single" "$grun/smp/vm.env" &&
	grep -q '^runs=4$' "$grun/smp/emulator.env" &&
	grep -q '"vcpus": 2' "$grun/smp/v2/summary.json" &&
	grep -q "^More vCPUs" "$tmp/grep.txt" &&
	grep -qE "^  gmem +4K +to-shared +[0-9.]+ +[0-9.]+  [0-9.]+ \([0-9.]+\.\.[0-9.]+\)$" "$tmp/grep.txt" &&
	grep -qE "^  gmem +4K +[0-9.]+\|[0-9.]+ +[0-9.]+\|[0-9.]+$" "$tmp/grep.txt" &&
	grep -qE "^  6\.12[.0-9]*: the emulator's triple fault of a nested guest met [0-9]+ of 4( |$)" "$tmp/grep.txt" &&
	grep -q "^  One vCPU converting while 1 more only run guest code" "$tmp/grep.txt" &&
	[ "$(grep -cE "^  gmem +4K +to-shared +[0-9.]+ +[0-9.]+  [0-9.]+ \(" "$tmp/grep.txt")" = 2 ]
tap_ok $? "make bench's vCPU boot: gmem at 1 and 2 vCPUs and at 1 beside 1 busy, over 2 rounds with IPIs and TLB flushes, io at 2, the report's section and the emulator's count; none with BENCH_SMP_VCPUS=0"
sed -n '/^More vCPUs/,/^$/p' "$tmp/grep.txt" | sed 's/^/# /'

"$CR" --compare --conf=99.9 "$grun" "$crun" > "$tmp/cmp.txt" 2>&1
rc=$?
sed 's/^/# /' "$tmp/cmp.txt"
[ $rc = 0 ] && grep -q "^same machine and emulator" "$tmp/cmp.txt" &&
	grep -q "^  kernel: A $gkey, B $k1$" "$tmp/cmp.txt" &&
	grep -qE "^gmem 4K to-shared +p50 " "$tmp/cmp.txt" &&
	grep -qE "^[0-9]+ rows: 0 B slower, 0 B faster, [0-9]+ within noise, 0 without" "$tmp/cmp.txt"
tap_ok $? "convbench compare of the gmem run and the custom one: the same machine, the keys named, no change beyond noise (99.9%)"

tap_finish
