/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The churn workload (--workload=churn), host side: what conversions do
 * to huge pages over a guest's life. Each vCPU's range starts private,
 * whole and written; a seeded sequence of conversions of sub-ranges
 * (bench/cell/guest_churn.h) runs over it, and at every mark the host
 * reads how much of the range KVM maps at 2M (the VM's binary stats,
 * less mark 0's baseline), how many huge folios the kernel holds
 * (/proc/meminfo), and the kernel's THP events so far (/proc/vmstat:
 * splits, allocations, collapses). Each operation's latency comes from
 * the guest, as in the conversion workload.
 *
 * The cell engine (cell.c) runs it: cell_params.churn set, size the
 * range of each vCPU.
 */
#ifndef CONVBENCH_CHURN_H
#define CONVBENCH_CHURN_H

#include <pthread.h>
#include <stdint.h>

#include "cell_types.h"
#include "guest_churn.h"
#include "io_device.h"
#include "kvm_stats.h"
#include "kvm_util.h"

/* what the host read at one mark; counters are totals so far */
struct churn_mark {
	uint64_t op;		/* operations done before it */
	uint32_t vcpu;
	uint32_t idx;		/* the vCPU's mark number: 0 the baseline */
	double t_s;		/* since the cell's first mark */
	uint64_t pages_2m, pages_4k;	/* KVM: SPTEs of the VM, per level */
	uint64_t tlb_flush;	/* KVM: TLB flushes asked of every vCPU */
	uint64_t shmem_huge_kb;	/* /proc/meminfo ShmemHugePages */
	uint64_t anon_huge_kb;	/* AnonHugePages */
	uint64_t thp_split;	/* /proc/vmstat thp_split_page */
	uint64_t thp_split_pmd;	/* thp_split_pmd */
	uint64_t thp_alloc;	/* thp_file_alloc + thp_fault_alloc */
	uint64_t thp_collapse;	/* thp_collapse_alloc */
	/* the in-place merge back: thp_convert_merge, _busy (0 without) */
	uint64_t thp_merge, thp_merge_busy;
	/* KVM: the marking vCPU's exits (but interrupts'), NPT faults */
	uint64_t exits, pf_taken, pf_fixed;
	/* the vCPU's exits to userspace so far, this one included */
	uint64_t uexits;
	/* --workload=io --counts: BPF work counters so far (cell_types.h) */
	uint64_t work[CHURN_WORK_NR];
	bool have_work[CHURN_WORK_NR];
};

struct churn_result {
	struct churn_params p;
	struct churn_mark *marks;	/* in order of arrival */
	size_t nmarks, cap;
	struct churn_sample *ops;	/* every vCPU's, vCPU by vCPU */
	uint32_t *ops_vcpu;
	uint32_t *ops_exits;		/* userspace exits of each */
	size_t nops;
	uint64_t t0_ns;			/* CLOCK_MONOTONIC_RAW of mark 0 */
	/* the run's: the VM's statistics, read by every vCPU thread */
	struct kvm_stats vm_stats;
	/* each vCPU's, read by its thread only */
	struct kvm_stats vcpu_stats[VM_MAX_VCPUS];
	/* --workload=io: the device, the null exits the guests timed (TSC) */
	struct io_device dev;
	uint64_t null_tsc[VM_MAX_VCPUS * GUEST_CAL_N];
	size_t nnull;
	/* the sequence's start: vCPUs at their first mark after the fill */
	unsigned int at_start;
	pthread_cond_t start;
	pthread_mutex_t lock;
};

struct cell;
struct worker;

/* slot 0 bytes a vCPU of churn cell p needs */
uint64_t churn_guest_bytes(const struct cell_params *p);
/* worker w's guest arguments and guest memory for its range; -errno */
int churn_setup_worker(struct cell *c, struct worker *w, unsigned int i,
		       uint64_t *args_gpa, struct cell_result *res);
/* the cell's result's churn part from the guests' samples; -errno */
int churn_collect(struct cell *c, struct cell_result *res);
void churn_result_free(struct churn_result *r);

#endif /* CONVBENCH_CHURN_H */
