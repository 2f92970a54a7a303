/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The shared types at the bottom of bench/: the modes, the directions
 * and triggers of a conversion, what a cell measures (its parameters),
 * one conversion's sample and work, and a cell's result. Everything
 * above (the modes' operations, the cell engine, the writers, the
 * merging of boots, the command line) speaks in these; the mode and
 * direction names are lib/vocab.h's.
 */
#ifndef CONVBENCH_CELL_TYPES_H
#define CONVBENCH_CELL_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#include "vocab.h"	/* enum conv_mode, enum conv_dir and their names */

/* --workload=io --counts: the kernel's work at a mark (BPF counters) */
enum churn_work {
	CHURN_WORK_ZEROED,	/* pages cleared */
	CHURN_WORK_ALLOC,	/* pages of user data allocated */
	CHURN_WORK_FREED,	/* and freed */
	CHURN_WORK_IPIS,	/* IPIs sent by the process */
	CHURN_WORK_NR
};

enum conv_trigger {
	TRIGGER_EXPLICIT,	/* KVM_HC_MAP_GPA_RANGE hypercall */
	TRIGGER_IMPLICIT,	/* the access faults: KVM_EXIT_MEMORY_ERROR
				 * (gmem: KVM_EXIT_MEMORY_FAULT) */
};

/*
 * Test hooks (--inject), on vCPU 0's conversion k (counting warm-up,
 * k = 2 * iteration + direction), so that tests can make convbench meet
 * what it must survive: a failing handler, data that reads wrong, a
 * handler that does nothing (the guest faults again and again), a guest
 * that stalls without exits, a sample whose timings break an invariant
 * (what --debug and samples_check must catch).
 */
enum inject_kind {
	INJECT_NONE,
	INJECT_FAIL,		/* the host handler fails (EIO) */
	INJECT_SKIP,		/* the host handler succeeds doing nothing */
	INJECT_CORRUPT,		/* after a to-shared: the host flips a word */
	INJECT_HANG,		/* the guest spins before the conversion */
	INJECT_SKEW,		/* its sample gets a handler longer than its window */
	INJECT_IO_GUEST,	/* io: the guest sends request K with a wrong word */
	INJECT_IO_HOST,		/* io: the device answers request K with one */
	INJECT_NR,
};

struct inject {
	enum inject_kind kind;
	uint64_t k;
	uint64_t off;		/* corrupt: byte offset in the range */
};

#define INJECT_XOR	0x00ff00ff00ff00ffULL	/* what corrupt flips */

/*
 * --workload=churn (bench/cell/churn.h): each vCPU's range of `range`
 * bytes, `ops` conversions of sizes drawn from the mix, a mark every
 * `interval` of them
 */
#define CHURN_CLASSES	8

#define CHURN_IO_NO_BAD	(~0ULL)

struct churn_params {
	uint64_t range;
	uint64_t ops;
	uint64_t interval;
	/*
	 * --workload=split: instead of a random sequence, events: the
	 * range made whole again (untimed), then a conversion of one
	 * class-0 piece at a random offset to shared (the split) and back
	 * (the range uniform again), a mark before and after each
	 */
	bool events;
	/*
	 * --workload=accept: a boot's conversion storm: the range made
	 * shared (untimed), then made private chunk by chunk (the guest
	 * accepting its memory), then shared again chunk by chunk (a
	 * swiotlb pool set up), a cell per chunk size (size[0] alone);
	 * the content need not survive: zeroes expected
	 */
	bool accept;
	/*
	 * --workload=io: requests of every class size to a host device
	 * thread, each sent and answered, by two strategies on the same
	 * requests: bounce (copied through a shared pool set up once) and
	 * share (the guest's buffer converted to shared and back, the
	 * content kept), in blocks of interval requests, alternating;
	 * range: the buffer and the pool, each the largest size
	 */
	bool io;
	/*
	 * --churn-merge: the in-place variant's merge back on (the kernel's
	 * shmem.convert_merge, set for the cell and restored after); off,
	 * the cell sets it off where the kernel has it
	 */
	bool merge;
	/*
	 * --inject=io-guest@K, io-host@K: request K's data made wrong;
	 * CHURN_IO_NO_BAD: none
	 */
	uint64_t io_bad_guest, io_bad_host;
	unsigned int nclasses;
	uint64_t size[CHURN_CLASSES];
	uint32_t weight[CHURN_CLASSES];
};

