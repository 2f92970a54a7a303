/* SPDX-License-Identifier: GPL-2.0 */
/*
 * convreport --markdown=WHAT RUN: the README's tables of a run, printed
 * from its summary.json as convreport's text is, so that the README
 * quotes no figure by hand (analysis/readme-tables.sh writes and checks
 * them):
 *
 *   threeway  p50 per mode, us, and the three p50 ratios with 95% CIs
 *   fixed     the emulator's fixed cost per conversion and mode, and
 *             each ratio raw and less the fixed costs
 *   work      the work table of report.txt, in a code block
 *   repeat    repeatability over --repeat=DIR's runs of the identity:
 *             each p50 ratio per run, spread, within the margin, in
 *             other runs' CIs
 */
#ifndef CONVBENCH_ANALYSIS_MARKDOWN_H
#define CONVBENCH_ANALYSIS_MARKDOWN_H

#include <stdio.h>

#include "runfiles.h"

/* 0, or -1 with err[] saying what is wrong with the request */
int markdown_tables(FILE *f, const struct run *r, const struct run *g,
		    const char *what, const char *repeat, double margin,
		    char *err, size_t errlen);

#endif /* CONVBENCH_ANALYSIS_MARKDOWN_H */
