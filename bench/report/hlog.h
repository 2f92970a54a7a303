/* SPDX-License-Identifier: GPL-2.0 */
/*
 * latencies.hlog: every recorded conversion's total time (request to
 * whole range usable and verified, ns: samples.csv's total_ns) as an
 * HdrHistogram interval log (lib/formats/hdrlog.h), so that
 * HdrHistogram's own tools (HistogramLogProcessor, the plotters that
 * read .hlog) read a run without convbench. One tag per cell,
 * MODE-SIZE-DIRECTION ("inplace-4K-to-shared"); one interval per cell
 * result, that is per round (a boot, in make bench) and direction, in
 * the order samples.csv lists them. A log's times are the run's: the
 * intervals are the cells' measured wall times laid end to end in run
 * order (StartTime: when the file was written less their sum), not the
 * clock of the guest. Histograms: lowest 1 ns, highest HLOG_HIGHEST,
 * 3 significant digits; a sample above it (none is expected) is left
 * out and counted in a comment line.
 */
#ifndef CONVBENCH_HLOG_H
#define CONVBENCH_HLOG_H

#include <stddef.h>
#include <stdio.h>

#include "cell_types.h"

#define HLOG_HIGHEST	(1ULL << 40)	/* ns: about 18 minutes */

/* 0, or -errno (-EIO: the stream failed, -ENOMEM) */
int latencies_write_hlog(FILE *f, const struct cell_result *res, size_t n);

#endif /* CONVBENCH_HLOG_H */
