/* SPDX-License-Identifier: GPL-2.0 */
/*
 * convreport's third column (threeway.c): a make bench run's gmem/
 * subfolder, the merged run of the gmem boots (the 6.12 kernel) with
 * its own summary.json. The ratios against gmem are the 6.1 run's
 * (summary.json's ratios_against_gmem); gmem's cells, provenance and
 * kernel functions come from gmem/summary.json and gmem/trace.csv.
 */
#ifndef CONVBENCH_THREEWAY_H
#define CONVBENCH_THREEWAY_H

#include <stdio.h>

#include "runfiles.h"

/* RUN/gmem as g: 0, or -errno (none there, or not readable) */
int threeway_load(struct run *g, const char *run);
void threeway_free(struct run *g);
/* the gmem boots' provenance and what differs besides the path */
void threeway_setup(FILE *f, const struct run *g);
/* the v5 functions and their 6.12 counterparts, per conversion */
void threeway_functions(FILE *f, const struct run *r, const struct run *g);

#endif /* CONVBENCH_THREEWAY_H */
