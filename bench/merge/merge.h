/* SPDX-License-Identifier: GPL-2.0 */
/*
 * convbench --merge=DIR --out=OUT: the rounds that make bench's boots
 * left in DIR, as one run. One boot is one round; per boot K:
 *
 *   DIR/boot-K/plain/    convbench --rounds=1 --first-round=K --out
 *   DIR/boot-K/traced/   the same with --trace (optional)
 *   DIR/boot-K/counts/   convbench --counts (optional)
 *   DIR/boot-K/clock.env the host's clock check of the boot (optional):
 *                        valid=1|0 checked=1|0 why=... tsc_khz= tsc_khz_measured=
 *                        deviation_pct= clocksource= tsc_messages=
 *
 * A boot whose clock check failed, or whose untraced round is missing,
 * is listed in summary.json's rounds as invalid and left out of every
 * statistic. OUT gets samples.csv (valid rounds), samples-traced.csv,
 * hist.csv, histograms.txt, trace.csv and trace-totals.csv (summed over
 * boots), overhead.txt and summary.json: the statistics of
 * bench/report/cellstats.h, the work counts of every boot with whether they
 * agree, and the probes' overhead: per cell the traced over the
 * untraced p50 of each boot (both rounds ran in the same boot, which
 * first alternating), with a t interval over boots.
 */
#ifndef CONVBENCH_MERGE_H
#define CONVBENCH_MERGE_H

#include <stdbool.h>
#include <stdio.h>

#include "cellstats.h"
#include "csv_sum.h"
#include "jsonr.h"
#include "run_env.h"
#include "cell_types.h"

/* the exit status: 0, 1 (nothing valid, a file failed), 2 (bad DIR) */
int merge_run(const struct env *env);

/* ---- --gmem-run=GDIR: ratios against gmem (bench/merge/merge_gmem.c) ---- */

struct report;
struct report_extra;

struct merge_gmem {
	struct cell_result *res;	/* GDIR/samples.csv */
	size_t nres;
	struct cell_result *all;	/* the v5 cells, then gmem's */
	size_t nall, ngmem_cells;
	struct run_stats rs;
	struct ratio_stats *gm_de, *in_gm;
	size_t ngm_de, nin_gm;
};

/*
 * GDIR's gmem cells with the v5 cells plain[] (which must outlive g):
 * 0, or -errno (said on stderr)
 */
struct design;
int merge_gmem_load(struct merge_gmem *g, const char *dir,
		    const struct cell_result *plain, size_t nplain,
		    const struct design *d);
/*
 * d's boot slots onto cells res[0..n) of round k (cell_params.boot_slot),
 * each by its mode's kernel; d NULL: none
 */
void merge_design_slots(const struct design *d, unsigned int k,
			struct cell_result *res, size_t n);
/* summary.json's ratios_against_gmem and the text after the ratios */
void merge_gmem_add(struct merge_gmem *g, struct report *rep,
		    struct report_extra *x);
void merge_gmem_free(struct merge_gmem *g);

/* ---- reading DIR (bench/merge/merge_read.c) ---- */

#define MERGE_MAX_BOOTS	MAX_ROUNDS

struct boot {
	unsigned int k;			/* boot-K */
	bool valid;
	bool unchecked;			/* the clock check could not be made */
	char why[256];			/* why not valid, or unchecked */
	double tsc_khz, tsc_khz_measured, deviation_pct;
	char clocksource[32];
	char tsc_messages[256];
	struct jv *plain_sum, *traced_sum, *counts_sum;
	struct cell_result *plain, *traced;
	size_t nplain, ntraced;
};

/* the boots of DIR in order of K: 0, or -errno with err[] filled */
int merge_read_boots(const char *dir, struct boot **boots, size_t *n,
		     char *err, size_t errlen);
void merge_free_boots(struct boot *b, size_t n);

#endif /* CONVBENCH_MERGE_H */
