/* SPDX-License-Identifier: GPL-2.0 */
/*
 * convreport's sections (sections.c), each printing what summary.json
 * (and the buckets of trace.csv) hold, in at most TEXT_COLS columns.
 */
#ifndef CONVBENCH_ANALYSIS_SECTIONS_H
#define CONVBENCH_ANALYSIS_SECTIONS_H

#include <stdio.h>

#include "runfiles.h"

/* g: a make bench run's gmem/ (its rows), or NULL */
void print_work(FILE *f, const struct run *r, const struct run *g);
/* the emulator's fixed costs per cell and the ratios less them */
void print_fixed(FILE *f, const struct run *r, const struct run *g);
/* the tail spectrum of every cell with its bands over resampled boots */
void print_tails(FILE *f, const struct run *r, const struct run *g);
void print_overhead(FILE *f, const struct run *r);
void print_trace(FILE *f, const struct run *r);
void print_hyperfine(FILE *f, const struct run *r);
/* make bench's churn boots: RUN/churn/ and RUN/gmem/churn/ (churn.c) */
void print_churn(FILE *f, const struct run *r);
/* and their split events: RUN/split/ and RUN/gmem/split/ */
void print_split(FILE *f, const struct run *r);
/* and their accept sweeps: RUN/accept/ and RUN/gmem/accept/ */
void print_accept(FILE *f, const struct run *r);
/*
 * and their io requests: RUN/io/ and RUN/gmem/io/: per mode and size
 * the strategies' p50, share/bounce with its interval, the crossover,
 * the work per request
 */
void print_io(FILE *f, const struct run *r);
/*
 * make bench's vCPU boots: RUN/smp/ and RUN/gmem/smp/ (smp.c): 1 against
 * V vCPUs, IPIs and TLB flushes per conversion, io at V, emulator faults
 */
void print_smp(FILE *f, const struct run *r);
/* why probe was not traced in r, or NULL */
const char *not_traced(const struct run *r, const char *probe);
/* calls, exclusive ns and conversions of probe in (mode, size) ones */
void trace_totals(const struct run *r, const char *probe, enum conv_mode m,
		  uint64_t size, double *calls, double *ns, double *conv);

#endif /* CONVBENCH_ANALYSIS_SECTIONS_H */
