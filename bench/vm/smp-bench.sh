#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make bench's vCPU boot, inside the VM (busybox sh): the matrix at one
# vCPU, at V (each vCPU its own range, converting concurrently) and at
# one converting while V-1 only run (--busy-vcpus: they must be flushed),
# ROUNDS rounds of ITERS, with each cell's IPIs and TLB flush requests
# (summary.json's vm_counts), and --workload=io at V vCPUs (IO_REQS
# requests by each strategy of each size), in MODES, into /out/v1,
# /out/vV, /out/v1-busyV-1 and /out/io-vV (in two blocks by each
# strategy, their order swapped in the second). The boot runs under
# single-threaded TCG, where the multi-threaded emulator's rare triple
# fault of a nested guest (emu_retry.sh, the tests' rule) should not
# come; if it does, that run
# is run once more and counted: /out/emulator.env says how many runs
# there were, how many met it and which.
#
#   smp-bench.sh MODES ROUNDS ITERS IO_REQS V SIZES SEED
#
# Exit: 0, or the first failing convbench's status (the others still run).
[ $# -eq 7 ] || { echo "usage: smp-bench.sh MODES ROUNDS ITERS IO_REQS V SIZES SEED" >&2; exit 2; }
modes=$1 rounds=$2 iters=$3 ioreqs=$4 v=$5 sizes=$6 seed=$7
. "$(dirname "$0")/emu_retry.sh"
runs=0 faults=0 which= status=0

# NAME ARG...: convbench ARG... --out=/out/NAME, its output on stderr;
# after the emulator's triple fault, once more (the first kept aside)
run() {
	name=$1
	shift
	runs=$((runs + 1))
	convbench "$@" --out="/out/$name" >"/out/$name.txt" 2>&1
	rc=$?
	if [ $rc -eq 1 ] && emu_fault "/out/$name.txt"; then
		faults=$((faults + 1))
		which="${which:+$which }$name"
		mv "/out/$name" "/out/$name.triple-fault" 2>/dev/null
		mv "/out/$name.txt" "/out/$name.triple-fault.txt"
		convbench "$@" --out="/out/$name" >"/out/$name.txt" 2>&1
		rc=$?
	fi
	sed "s/^/$name: /" "/out/$name.txt" >&2
	[ $rc -eq 0 ] || [ $status -ne 0 ] || status=$rc
}

common="--mode=$modes --size=$sizes --stall-timeout=60 --order-seed=$seed"
run v1 $common --vcpus=1 --rounds="$rounds" --iterations="$iters"
run "v$v" $common --vcpus="$v" --rounds="$rounds" --iterations="$iters"
run "v1-busy$((v - 1))" $common --vcpus=1 --busy-vcpus=$((v - 1)) \
	--rounds="$rounds" --iterations="$iters"
run "io-v$v" --workload=io --mode="$modes" --vcpus="$v" --rounds="$rounds" \
	--churn-ops="$ioreqs" --churn-interval=$(((ioreqs + 1) / 2)) \
	--stall-timeout=60 --seed="$seed"
{
	echo "runs=$runs"
	echo "emulator_faults=$faults"
	echo "emulator_fault_runs=$which"
	echo "vcpus=$v"
} >/out/emulator.env
exit $status
