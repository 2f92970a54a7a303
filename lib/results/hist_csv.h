/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hist.csv: per cell (mode, size, direction) of a run, the pooled
 * histogram of its conversions' total_ns, one row per non-empty bucket.
 * Its columns (convbench writes them, bench/report/samples.c) and the
 * reader of its rows (convreport --plot-data, analysis/plotdata.c).
 */
#ifndef CONVBENCH_HIST_CSV_H
#define CONVBENCH_HIST_CSV_H

#include <stdint.h>

#include "csvr.h"
#include "vocab.h"

enum hist_csv_col {
	HIST_CSV_MODE, HIST_CSV_SIZE, HIST_CSV_DIR, HIST_CSV_LOW,
	HIST_CSV_HIGH, HIST_CSV_COUNT, HIST_CSV_NR
};

/* mode,size,direction,low_ns,high_ns,count */
extern const char *const hist_csv_col_name[HIST_CSV_NR];

struct hist_csv_row {
	enum conv_mode mode;
	uint64_t size;
	enum conv_dir dir;
	double low, high, count;	/* ns, ns (inclusive), conversions */
};

/* csvr_open() of a hist.csv: 0, -errno, -EINVAL without a column */
int hist_csv_open(struct csvr_file *c, const char *path);
/* the next row: 1; 0 at the end; -EINVAL when short or a field does not parse */
int hist_csv_next(struct csvr_file *c, struct hist_csv_row *row);

#endif /* CONVBENCH_HIST_CSV_H */