/* the in-place variant's merge-back switch (kernel/patches 0048) */
#define CHURN_MERGE_SWITCH	"/sys/module/shmem/parameters/convert_merge"

/* a churn cell's mode as its results name it: inplace+merge with the merge */
static inline const char *churn_mode_name(const struct churn_params *cp,
					  enum conv_mode m)
{
	return cp && cp->merge && m == MODE_INPLACE ? "inplace+merge" :
	       conv_mode_name(m);
}

/* the largest size class (io: the buffer's and the pool's size) */
static inline uint64_t churn_largest(const struct churn_params *cp)
{
	uint64_t largest = 0;
	unsigned int k;

	for (k = 0; k < cp->nclasses; k++)
		if (cp->size[k] > largest)
			largest = cp->size[k];
	return largest;
}

struct churn_result;

/* what a cell measures; the guest reads a copy of it */
struct cell_params {
	uint32_t round;		/* which round of the run (plan.h) */
	uint32_t block;		/* of its (round, size) in a design, else 0 */
	uint8_t boot_slot;	/* 1 + its boot's place in a design's round; 0: none */
	enum conv_mode mode;
	uint64_t size;		/* bytes per conversion, page multiple */
	uint32_t dir_mask;	/* 1 << DIR_* timed and recorded */
	enum conv_trigger trigger;
	bool preserve;		/* data must survive: guest copies (destructive) */
	uint32_t vcpus;
	/*
	 * vCPUs that only run guest code (no exits, no conversions) beside
	 * the converting ones, until those are done: every TLB flush a
	 * conversion asks for must reach them (KVM kicks them out)
	 */
	uint32_t busy_vcpus;
	uint32_t warmup;	/* iterations run and verified, not recorded */
	uint32_t iterations;	/* recorded round trips; 0 with duration */
	double duration_s;	/* > 0: run until then (iterations is the cap) */
	uint64_t seed;
	unsigned int stall_s;	/* a conversion taking longer fails the cell */
	uint32_t max_exits;	/* per conversion, more fail the cell; 0: default */
	struct inject inject;
	bool verbose;
	bool counts;		/* --counts: read the work of each conversion */
	/*
	 * --trace, --counts: label the kernel work of each conversion:
	 * trace_ctx + DIR_* for recorded conversions, + TRACE_CTX_WARMUP
	 * for warm-up ones (bench/report/trace_hook.h names them)
	 */
	void (*trace_set)(void *arg, unsigned int ctx);
	void *trace_arg;
	unsigned int trace_ctx;
	/*
	 * --workload=io --counts: make ctx the current context, then read
	 * its BPF work counters so far (bench/report/trace_hook.c), at
	 * every mark; NULL: not counted. A counter the kernel cannot count
	 * is left out of *have. trace_set stays NULL for such a cell: the
	 * conversion handler must not move the work to other contexts.
	 */
	void (*trace_work)(void *arg, unsigned int ctx,
			   uint64_t v[CHURN_WORK_NR], bool have[CHURN_WORK_NR]);
	/* called on every watchdog tick with the conversions done so far */
	void (*progress)(void *arg, uint64_t done);
	void *progress_arg;
	/* --workload=churn: its parameters (size is the range); NULL: not */
	const struct churn_params *churn;
};

