/* SPDX-License-Identifier: GPL-2.0 */
/*
 * convbench --trace and --counts: bpf/trace_lib with one set of contexts
 * per (mode, size), shared by its rounds, so that each cell's kernel
 * work is kept apart and nothing of one cell lands in another's:
 *
 *   0                          outside every cell (convbench itself)
 *   base + DIR_TO_SHARED       recorded to-shared conversions
 *   base + DIR_TO_PRIVATE      recorded to-private conversions
 *   base + TRACE_CTX_WARMUP    warm-up conversions
 *   base + TRACE_CTX_SETUP     building the cell's VM (from cell start)
 *   base + TRACE_CTX_TEARDOWN  after the vCPUs end: collecting, freeing
 *
 * The context is set at cell start and back to 0 at cell end. Names are
 * "MODE SIZE PHASE", PHASE a direction or warm-up, setup, teardown.
 *
 * Files (--out): trace.csv, one row per non-empty bucket of exclusive
 * time (probe,mode,size,phase,low_ns,high_ns,count); trace-totals.csv,
 * one row per probe and context (calls, inclusive and exclusive ns,
 * conversions, hits); trace.txt for people; summary.json "trace".
 */
#ifndef CONVBENCH_TRACE_HOOK_H
#define CONVBENCH_TRACE_HOOK_H

#include <stdbool.h>
#include <stdio.h>

#include "run_env.h"
#include "cell_types.h"

struct conv_trace;
struct report;
struct probe_cal;

#define TRACE_HOOK_MAX_CELLS	64
/* the probes' calibration (probe_cal.h): a context after every cell's */
#define TRACE_CTX_CAL	(TRACE_HOOK_MAX_CELLS * TRACE_CTX_PER_CELL + 1)

struct trace_hook {
	struct conv_trace *t;	/* NULL: off */
	enum trace_set set;
	bool counters;		/* --counts: the work counters instead */
	unsigned int ncells;
	struct {
		enum conv_mode mode;
		uint64_t size;
		unsigned int base;
		uint64_t conversions[DIR_NR];	/* recorded, all rounds */
	} cells[TRACE_HOOK_MAX_CELLS];
};

/* 0, or 4 when BPF cannot run here (said on stderr) */
int trace_hook_open(struct trace_hook *h, enum trace_set set, bool counters,
		    bool verbose);
/* point p at the cell's contexts; the cell's setup starts now */
void trace_hook_cell(struct trace_hook *h, struct cell_params *p);
/*
 * --workload=io --counts: the cell's contexts, and its marks read the
 * work counters (cell_params.trace_work); p->counts stays off (that is
 * the conversion workload's per-conversion work)
 */
void trace_hook_churn_cell(struct trace_hook *h, struct cell_params *p);
/* the cell ended: count its conversions, context back to 0 */
void trace_hook_cell_end(struct trace_hook *h, const struct cell_result *res);
/* --trace: summary.json "trace" and the text after the ratios */
void trace_hook_report_to(struct trace_hook *h, struct report *rep);
/* --trace: trace.csv, trace-totals.csv, trace.txt into --out */
int trace_hook_write(struct trace_hook *h, struct report *rep);
/*
 * the probes' calibration before the first cell: in TRACE_CTX_CAL with
 * --trace (c->traced, c->hits), untraced otherwise; not with --counts
 */
void trace_hook_calibrate(struct trace_hook *h, struct probe_cal *c);
void trace_hook_close(struct trace_hook *h);

/* the base context of (mode, size), or 0 when it never ran */
unsigned int trace_hook_base(const struct trace_hook *h, enum conv_mode m,
			     uint64_t size);
/* recorded conversions of (mode, size, dir) */
uint64_t trace_hook_conversions(const struct trace_hook *h, enum conv_mode m,
				uint64_t size, enum conv_dir d);
/* "destructive 4K to-shared", "inplace 2M setup", "outside cells" */
const char *trace_hook_ctx_name(const struct trace_hook *h, unsigned int ctx,
				char *buf, size_t len);

#endif /* CONVBENCH_TRACE_HOOK_H */
