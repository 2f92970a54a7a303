/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The probes' cost per hit, calibrated in the same boot (issue 22,
 * item 6). Every convbench run (but --counts) times, before its first
 * cell, PROBE_CAL_BLOCKS blocks of PROBE_CAL_CALLS fallocate(KEEP_SIZE)
 * calls on one page of a shmem memfd that is already allocated: each
 * call runs shmem_fallocate() and nothing else of note, and
 * shmem_fallocate is one of the traced functions. With --trace its
 * fentry/fexit pair runs on every call, in a context of its own whose
 * hits the tracer counts. make bench runs the untraced and the traced
 * phase in one boot, so the merge takes the traced phase's ns per call
 * less the untraced one's, over the hits per call: the cost of one
 * probe hit in this boot (bench/merge/merge.c, the overhead section),
 * and corrects each cell's traced p50 by its hits per conversion.
 * The median block is taken: a block the host interrupts is one of
 * nine.
 */
#ifndef CONVBENCH_PROBE_CAL_H
#define CONVBENCH_PROBE_CAL_H

#include <stdbool.h>

#include "report.h"

#define PROBE_CAL_CALLS		200
#define PROBE_CAL_BLOCKS	9

struct probe_cal {
	bool ok;
	char why[160];			/* when not ok */
	double ns_per_call;		/* median block / PROBE_CAL_CALLS */
	double block_ns[PROBE_CAL_BLOCKS];
	bool traced;
	unsigned long long hits;	/* traced: probe hits of all blocks */
};

/*
 * Time the calls (set_ctx(arg, ctx) before and set_ctx(arg, 0) after,
 * when set_ctx is not NULL: the tracer's context of the calibration);
 * c->ok false with why when a memfd cannot be had
 */
void probe_cal_run(struct probe_cal *c, void (*set_ctx)(void *, unsigned int),
		   void *arg, unsigned int ctx);
/* summary.json's "probe_calibration" (and a line of text) */
void probe_cal_report_to(struct probe_cal *c, struct report *rep);

#endif /* CONVBENCH_PROBE_CAL_H */