/* a cell's trace contexts after its directions' (bench/report/trace_hook.h) */
#define TRACE_CTX_WARMUP	DIR_NR
#define TRACE_CTX_SETUP		(DIR_NR + 1)
#define TRACE_CTX_TEARDOWN	(DIR_NR + 2)
#define TRACE_CTX_PER_CELL	(DIR_NR + 3)

/*
 * One conversion. Guest times are guest TSC deltas, host times host TSC
 * deltas; both TSCs tick at tsc_khz, so differences of deltas are valid.
 */
struct conv_sample {
	uint32_t vcpu;
	uint32_t iter;
	uint32_t dir;		/* enum conv_dir */
	uint32_t exits;		/* userspace exits the conversion took */
	uint64_t total;		/* request to whole range usable + verified */
	uint64_t first;		/* request to first verified access */
	uint64_t copy;		/* guest copies (preserve, destructive) */
	uint64_t exit_rt;	/* guest: exits' round trips (incl. handler) */
	uint64_t fault_in;	/* guest: touching the range after the exits */
	uint64_t host;		/* host handler, exit to re-entry */
	uint64_t host_record;	/* KVM_SET_SW_PRIVATE_RANGE (gmem: attributes) */
	uint64_t host_mem;	/* fallocate / punch / in-place request */
	uint64_t host_release;	/* dropping the stale shared backing */
};

/*
 * The work of one conversion as KVM and the kernel count it (--counts),
 * from the request to the next one: machine independent, so the same
 * on TCG and on hardware. The BPF counters (bench/report/work_counts.h) add pages and
 * IPIs per cell and direction.
 */
struct conv_work {
	uint64_t exits;		/* VM exits but external interrupts' */
	uint64_t npt_faults;	/* guest page faults KVM took ("pf_taken") */
	uint64_t npt_fixed;	/* of them, mapped ("pf_fixed") */
	uint64_t host_faults;	/* the vCPU thread's page faults (GUP too) */
	uint64_t bytes_copied;	/* by the guest, aside and back */
};

/* the emulator's fixed costs a cell measures (struct cell_result.cal_ns) */
enum cal_kind { CAL_NULL_EXIT, CAL_NPT_FAULT, CAL_NR };

struct cell_result {
	struct cell_params p;
	uint64_t tsc_khz;
	struct conv_sample *samples;	/* malloc'd, n entries */
	struct conv_work *work;		/* --counts: one per sample, or NULL */
	uint64_t n;
	uint64_t conversions;	/* incl. warm-up and unrecorded directions */
	double wall_s;
	/*
	 * The whole run of the cell (both directions, every vCPU): the
	 * IPIs the guest kernel took (/proc/interrupts: RES, CAL and TLB
	 * rows, every CPU) and KVM's remote TLB flush requests for this VM;
	 * vm_counts false: not read
	 */
	bool vm_counts;
	uint64_t ipis, tlb_flush_req;
	bool interrupted;	/* stopped by SIGINT/SIGTERM, samples so far kept */
	char error[512];	/* empty: every conversion verified */
	char thp[32];		/* shmem_enabled used for the private fd */
	/*
	 * The emulator's fixed costs, measured in this cell's VM before its
	 * first conversion (guest TSC, ns): a null exit to userspace (the
	 * conversion hypercall answered without work) and an NPT fault on
	 * a page the host has already allocated. cal_n[] = 0: not measured.
	 */
	double cal_ns[CAL_NR];		/* median over the cell's vCPUs */
	uint32_t cal_n[CAL_NR];
	/*
	 * NPT faults per conversion of each direction as a --counts run of
	 * the same boot counted them (the merge sets them); npf_known bit d
	 */
	double npf[DIR_NR];
	uint8_t npf_known;
	/* --workload=churn: its operations and marks (churn.h); else NULL */
	struct churn_result *churn;
};

/* the host's clock for handler phases: the TSC, as the guest's */
static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

#endif /* CONVBENCH_CELL_TYPES_H */
