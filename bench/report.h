/* SPDX-License-Identifier: GPL-2.0 */
/*
 * convbench's output: per cell, the funclatency-style histogram and a
 * summary line as soon as the cell ends; at the end, mode ratios and
 * the files of --out (summary.json with provenance, samples.csv,
 * hist.csv, histograms.txt), each written atomically.
 */
#ifndef CONVBENCH_REPORT_H
#define CONVBENCH_REPORT_H

#include <stdio.h>

#include "options.h"
#include "workload.h"

#define REPORT_MAX_NOTES	4

struct report {
	const struct env *env;
	FILE *out;		/* stdout */
	char *dir;		/* --out, created by report_open */
	unsigned int nnotes;
	struct {
		const char *what;
		char why[256];
	} notes[REPORT_MAX_NOTES];
};

/* 0, or 2 when --out cannot be used (exists and not empty, ...) */
int report_open(struct report *r, const struct env *env);
void report_note(struct report *r, const char *what, const char *why);
void report_cell(struct report *r, const struct cell_result *res);
/* 0, or -errno when a file could not be written */
int report_finish(struct report *r, const struct cell_result *res,
		  unsigned int n);
void report_close(struct report *r);
/* one more file in --out, written atomically by fn (0 or -errno) */
int report_write_file(struct report *r, const char *name,
		      int (*fn)(FILE *f, void *arg), void *arg);

/* ns of a TSC delta */
double tsc_ns(const struct cell_result *res, uint64_t cycles);

#endif /* CONVBENCH_REPORT_H */
