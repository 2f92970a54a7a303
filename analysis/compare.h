/* SPDX-License-Identifier: GPL-2.0 */
/*
 * convbench compare A B (convreport --compare A B): two runs, A the
 * baseline and B the change, as benchstat and critcmp present an A/B.
 * For every cell (mode, size, direction) both runs hold: the pooled p50
 * of A and of B (p90 and p99 too where both runs have at least 50
 * samples beyond them, as a run's own report shows tails), and B/A with
 * a 95% interval from both runs' boots: the ratio of the geometric
 * means of the boots' values, with Welch's t interval of the difference
 * of the mean logs (boots are the independent units; the samples of a
 * boot drift and correlate). A change is beyond noise when the
 * interval leaves out 1: '+' B slower, '-' B faster, '~' within noise.
 * Cells only one run holds are listed apart. A make bench run's gmem/
 * (the 6.12 kernel's cells) is taken in as the gmem mode's cells.
 *
 * The runs' identities (identity.h) are compared field by field: where
 * the machine or emulator differs (host CPU, host kernel, QEMU, the
 * accelerator, ...) the runs are still compared, but every line says
 * that a TCG ratio belongs to its host; what an A/B changes on purpose
 * (kernel, convbench commit, conversions) is listed as the difference.
 * Text in 72 columns, or JSON. Nothing in either run is changed.
 */
#ifndef CONVBENCH_COMPARE_H
#define CONVBENCH_COMPARE_H

#include <stdbool.h>
#include <stdio.h>

/*
 * Compare the runs in folders a and b onto f (JSON when json), with
 * intervals at conf (0.95 by default; a test that expects no change
 * over many rows asks for more).
 * 0; 1 when a run cannot be read (err[] says which and why) or the
 * runs have no cell in common; -ENOMEM.
 */
int compare_runs(FILE *f, const char *a, const char *b, bool json,
		 double conf, char *err, size_t errlen);

#endif /* CONVBENCH_COMPARE_H */
