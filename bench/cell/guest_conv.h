/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Guest/host contract of the conversion workload: the arguments the
 * host writes into guest memory for each vCPU and the samples the guest
 * writes back. Plain types only: both sides include it.
 */
#ifndef CONVBENCH_GUEST_CONV_H
#define CONVBENCH_GUEST_CONV_H

#include <stdint.h>

#include "kvm_util.h"

#define GUEST_CONV_PAGE		4096ULL

enum {
	GUEST_DIR_TO_SHARED,
	GUEST_DIR_TO_PRIVATE,
	GUEST_DIR_NR,
};

/* first argument of a UCALL_SYNC from the workload */
enum {
	GUEST_SYNC_FLIP = 0x464c4950,	/* implicit: flip the record, k, dir */
	GUEST_SYNC_BAD,			/* k, gpa, got, want: data wrong */
	GUEST_SYNC_HCFAIL,		/* k, hypercall return value */
};

struct guest_sample {
	uint64_t k;		/* conversion number: 2 * iteration + dir */
	uint64_t dir;
	uint64_t total;		/* guest TSC: request .. range usable */
	uint64_t first;		/* request .. first page verified */
	uint64_t copy;		/* copying the data aside (0: nothing copied) */
	uint64_t exit_rt;	/* the hypercall's round trip */
	uint64_t fault_in;	/* after the hypercall: copy back + touch */
	uint64_t copied;	/* bytes the guest copied (aside and back) */
};

/*
 * The calibration of a cell's VM, before its first conversion:
 * GUEST_CAL_WARM untimed then GUEST_CAL_N timed null exits (the
 * conversion hypercall on cal_gpa, which the host answers without
 * work), and as many write faults on pages of cal_buf the host has
 * allocated and KVM has not mapped, GUEST_CAL_STRIDE apart so that no
 * fault can map the next one's page.
 */
#define GUEST_CAL_WARM		4
#define GUEST_CAL_N		32
#define GUEST_CAL_STRIDE	(8 * GUEST_CONV_PAGE)
#define GUEST_CAL_BUF		((GUEST_CAL_WARM + GUEST_CAL_N) * GUEST_CAL_STRIDE)

struct guest_args {
	uint64_t base;		/* gpa (== gva) of this vCPU's range */
	uint64_t size;
	uint64_t scratch;	/* gpa of a buffer of size bytes (preserve) */
	struct guest_sample *samples;	/* in guest memory */
	uint64_t max_samples;
	uint64_t max_iters;
	uint64_t warmup;
	uint64_t seed;
	uint32_t dir_mask;
	uint32_t implicit;
	uint32_t preserve;
	uint32_t inplace;
	/* test hook (--inject=hang@K): spin without exits before conversion K */
	uint64_t hang_k;
	/* calibration: cal_gpa 0 (no null exits), cal_buf 0 (no faults) */
	uint64_t cal_gpa;
	uint64_t cal_buf;
	/* written by the guest: how many of each it timed, and the times */
	uint64_t cal_n[2];
	uint64_t cal[2][GUEST_CAL_N];	/* [0] null exits, [1] NPT faults */
	/* written by the guest after each verified conversion, read by the host */
	volatile uint64_t done_convs;
	volatile uint64_t nsamples;
	/* written by the host: finish the current iteration and stop */
	volatile uint32_t stop;
};

#define GUEST_NO_HANG	(~0ULL)

void guest_conv_main(struct guest_args *a);
/* --busy-vcpus: a vCPU that only runs (its own buffer) until a->stop */
void guest_busy_main(struct guest_args *a);

#endif /* CONVBENCH_GUEST_CONV_H */
