/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a run was asked to do (struct env): the command line parsed by
 * options.c, read by every part of bench/ below it (the cells, the
 * writers, the merging of boots, the VM glue).
 */
#ifndef CONVBENCH_RUN_ENV_H
#define CONVBENCH_RUN_ENV_H

#include <stdbool.h>
#include <stdint.h>

#include "cell_types.h"
#include "units.h"

#define MAX_SIZES	16

enum out_format {
	FORMAT_TEXT,
	FORMAT_CSV,
	FORMAT_JSON,
};

/* --trace=SET: which kernel functions convtrace times */
enum trace_set {
	TRACE_OFF,
	TRACE_DEFAULT,	/* the three named functions + the in-place entry */
	TRACE_ALL,	/* the wide set and the tracepoint rows */
	/*
	 * the default set's attach points with programs that return at
	 * once: what attaching costs without the programs' work (the
	 * histograms stay empty)
	 */
	TRACE_EMPTY,
};

#define MAX_ROUNDS	64

enum dir_choice {
	DIRS_TO_SHARED = 1 << DIR_TO_SHARED,
	DIRS_TO_PRIVATE = 1 << DIR_TO_PRIVATE,
	DIRS_ROUNDTRIP = DIRS_TO_SHARED | DIRS_TO_PRIVATE,
};

struct env {
	bool modes[MODE_NR];
	uint64_t sizes[MAX_SIZES];
	unsigned int nsizes;
	uint32_t iterations;	/* 0 when --duration is given */
	/* --iterations-at=SIZE:N,...: per size, instead of iterations */
	uint64_t iter_at_size[MAX_SIZES];
	uint32_t iter_at_n[MAX_SIZES];
	unsigned int niter_at;
	double duration_s;
	uint32_t warmup;
	uint32_t vcpus;
	uint32_t busy_vcpus;	/* --busy-vcpus: more vCPUs that only run */
	uint32_t dir_mask;
	enum conv_trigger trigger;
	bool preserve;
	const char *out_dir;	/* NULL: no files */
	enum out_format format;
	uint64_t seed;
	unsigned int stall_s;
	uint32_t max_exits;	/* 0: cell_max_exits() default */
	struct inject inject;
	bool debug;		/* check every sample (invariants.h) */
	enum trace_set trace;
	bool counts;		/* count the work of each conversion */
	uint32_t rounds;	/* the matrix this many times */
	uint32_t first_round;	/* number of the first (make bench: the boot) */
	uint64_t order_seed;	/* shuffles the sizes of each round */
	const char *merge;	/* --merge=DIR: rounds of make bench's boots */
	const char *gmem_run;	/* --gmem-run=DIR: gmem's merged run */
	const char *history;	/* --history=DIR: earlier runs (results/) */
	const char *clock_mark;	/* --clock-mark=LABEL: print it and exit */
	/*
	 * --design=rounds=R,kernels=v5+gmem,traced=0|1,blocks=B: this run
	 * is boot --first-round of make bench's design (lib/stats/design.h),
	 * sizes and seed from --size and --order-seed; --merge of such boots
	 * writes the design and uses it. --design-boots prints its boots.
	 */
	bool design;
	unsigned int design_rounds, design_blocks;
	bool design_kernel[2];	/* enum design_kernel: v5, gmem */
	bool design_traced;
	bool design_boots;
	bool verbose;
	/*
	 * --workload=churn: each vCPU's range converted in pieces over and
	 * over, the kernel's huge pages read at marks (bench/cell/churn.h)
	 */
	bool churn;
	struct churn_params churn_p;
	/* a host kernel without the series: re-run in the project's VM */
	bool no_vm;		/* --no-vm: never */
	uint32_t vm_cpus;	/* 0: vcpus + 1, at least 2 */
	uint32_t vm_mem_mb;	/* 0: enough for the largest cell */
	uint32_t vm_timeout_s;
	int argc;		/* for the provenance record */
	char **argv;
};

/* the recorded round trips per cell and round of cells of this size */
static inline uint32_t env_iterations(const struct env *env, uint64_t size)
{
	unsigned int i;

	for (i = 0; i < env->niter_at; i++)
		if (env->iter_at_size[i] == size)
			return env->iter_at_n[i];
	return env->iterations;
}

#endif /* CONVBENCH_RUN_ENV_H */
