/* SPDX-License-Identifier: GPL-2.0 */
/*
 * convbench --merge ... --history=ROOT: the earlier runs in ROOT (make
 * bench's results/) of the same build and method, listed beside each
 * ratio (the geometric mean of their per-round ratios) so that a reader
 * sees how far runs move. Repeatability only: no interval takes them
 * in. A ratio's interval is this run's alone (bench/report/cellstats.h):
 * under TCG a run's ratio belongs to the host and the minutes it ran
 * in, and widening by earlier runs made intervals that no real change
 * could leave.
 *
 * "The same" is: equal kernel release, series, config and kernel keys, QEMU version,
 * accelerator, CPU model and CPU count in the provenance, and the same
 * convbench arguments but for --rounds, --first-round, --order-seed and
 * --out (the workload, not how it was split); for the ratios against
 * gmem also the gmem run's (ROOT/RUN/gmem/summary.json). Runs that
 * differ are counted and left out, unreadable ones are said on stderr;
 * the newest HISTORY_MAX are taken. The CPU in the provenance is the
 * one the guest sees (under TCG, QEMU's emulated model), so runs from
 * another host can match: another reason they stay out of intervals.
 */
#ifndef CONVBENCH_HISTORY_H
#define CONVBENCH_HISTORY_H

#include <stdbool.h>
#include <stddef.h>

#include "cellstats.h"
#include "jsonr.h"

struct jsonw;

enum history_list {
	HIST_INPLACE_DE,	/* ratios_inplace_over_destructive */
	HIST_GMEM_DE,		/* ratios_against_gmem.gmem_over_destructive */
	HIST_INPLACE_GM,	/* ratios_against_gmem.inplace_over_gmem */
};

struct history {
	const char *root;
	size_t nruns;
	char *name[HISTORY_MAX];	/* folder names, oldest first */
	struct jv *sum[HISTORY_MAX];
	bool gmem_same[HISTORY_MAX];	/* its gmem/ is of the same build */
	size_t nother;			/* runs of another build or machine */
	size_t nargs;			/* same build, other arguments */
	size_t nbad;			/* summary.json unreadable */
	size_t nolder;			/* matching, but beyond HISTORY_MAX */
};

/*
 * The runs under root matching prov (a boot's provenance) and, for the
 * gmem lists, gprov (the gmem run's, or NULL); self: the folder being
 * written, never taken. 0, or 2 when root is not a readable folder
 * (said on stderr), 1 when out of memory.
 */
int history_load(struct history *h, const char *root, const char *self,
		 const struct jv *prov, const struct jv *gprov);
/* the earlier runs' ratios beside q[0..n) (none when h is NULL) */
void history_list(const struct history *h, enum history_list list,
		  struct ratio_stats *q, size_t n);
/* summary.json's "history": which runs are listed */
void history_json(struct jsonw *w, void *arg);
void history_free(struct history *h);

#endif /* CONVBENCH_HISTORY_H */
