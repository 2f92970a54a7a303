/* SPDX-License-Identifier: GPL-2.0 */
/* convreport --plot-data (plotdata.c): RUN/plots/data/ for the gnuplot scripts */
#ifndef CONVBENCH_ANALYSIS_PLOTDATA_H
#define CONVBENCH_ANALYSIS_PLOTDATA_H

#include "runfiles.h"

int plot_data(const struct run *r);

#endif /* CONVBENCH_ANALYSIS_PLOTDATA_H */
