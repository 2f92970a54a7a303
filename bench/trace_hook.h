/* SPDX-License-Identifier: GPL-2.0 */
/*
 * convbench --trace: the BPF latency histograms of bpf/trace_lib, with
 * one context per (mode, size, direction) so that each cell's kernel
 * time is kept apart; warm-up conversions go to context 0.
 */
#ifndef CONVBENCH_TRACE_HOOK_H
#define CONVBENCH_TRACE_HOOK_H

#include <stdbool.h>
#include <stdio.h>

#include "workload.h"

struct conv_trace;

struct trace_hook {
	struct conv_trace *t;	/* NULL: tracing off */
	unsigned int next_ctx;
};

/* 0, or 4 when BPF tracing cannot run here (said on stderr) */
int trace_hook_open(struct trace_hook *h, bool verbose);
/* name the contexts of a cell and point p at the hook */
void trace_hook_cell(struct trace_hook *h, struct cell_params *p);
/* text to out, CSV to csv (either may be NULL) */
int trace_hook_report(struct trace_hook *h, FILE *out, FILE *csv);
void trace_hook_close(struct trace_hook *h);

#endif /* CONVBENCH_TRACE_HOOK_H */
