/* SPDX-License-Identifier: GPL-2.0 */
/*
 * convreport's third column (threeway.c): the gmem/ subfolder of a make
 * bench run, measured in another boot of the 6.12 kernel.
 */
#ifndef CONVBENCH_THREEWAY_H
#define CONVBENCH_THREEWAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "runfiles.h"

/*
 * RUN/gmem/samples.csv added to s (or read into it when !have_v5): 0
 * also when there is none; -errno with err[] when it cannot be read
 */
int threeway_add_samples(const char *run, struct run_samples *s,
			 bool have_v5, char *err, size_t errlen);
/* the gmem boot's provenance and what differs besides the path */
void threeway_setup(FILE *f, const char *run);
/* the v5 functions and their 6.12 counterparts, per conversion */
void threeway_functions(FILE *f, const char *run, struct run_samples *s);

#endif /* CONVBENCH_THREEWAY_H */
