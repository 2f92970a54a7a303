/* SPDX-License-Identifier: GPL-2.0 */
/*
 * convreport --repeat=ROOT RUN: repeatability, apart from every
 * interval. The runs in ROOT (make bench's results/) of RUN's identity,
 * taken on the host from each run's meta.json: the host's CPU model and
 * count, its kernel and whether it is itself a virtual machine; QEMU's
 * version, accelerator, emulated CPU, vCPUs and memory; the convbench
 * commit, the kernel's cache key (series and config) and gmem's; the
 * rounds, conversions per cell and the sizes. Under TCG a ratio belongs
 * to the host it ran on, so only runs of one identity are compared; the
 * others are listed with what differs.
 *
 * Per p50 ratio (in/de, gm/de and in/gm per size and direction): this
 * run's value and the newest earlier ones, their spread (max/min - 1)
 * over all runs of the identity, whether every run lies within the
 * margin (default +-5%) of their geometric mean, and how often one
 * run's value falls inside another run's 95% CI (with drift between
 * runs, not always). It reads the runs' summary.json; nothing here
 * changes them.
 */
#ifndef CONVBENCH_REPEAT_H
#define CONVBENCH_REPEAT_H

#include <stdio.h>

#include "runfiles.h"

/*
 * The section for run r (its folder r->dir) against the runs in root,
 * margin in percent. 0, or -errno with err[] (root unreadable).
 */
int repeat_section(FILE *f, const struct run *r, const char *root,
		   double margin, char *err, size_t errlen);
/*
 * The same ratios, and those less the emulator's fixed costs ("-fixed",
 * where the runs have them), as a markdown table: one column per run of the
 * identity, oldest first and r last (labelled by the time in their
 * names), then spread, within the margin, in other runs' CIs.
 * 0, or -errno with err[] (no meta.json in r, root unreadable).
 */
int repeat_markdown(FILE *f, const struct run *r, const char *root,
		    double margin, char *err, size_t errlen);

#endif /* CONVBENCH_REPEAT_H */
