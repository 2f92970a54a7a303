#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Inside the VM (make bench): the default matrix in the modes this
# kernel runs, first without probes (the numbers we report), then the
# same with --trace (where the time goes, and the probes' overhead is
# the difference), then hyperfine timings of whole runs per mode.
#   vm-bench.sh SIZES ITERATIONS [MODES]
# MODES: destructive,inplace (the 6.1 kernel, default) or gmem (6.12).
sizes=${1:-4K,64K,2M}
iters=${2:-1000}
modes=${3:-destructive,inplace}
cd /out || exit 1
args="--mode=$modes --size=$sizes --iterations=$iters --preserve"
status=0

echo "bench: convbench $args"
convbench $args --out=/out/run >/out/convbench.txt 2>&1 || status=1
tail -n 12 /out/convbench.txt
echo "bench: the same with BPF probes (--trace)"
convbench $args --trace --out=/out/run-traced >/out/traced.txt 2>&1 ||
	echo "bench: the traced run failed (status $?), see traced.txt"

if command -v hyperfine >/dev/null 2>&1; then
	n=$((iters / 10))
	[ $n -ge 10 ] || n=10
	echo "bench: hyperfine, whole runs of $n conversions per cell"
	# through sh so that a failing run's message is kept, not discarded
	set --
	for m in $(echo "$modes" | tr ',' ' '); do
		set -- "$@" "convbench --mode=$m --size=$sizes --iterations=$n --format=csv >/dev/null 2>>/out/hyperfine-stderr.txt"
	done
	hyperfine --runs 5 --warmup 1 --export-json /out/hyperfine.json \
		"$@" >/out/hyperfine.txt 2>&1 ||
		echo "bench: a convbench run under hyperfine failed (the measured runs above stand): $(tail -n 3 /out/hyperfine-stderr.txt)" |
		tee -a /out/hyperfine.txt
	tail -n 6 /out/hyperfine.txt
fi
exit $status
