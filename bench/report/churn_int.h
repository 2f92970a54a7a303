/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the writers of the workloads on churn's engine share (inside
 * bench/report/ only): churn_report.c (the sequence and the dispatch),
 * churn_events.c (--workload=split), churn_accept.c (--workload=accept),
 * churn_io.c (--workload=io).
 */
#ifndef CONVBENCH_CHURN_INT_H
#define CONVBENCH_CHURN_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cellstats.h"
#include "churn.h"
#include "jsonw.h"
#include "report.h"

struct class_stat {
	size_t n;
	double p50, p99;	/* ns; NaN without samples */
};

/* one cell (mode, round) digested */
struct churn_cell {
	const struct cell_result *res;
	const struct churn_result *cr;
	const struct churn_mark *base, *start, *end;
	double cov_start, cov_steady, cov_end;
	double huge_start, huge_end;	/* shmem 2M folios in the kernel */
	double per1000_split, per1000_alloc, per1000_collapse, per1000_flush;
	double per1000_merge, per1000_merge_busy;	/* the merge back */
	struct class_stat start_cls[CHURN_CLASSES], steady_cls[CHURN_CLASSES];
};

/* the cells and a buffer for every operation of the run */
struct series_arg {
	const struct churn_cell *cells;
	size_t n;
	double *tmp;
};

/* churn-ops.csv of the cells (a struct series_arg) */
int churn_write_ops(FILE *f, void *arg);

/*
 * mean and 95% t interval over rounds, or geometric mean and interval
 * (NaN bounds with one round); a share's ("coverage...") cut to [0, 1]
 */
void churn_json_over_rounds(struct jsonw *w, const char *key,
			    const double *v, size_t n, bool geometric);

/* a churn.json: {"provenance": {...}, "KEY": { ... } }, open and close */
void churn_json_open(struct jsonw *w, FILE *f, const struct env *env,
		     const char *key);
int churn_json_close(struct jsonw *w);

/* --workload=split's files and lines (churn_events.c) */
int churn_events_report(struct report *rep, const struct cell_result *res,
			size_t n, const struct series_arg *ops);
/* --workload=accept's (churn_accept.c) */
int churn_accept_report(struct report *rep, const struct cell_result *res,
			size_t n, const struct series_arg *ops);
/* --workload=io's (churn_io.c) */
int churn_io_report(struct report *rep, const struct cell_result *res,
		    size_t n, const struct series_arg *ops);

#endif /* CONVBENCH_CHURN_INT_H */
