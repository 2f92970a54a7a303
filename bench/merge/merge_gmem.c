// SPDX-License-Identifier: GPL-2.0
/*
 * convbench --merge=DIR --gmem-run=GDIR: the ratios of the 6.1 kernel's
 * modes against gmem (guest_memfd as merged, the 6.12 kernel), whose
 * boots make bench merged into GDIR before. Per (size, direction) and
 * percentile: gmem over destructive and inplace over gmem, computed as
 * inplace over destructive is (bench/report/cellstats.h) from the valid rounds
 * of both merges, paired by round number. Round K of gmem ran in
 * another boot (another kernel) than round K of the v5 modes, made
 * right before or after it: the per-round ratio compares two boots, so
 * the t interval over rounds carries the variation between boots too.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "merge.h"
#include "report.h"
#include "samples.h"
#include "summary_json.h"

static void pairs_json(struct jsonw *w, const struct ratio_stats *q, size_t n)
{
	size_t i;

	jsonw_arr_open(w);
	for (i = 0; i < n; i++)
		summary_json_ratio(w, &q[i]);
	jsonw_arr_close(w);
}

static void gmem_json(struct jsonw *w, void *arg)
{
	const struct merge_gmem *g = arg;

	jsonw_obj_open(w);
	jsonw_kv_str(w, "pairing", "round K of the gmem boots (the 6.12 "
		     "kernel) with round K of these (6.1): two boots, made "
		     "one after the other; the interval is over rounds as for "
		     "inplace/destructive and carries the variation between "
		     "boots");
	jsonw_kv_u64(w, "gmem_cells", g->ngmem_cells);
	jsonw_key(w, "gmem_over_destructive");
	pairs_json(w, g->gm_de, g->ngm_de);
	jsonw_key(w, "inplace_over_gmem");
	pairs_json(w, g->in_gm, g->nin_gm);
	jsonw_obj_close(w);
}

static void gmem_text(FILE *f, void *arg)
{
	const struct merge_gmem *g = arg;

	fprintf(f, "\nagainst gmem (the 6.12 kernel, other boots; round K "
		"paired with round K):");
	report_print_ratio_list(f, g->gm_de, g->ngm_de);
	report_print_ratio_list(f, g->in_gm, g->nin_gm);
}

static void pair(struct ratio_stats *q, uint64_t size, enum conv_dir d,
		 const struct cell_stats *num, const struct cell_stats *den)
{
	*q = (struct ratio_stats) {
		.size = size, .dir = d, .num = num->mode, .den = den->mode,
		.de = den, .in = num,
	};
	ratio_stats_build(q);
}

/*
 * The fixed costs of gmem's rounds: the merged run's samples.csv does
 * not carry them, its summary.json does, round by round
 */
static void gmem_fixed(struct cell_result *gm, size_t n, const char *dir)
{
	char path[4096], err[256];
	const struct jv *cells, *c, *pr;
	struct jv *sum;
	unsigned int d;
	size_t i, k;

	snprintf(path, sizeof(path), "%s/summary.json", dir);
	sum = access(path, R_OK) ? NULL : jsonr_load(path, err, sizeof(err));
	cells = jv_get(sum, "cells");
	for (i = 0; i < n && cells; i++) {
		for (d = 0; d < DIR_NR; d++) {
			c = summary_find(cells, conv_mode_name(gm[i].p.mode),
					 gm[i].p.size, conv_dir_name(d));
			pr = jv_get(jv_get(c, "total_ns"), "per_round");
			for (k = 0; k < jv_len(pr); k++) {
				const struct jv *x = jv_at(pr, k);
				double e, f, npf;

				if (jv_num(jv_get(x, "round"), -1) != gm[i].p.round)
					continue;
				e = jv_num(jv_get(x, "null_exit_ns"), NAN);
				f = jv_num(jv_get(x, "npt_fault_ns"), NAN);
				npf = jv_num(jv_get(x, "npt_faults"), NAN);
				if (!isnan(e) && !isnan(f)) {
					gm[i].cal_ns[CAL_NULL_EXIT] = e;
					gm[i].cal_ns[CAL_NPT_FAULT] = f;
					gm[i].cal_n[CAL_NULL_EXIT] = 1;
					gm[i].cal_n[CAL_NPT_FAULT] = 1;
				}
				if (!isnan(npf)) {
					gm[i].npf[d] = npf;
					gm[i].npf_known |= 1u << d;
				}
			}
		}
	}
	jsonr_free(sum);
}

int merge_gmem_load(struct merge_gmem *g, const char *dir,
		    const struct cell_result *plain, size_t nplain,
		    const struct design *d)
{
	char path[4096], err[512];
	struct cell_result *gm = NULL;
	size_t ngm = 0, i;
	int r;

	memset(g, 0, sizeof(*g));
	snprintf(path, sizeof(path), "%s/samples.csv", dir);
	r = samples_read_csv(path, &gm, &ngm, err, sizeof(err));
	if (r) {
		fprintf(stderr, "convbench: --gmem-run=%s: expected the merged "
			"run of the gmem boots: %s\n", dir, err);
		return r;
	}
	g->res = gm;
	g->nres = ngm;
	gmem_fixed(gm, ngm, dir);
	for (i = 0; i < ngm; i++)
		merge_design_slots(d, gm[i].p.round, &gm[i], 1);
	/* the v5 cells (shallow copies: their samples stay plain's) */
	g->all = calloc(nplain + ngm + 1, sizeof(*g->all));
	if (!g->all)
		return -ENOMEM;
	memcpy(g->all, plain, nplain * sizeof(*plain));
	g->nall = nplain;
	for (i = 0; i < ngm; i++)
		if (gm[i].p.mode == MODE_GMEM)
			g->all[g->nall++] = gm[i];
	g->ngmem_cells = g->nall - nplain;
	if (!g->ngmem_cells) {
		fprintf(stderr, "convbench: --gmem-run=%s: samples.csv has no "
			"gmem cell\n", dir);
		return -EINVAL;
	}
	r = run_stats_build(g->all, g->nall, &g->rs);
	if (r)
		return r;
	g->gm_de = calloc(g->rs.ncells + 1, sizeof(*g->gm_de));
	g->in_gm = calloc(g->rs.ncells + 1, sizeof(*g->in_gm));
	if (!g->gm_de || !g->in_gm)
		return -ENOMEM;
	for (i = 0; i < g->rs.ncells; i++) {
		const struct cell_stats *gc = &g->rs.cells[i], *de, *in;

		if (gc->mode != MODE_GMEM || !gc->n)
			continue;
		de = run_stats_cell(&g->rs, MODE_DESTRUCTIVE, gc->size, gc->dir);
		in = run_stats_cell(&g->rs, MODE_INPLACE, gc->size, gc->dir);
		if (de && de->n)
			pair(&g->gm_de[g->ngm_de++], gc->size, gc->dir, gc, de);
		if (in && in->n)
			pair(&g->in_gm[g->nin_gm++], gc->size, gc->dir, in, gc);
	}
	return 0;
}

void merge_gmem_add(struct merge_gmem *g, struct report *rep,
		    struct report_extra *x)
{
	x->key = "ratios_against_gmem";
	x->json = gmem_json;
	x->text = gmem_text;
	x->arg = g;
	report_add(rep, x);
}

void merge_gmem_free(struct merge_gmem *g)
{
	run_stats_free(&g->rs);
	free(g->gm_de);
	free(g->in_gm);
	free(g->all);
	samples_free(g->res, g->nres);
	memset(g, 0, sizeof(*g));
}
