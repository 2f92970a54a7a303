/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trace.csv and trace-totals.csv, convtrace's numbers of a traced run:
 * per probe and context (a cell's mode, size and phase), the histogram
 * of exclusive times (trace.csv, one row per non-empty bucket; the last
 * bucket's high_ns empty: open-ended) and the totals (trace-totals.csv;
 * inclusive_ns and exclusive_ns empty for probes that only count).
 * Their columns, for the writers (bench/report/trace_hook.c and
 * convbench --merge, which sums them with lib/results/csv_sum.h) and
 * the reader of trace.csv's rows (convreport, analysis/runfiles.c).
 */
#ifndef CONVBENCH_TRACE_CSV_H
#define CONVBENCH_TRACE_CSV_H

#include <stdint.h>

#include "csvr.h"

enum trace_csv_col {
	TRACE_CSV_PROBE, TRACE_CSV_MODE, TRACE_CSV_SIZE, TRACE_CSV_PHASE,
	TRACE_CSV_LOW, TRACE_CSV_HIGH, TRACE_CSV_COUNT, TRACE_CSV_NR
};
/* probe,mode,size,phase,low_ns,high_ns,count */
extern const char *const trace_csv_col_name[TRACE_CSV_NR];
#define TRACE_CSV_KEYS	TRACE_CSV_COUNT	/* the columns before count: a bucket */

enum trace_totals_col {
	TRACE_TOTALS_PROBE, TRACE_TOTALS_ATTACH, TRACE_TOTALS_MODE,
	TRACE_TOTALS_SIZE, TRACE_TOTALS_PHASE, TRACE_TOTALS_CALLS,
	TRACE_TOTALS_INCLUSIVE, TRACE_TOTALS_EXCLUSIVE,
	TRACE_TOTALS_CONVERSIONS, TRACE_TOTALS_NR
};
/* probe,attach,mode,size,phase,calls,inclusive_ns,exclusive_ns,conversions */
extern const char *const trace_totals_col_name[TRACE_TOTALS_NR];
#define TRACE_TOTALS_KEYS TRACE_TOTALS_CALLS	/* the columns before calls */

/* a row of trace.csv */
struct trace_csv_row {
	const char *probe;	/* the row's, until the next row is read */
	int mode;		/* enum conv_mode, -1: none (outside cells) */
	uint64_t size;
	int dir;		/* enum conv_dir, -1: another phase */
	double low, count;
};

/*
 * csvr_open() of a trace.csv: 0, -errno, -ENODATA when empty, -EINVAL
 * without one of the columns but high_ns
 */
int trace_csv_open(struct csvr_file *c, const char *path);
/*
 * the next row: 1; 0 at the end; -EINVAL when short, or its low_ns
 * or count is not a number
 */
int trace_csv_next(struct csvr_file *c, struct trace_csv_row *row);

#endif /* CONVBENCH_TRACE_CSV_H */
