#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Was a boot disturbed by its host? Under TCG the guest's clock follows
# the host's: a vCPU thread kept off a CPU (another process, the host's
# own hypervisor) stretches every latency the guest measures meanwhile.
# run-vm.sh samples QEMU's vCPU threads once a second and writes into
# vm.env the share of their runnable time they spent waiting for a CPU
# (vcpu_wait_pct, and its worst second). A boot whose share is above
# the limit is left out of every statistic (make bench: its round),
# counted and named by the merge.
#
#   sh bench/vm/interference.sh VM_ENV [LIMIT_PCT]
#
# Prints nothing when the boot is clean (or the share unknown: a host
# without schedstat), else "valid=0" and "why=..." lines for clock.env.
# LIMIT_PCT: default BENCH_MAX_VCPU_WAIT or 10.
env=${1:?usage: interference.sh VM_ENV [LIMIT_PCT]}
limit=${2:-${BENCH_MAX_VCPU_WAIT:-10}}
case $limit in ''|*[!0-9.]*) echo "interference.sh: the limit expects a percentage, got '$limit'" >&2; exit 2 ;; esac
[ -r "$env" ] || exit 0
wait=$(sed -n "s/^vcpu_wait_pct=//p" "$env" | tr -d "'")
worst=$(sed -n "s/^vcpu_wait_worst_pct=//p" "$env" | tr -d "'")
case $wait in ''|*[!0-9.]*) exit 0 ;; esac
awk -v w="$wait" -v m="$limit" -v worst="$worst" 'BEGIN {
	if (w + 0 <= m + 0)
		exit 0
	print "valid=0"
	printf "why=host interference: the vCPU threads waited for a CPU %s%% of their runnable time (worst second %s%%; limit %s%%) while the guest clock ran on\n", w, worst, m
}'
