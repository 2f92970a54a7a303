#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Inside the VM (make bench): one boot of the run's design
# (lib/stats/design.h, convbench --design): the matrix in the modes this
# kernel runs (destructive,inplace: the 6.1 kernel; gmem: 6.12),
# untraced (the numbers we report) and traced (where the time goes;
# the difference is the probes' overhead), each phase's cells in the
# design's order (every size ABBA or BAAB), the traced phase first when
# the design says so (TRACED_FIRST); then the work counts (a short
# --counts run, the untraced phase's order); hyperfine timings of whole
# runs when asked. Clock marks at the start and the end let the host
# check the guest's TSC. Without DESIGN, convbench's own order
# (bench/cell/plan.h) and the traced phase first in odd rounds.
#   vm-bench.sh SIZES ITERATIONS ROUND ORDER_SEED HYPERFINE(0|1) COUNT_ITERATIONS [MODES [DESIGN TRACED_FIRST [ITERATIONS_AT]]]
# ITERATIONS_AT (SIZE:N,...): the timed phases' iterations per size
# instead of ITERATIONS (the counts run keeps COUNT_ITERATIONS).
sizes=${1:-4K,64K,2M}
iters=${2:-600}
round=${3:-0}
seed=${4:-1}
hf=${5:-0}
count_iters=${6:-20}
modes=${7:-destructive,inplace}
design=${8:-}
traced_first=${9:-$((round % 2))}
iter_at=${10:-}
cd /out || exit 1
# the clock marks through the kernel log, which reaches the console at once
export CONVBENCH_CLOCK_KMSG=1
# progress as lines: the host shows the console through a pipe
export CONVBENCH_PROGRESS=lines
args="--mode=$modes --size=$sizes --iterations=$iters --preserve --rounds=1 --first-round=$round --order-seed=$seed${design:+ --design=$design}"
# the timed phases only: the counts run has its own iterations
timed=${iter_at:+--iterations-at=$iter_at}
status=0

convbench --clock-mark=start || status=1

# NAME ARGS...: stdout to NAME.txt; stderr (progress, problems) onto the
# console as it comes, and into NAME.err.txt; the status of convbench
run() {
	name=$1
	shift
	{ convbench "$@" 2>&1 >"/out/$name.txt"; echo $? >"/tmp/$name.rc"; } |
		tee "/out/$name.err.txt"
	return "$(cat "/tmp/$name.rc")"
}

plain() {
	echo "bench: round $round: convbench $args $timed"
	# shellcheck disable=SC2086 # $args is a list of words
	run plain $args $timed --out=/out/plain || status=1
	if grep -q ' over rounds' /out/plain.txt; then
		grep -A 30 ' over rounds' /out/plain.txt | head -n 8
	else	# one mode (gmem): no ratio, its cells
		tail -n 8 /out/plain.txt
	fi
}

traced() {
	echo "bench: round $round: the same with BPF probes (--trace)"
	# shellcheck disable=SC2086
	run traced $args $timed --trace --out=/out/traced ||
		echo "bench: the traced round failed (status $?), see traced.err.txt"
}

if [ "$traced_first" = 0 ]; then
	plain
	traced
else
	traced
	plain
fi

echo "bench: round $round: work counts (--counts, $count_iters conversions per cell)"
# shellcheck disable=SC2086
run counts $args --iterations="$count_iters" --counts --out=/out/counts ||
	echo "bench: the counting run failed (status $?), see counts.err.txt"

if [ "$hf" = 1 ] && command -v hyperfine >/dev/null 2>&1; then
	n=$((iters / 10))
	[ $n -ge 10 ] || n=10
	echo "bench: hyperfine, whole runs of $n conversions per cell"
	# through sh so that a failing run's message is kept, not discarded
	set --
	for m in $(echo "$modes" | tr ',' ' '); do
		set -- "$@" "convbench --mode=$m --size=$sizes --iterations=$n --rounds=1 --format=csv >/dev/null 2>>/out/hyperfine-stderr.txt"
	done
	hyperfine --runs 5 --warmup 1 --export-json /out/hyperfine.json \
		"$@" >/out/hyperfine.txt 2>&1 ||
		echo "bench: a convbench run under hyperfine failed (the measured runs above stand): $(tail -n 3 /out/hyperfine-stderr.txt)" |
		tee -a /out/hyperfine.txt
	# the times only: hyperfine's advice (outliers, a quiet PC) is
	# routine under TCG and stays in hyperfine.txt with the rest
	grep -E '^(Benchmark|  Time|  Range)' /out/hyperfine.txt
fi

convbench --clock-mark=end || status=1
exit $status
