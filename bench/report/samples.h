/* SPDX-License-Identifier: GPL-2.0 */
/*
 * samples.csv (every recorded conversion, one row, times in whole ns)
 * and hist.csv (per cell, the pooled histogram, one row per bucket):
 * the writers, and convbench --merge's cells from the rounds of make
 * bench's boots. Sizes are spelled as lib/units.h does. The files'
 * columns and the readers of their rows are lib/results/samples_csv.h's
 * and hist_csv.h's.
 */
#ifndef CONVBENCH_SAMPLES_H
#define CONVBENCH_SAMPLES_H

#include <stddef.h>
#include <stdio.h>

#include "cellstats.h"
#include "cell_types.h"

int samples_write_csv(FILE *f, const struct cell_result *res, size_t n);
int hist_write_csv_cells(FILE *f, const struct run_stats *rs);

/*
 * A samples.csv back into cell results, one per (round, mode, size) in
 * the order they first appear, samples in ns (tsc_khz 1000000). Every
 * row must parse: 0, or -errno with err[] naming the file and line.
 * Free with samples_free().
 */
int samples_read_csv(const char *path, struct cell_result **res, size_t *n,
		     char *err, size_t errlen);
void samples_free(struct cell_result *res, size_t n);

#endif /* CONVBENCH_SAMPLES_H */
