/* SPDX-License-Identifier: GPL-2.0 */
/*
 * convreport --headline RUN: what make bench prints last, in about a
 * dozen lines: the run's folder, the three p50 ratios (in/de, gm/de,
 * in/gm) per size and direction with their 95% CIs over the run's
 * boots, and where report.txt is. A run of one mode (no ratio) gets
 * its cells' p50s instead. Every number is summary.json's.
 */
#ifndef CONVBENCH_HEADLINE_H
#define CONVBENCH_HEADLINE_H

#include <stdio.h>

#include "runfiles.h"

/* g: the run's gmem/ (NULL: none) */
void headline_print(FILE *f, const struct run *r, const struct run *g);

#endif /* CONVBENCH_HEADLINE_H */
