/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CSV tables with the same header summed (convbench --merge: the traced
 * boots' trace.csv and trace-totals.csv, lib/results/trace_csv.h), read
 * with lib/formats/csvr.h and written with csvw.h.
 */
#ifndef CONVBENCH_CSV_SUM_H
#define CONVBENCH_CSV_SUM_H

#include <stddef.h>
#include <stdio.h>

/*
 * Sum CSV tables with the same header: rows with equal key columns are
 * one row, their sum columns added; the rest of the columns are kept
 * from the first. Written to f in order of first appearance.
 */
struct csv_sum {
	int nkeys, nsums;
	char **head;		/* nkeys + nsums column names */
	size_t nrows, cap;
	char ***keys;		/* nrows x nkeys strings */
	double **sums;		/* nrows x nsums */
};

int csv_sum_add(struct csv_sum *t, const char *path,
		const char *const *keys, int nkeys,
		const char *const *sums, int nsums, char *err, size_t errlen);
int csv_sum_write(const struct csv_sum *t, FILE *f);
void csv_sum_free(struct csv_sum *t);

#endif /* CONVBENCH_CSV_SUM_H */
