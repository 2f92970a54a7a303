// SPDX-License-Identifier: GPL-2.0
/*
 * The churn workload's results (see churn_report.h), what the three
 * workloads' writers share (churn_int.h) and the dispatch to them
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "churn_int.h"
#include "churn_report.h"
#include "csvw.h"
#include "jsonw.h"
#include "provenance.h"
#include "stats.h"
#include "units.h"

#define SZ_2M_PAGES	512.0

static double coverage(const struct churn_cell *c, const struct churn_mark *m)
{
	double pages = (double)c->cr->p.range / 4096 * c->res->p.vcpus;

	return ((double)m->pages_2m - (double)c->base->pages_2m) *
	       SZ_2M_PAGES / pages;
}

/*
 * shmem's 2M folios in the VM's kernel (the private fd's: nothing else
 * there allocates huge shmem), counted whole: the fd is allocated
 * before mark 0, so no baseline is taken off
 */
static double huge_folios(const struct churn_cell *c,
			  const struct churn_mark *m)
{
	(void)c;
	return m->shmem_huge_kb / 2048.0;
}

/* latency of class k over the ops of vcpu (all: ~0u) in [lo, hi) */
static void class_stat(const struct churn_cell *c, unsigned int k,
		       uint32_t vcpu, uint64_t lo, uint64_t hi, double *tmp,
		       struct class_stat *out)
{
	const struct churn_result *cr = c->cr;
	size_t i, n = 0;

	for (i = 0; i < cr->nops; i++)
		if (cr->ops[i].cls == k && cr->ops[i].op >= lo &&
		    cr->ops[i].op < hi &&
		    (vcpu == ~0u || cr->ops_vcpu[i] == vcpu))
			tmp[n++] = tsc_ns(c->res, cr->ops[i].total);
	out->n = n;
	out->p50 = out->p99 = NAN;
	if (n) {
		stats_sort(tmp, n);
		out->p50 = stats_percentile_sorted(tmp, n, 50);
		out->p99 = stats_percentile_sorted(tmp, n, 99);
	}
}

/* c from its result; -EINVAL when it has no mark after the baseline */
static int digest(struct churn_cell *c, const struct cell_result *res,
		  double *tmp)
{
	const struct churn_result *cr = res->churn;
	double sum = 0, nops;
	size_t i, nsteady = 0;
	unsigned int k;

	memset(c, 0, sizeof(*c));
	c->res = res;
	c->cr = cr;
	if (!cr || cr->nmarks < 2)
		return -EINVAL;
	c->base = &cr->marks[0];
	/* start: the last vCPU's first mark after its fill */
	for (i = 0; i < cr->nmarks; i++)
		if (cr->marks[i].idx == 1)
			c->start = &cr->marks[i];
	c->end = &cr->marks[cr->nmarks - 1];
	if (!c->start)
		return -EINVAL;
	for (i = 0; i < cr->nmarks; i++)
		if (cr->marks[i].idx >= 1 && cr->marks[i].op >= cr->p.ops / 2) {
			sum += coverage(c, &cr->marks[i]);
			nsteady++;
		}
	c->cov_start = coverage(c, c->start);
	c->cov_end = coverage(c, c->end);
	c->cov_steady = nsteady ? sum / nsteady : NAN;
	c->huge_start = huge_folios(c, c->start);
	c->huge_end = huge_folios(c, c->end);
	nops = cr->nops ? cr->nops : NAN;
	c->per1000_split = 1000.0 * (c->end->thp_split - c->start->thp_split) / nops;
	c->per1000_alloc = 1000.0 * (c->end->thp_alloc - c->start->thp_alloc) / nops;
	c->per1000_collapse = 1000.0 * (c->end->thp_collapse -
					c->start->thp_collapse) / nops;
	c->per1000_flush = 1000.0 * (c->end->tlb_flush - c->start->tlb_flush) / nops;
	c->per1000_merge = 1000.0 * (c->end->thp_merge - c->start->thp_merge) / nops;
	c->per1000_merge_busy = 1000.0 * (c->end->thp_merge_busy -
					  c->start->thp_merge_busy) / nops;
	for (k = 0; k < cr->p.nclasses; k++) {
		class_stat(c, k, ~0u, 0, cr->p.interval, tmp, &c->start_cls[k]);
		class_stat(c, k, ~0u, cr->p.ops / 2, UINT64_MAX, tmp,
			   &c->steady_cls[k]);
	}
	return 0;
}

/* ---- churn.csv: the time series ---- */

static int write_series(FILE *f, void *arg)
{
	const struct series_arg *a = arg;
	struct csvw w;
	char sz[32], h[128];
	size_t i, j, q;
	unsigned int k;

	csvw_init(&w, f);
	fputs("mode,round,vcpu,mark,op,t_s,coverage_2m,pages_2m,pages_4k,"
	      "shmem_huge_folios,anon_huge_folios,thp_split,thp_split_pmd,"
	      "thp_alloc,thp_collapse,tlb_flush,thp_merge,thp_merge_busy", f);
	/* the classes of the first cell: every cell of a run has the same mix */
	for (k = 0; a->n && k < a->cells[0].cr->p.nclasses; k++) {
		size_str(a->cells[0].cr->p.size[k], sz, sizeof(sz));
		snprintf(h, sizeof(h), ",n_%s,p50_%s_ns,p99_%s_ns", sz, sz, sz);
		fputs(h, f);
	}
	fputc('\n', f);
	for (i = 0; i < a->n; i++) {
		const struct churn_cell *c = &a->cells[i];
		const struct churn_result *cr = c->cr;

		for (j = 1; j < cr->nmarks; j++) {
			const struct churn_mark *m = &cr->marks[j], *b = c->base;
			uint64_t prev = m->op;

			/* the interval since this vCPU's previous mark */
			for (q = j; q-- > 1;)
				if (cr->marks[q].vcpu == m->vcpu) {
					prev = cr->marks[q].op;
					break;
				}
			csvw_str(&w, churn_mode_name(&cr->p, c->res->p.mode));
			csvw_u64(&w, c->res->p.round);
			csvw_u64(&w, m->vcpu);
			csvw_u64(&w, m->idx);
			csvw_u64(&w, m->op);
			csvw_double(&w, m->t_s);
			csvw_double(&w, coverage(c, m));
			csvw_i64(&w, (int64_t)(m->pages_2m - b->pages_2m));
			csvw_i64(&w, (int64_t)(m->pages_4k - b->pages_4k));
			csvw_double(&w, huge_folios(c, m));
			csvw_double(&w, m->anon_huge_kb / 2048.0);
			csvw_u64(&w, m->thp_split - b->thp_split);
			csvw_u64(&w, m->thp_split_pmd - b->thp_split_pmd);
			csvw_u64(&w, m->thp_alloc - b->thp_alloc);
			csvw_u64(&w, m->thp_collapse - b->thp_collapse);
			csvw_u64(&w, m->tlb_flush - b->tlb_flush);
			csvw_u64(&w, m->thp_merge - b->thp_merge);
			csvw_u64(&w, m->thp_merge_busy - b->thp_merge_busy);
			for (k = 0; k < cr->p.nclasses; k++) {
				struct class_stat s;

				class_stat(c, k, m->vcpu, prev, m->op, a->tmp, &s);
				csvw_u64(&w, s.n);
				csvw_double(&w, s.p50);
				csvw_double(&w, s.p99);
			}
			csvw_end_row(&w);
		}
	}
	return csvw_error(&w) || ferror(f) ? -EIO : 0;
}

/* ---- churn-ops.csv: every operation ---- */

int churn_write_ops(FILE *f, void *arg)
{
	const struct series_arg *a = arg;
	struct csvw w;
	size_t i, j;

	csvw_init(&w, f);
	fputs("mode,round,vcpu,op,size,direction,offset,converted_pages,"
	      "total_ns,exits,copied_bytes\n", f);
	for (i = 0; i < a->n; i++) {
		const struct churn_cell *c = &a->cells[i];
		const struct churn_result *cr = c->cr;

		for (j = 0; j < cr->nops; j++) {
			const struct churn_sample *s = &cr->ops[j];

			csvw_str(&w, churn_mode_name(&cr->p, c->res->p.mode));
			csvw_u64(&w, c->res->p.round);
			csvw_u64(&w, cr->ops_vcpu[j]);
			csvw_u64(&w, s->op);
			csvw_u64(&w, cr->p.size[s->cls]);
			csvw_str(&w, s->dir == GUEST_DIR_TO_SHARED ?
				 "to-shared" : "to-private");
			csvw_u64(&w, s->off);
			csvw_u64(&w, s->converted);
			csvw_double(&w, tsc_ns(c->res, s->total));
			csvw_u64(&w, cr->ops_exits[j]);
			csvw_u64(&w, s->copied);
			csvw_end_row(&w);
		}
	}
	return csvw_error(&w) || ferror(f) ? -EIO : 0;
}

/* ---- churn.json ---- */

void churn_json_open(struct jsonw *w, FILE *f, const struct env *env,
		     const char *key)
{
	jsonw_init(w, f);
	jsonw_obj_open(w);
	jsonw_key(w, "provenance");
	jsonw_obj_open(w);
	provenance_write(w, env);
	jsonw_obj_close(w);
	jsonw_key(w, key);
	jsonw_obj_open(w);
}

int churn_json_close(struct jsonw *w)
{
	jsonw_obj_close(w);
	jsonw_obj_close(w);
	return jsonw_finish(w);
}

struct json_arg {
	const struct report *rep;
	const struct churn_cell *cells;
	size_t n;
};

static void json_class(struct jsonw *w, const char *key,
		       const struct class_stat *s)
{
	jsonw_key(w, key);
	jsonw_obj_open(w);
	jsonw_kv_u64(w, "n", s->n);
	jsonw_kv_double(w, "p50_ns", s->p50);
	jsonw_kv_double(w, "p99_ns", s->p99);
	jsonw_obj_close(w);
}

/* see churn_int.h */
void churn_json_over_rounds(struct jsonw *w, const char *key,
			    const double *v, size_t n, bool geometric)
{
	double m = NAN, lo = NAN, hi = NAN;

	if (geometric)
		stats_ratio_rounds(v, n, 0.95, &m, &lo, &hi);
	else if (n >= 2)
		stats_mean_ci_t(v, n, 0.95, &m, &lo, &hi);
	else if (n == 1)
		m = v[0];
	if (!strncmp(key, "coverage", 8)) {
		lo = lo < 0 ? 0 : lo;
		hi = hi > 1 ? 1 : hi;
	}
	jsonw_key(w, key);
	jsonw_obj_open(w);
	jsonw_kv_double(w, geometric ? "geomean" : "mean", m);
	jsonw_kv_double(w, "ci95_lo", lo);
	jsonw_kv_double(w, "ci95_hi", hi);
	jsonw_kv_u64(w, "rounds", n);
	jsonw_obj_close(w);
}

/* a per-cell value of mode m's cells over rounds */
static void json_mode_value(struct jsonw *w, const struct json_arg *a,
			    enum conv_mode m, const char *key, size_t off)
{
	double v[MAX_ROUNDS];
	size_t i, n = 0;

	for (i = 0; i < a->n; i++)
		if (a->cells[i].res->p.mode == m && n < MAX_ROUNDS)
			v[n++] = *(const double *)((const char *)&a->cells[i] + off);
	churn_json_over_rounds(w, key, v, n, false);
}

/*
 * class k's p50 (p99: its p99) at the start (steady: false) or in steady
 * state, each round's, over rounds
 */
static void json_mode_p50(struct jsonw *w, const struct json_arg *a,
			  enum conv_mode m, unsigned int k, bool steady,
			  bool p99)
{
	static const char *const key[2][2] = {
		{ "start_ns", "steady_ns" },
		{ "start_p99_ns", "steady_p99_ns" },
	};
	double v[MAX_ROUNDS];
	size_t i, n = 0;

	for (i = 0; i < a->n; i++) {
		const struct class_stat *s = steady ?
			&a->cells[i].steady_cls[k] : &a->cells[i].start_cls[k];

		if (a->cells[i].res->p.mode == m && n < MAX_ROUNDS && s->n)
			v[n++] = p99 ? s->p99 : s->p50;
	}
	churn_json_over_rounds(w, key[p99][steady], v, n, true);
}

static void json_mode(struct jsonw *w, const struct json_arg *a,
		      enum conv_mode m)
{
	const struct churn_params *cp = NULL;
	unsigned int k;
	char sz[32];
	size_t i;

	for (i = 0; i < a->n; i++)
		if (a->cells[i].res->p.mode == m)
			cp = &a->cells[i].cr->p;
	if (!cp)
		return;
	jsonw_obj_open(w);
	jsonw_kv_str(w, "mode", churn_mode_name(cp, m));
	json_mode_value(w, a, m, "coverage_2m_start",
			offsetof(struct churn_cell, cov_start));
	json_mode_value(w, a, m, "coverage_2m_steady",
			offsetof(struct churn_cell, cov_steady));
	json_mode_value(w, a, m, "thp_splits_per_1000",
			offsetof(struct churn_cell, per1000_split));
	json_mode_value(w, a, m, "thp_allocs_per_1000",
			offsetof(struct churn_cell, per1000_alloc));
	json_mode_value(w, a, m, "tlb_flushes_per_1000",
			offsetof(struct churn_cell, per1000_flush));
	json_mode_value(w, a, m, "thp_merges_per_1000",
			offsetof(struct churn_cell, per1000_merge));
	json_mode_value(w, a, m, "thp_merges_busy_per_1000",
			offsetof(struct churn_cell, per1000_merge_busy));
	jsonw_key(w, "p50");
	jsonw_arr_open(w);
	for (k = 0; k < cp->nclasses; k++) {
		jsonw_obj_open(w);
		jsonw_kv_str(w, "size", size_str(cp->size[k], sz, sizeof(sz)));
		json_mode_p50(w, a, m, k, false, false);
		json_mode_p50(w, a, m, k, true, false);
		json_mode_p50(w, a, m, k, false, true);
		json_mode_p50(w, a, m, k, true, true);
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
	jsonw_obj_close(w);
}

static int write_json(FILE *f, void *arg)
{
	const struct json_arg *a = arg;
	const struct env *env = a->rep->env;
	const struct churn_params *cp = &env->churn_p;
	struct jsonw w;
	char sz[32];
	size_t i;
	unsigned int k, m;

	churn_json_open(&w, f, env, "churn");
	jsonw_kv_str(&w, "method", "each vCPU's range starts private, whole "
		     "and written; an operation converts a sub-range of a "
		     "size drawn from the mix at a random offset (4K-aligned, "
		     "2M-aligned for 2M) to the opposite of its first page's "
		     "state, then writes and verifies it. coverage_2m: KVM's "
		     "pages_2m over mark 0's, times 2M over the ranges. start: "
		     "the first mark after the fill and the first interval's "
		     "operations; steady: the second half of the sequence. "
		     "Intervals: t over rounds (a fresh VM each), geometric "
		     "for latencies");
	jsonw_kv_u64(&w, "range_bytes", cp->range);
	jsonw_kv_u64(&w, "ops", cp->ops);
	jsonw_kv_u64(&w, "interval", cp->interval);
	jsonw_kv_u64(&w, "vcpus", env->vcpus);
	jsonw_kv_u64(&w, "seed", env->seed);
	jsonw_key(&w, "mix");
	jsonw_arr_open(&w);
	for (k = 0; k < cp->nclasses; k++) {
		jsonw_obj_open(&w);
		jsonw_kv_str(&w, "size", size_str(cp->size[k], sz, sizeof(sz)));
		jsonw_kv_u64(&w, "size_bytes", cp->size[k]);
		jsonw_kv_u64(&w, "weight", cp->weight[k]);
		jsonw_obj_close(&w);
	}
	jsonw_arr_close(&w);
	jsonw_key(&w, "cells");
	jsonw_arr_open(&w);
	for (i = 0; i < a->n; i++) {
		const struct churn_cell *c = &a->cells[i];

		jsonw_obj_open(&w);
		jsonw_kv_str(&w, "mode", churn_mode_name(&c->cr->p, c->res->p.mode));
		jsonw_kv_u64(&w, "round", c->res->p.round);
		jsonw_kv_str(&w, "shmem_thp", c->res->thp);
		jsonw_kv_u64(&w, "ops", c->cr->nops);
		jsonw_kv_str(&w, "error", c->res->error[0] ? c->res->error :
			     NULL);
		jsonw_kv_double(&w, "coverage_2m_start", c->cov_start);
		jsonw_kv_double(&w, "coverage_2m_steady", c->cov_steady);
		jsonw_kv_double(&w, "coverage_2m_end", c->cov_end);
		jsonw_kv_double(&w, "shmem_huge_folios_start", c->huge_start);
		jsonw_kv_double(&w, "shmem_huge_folios_end", c->huge_end);
		jsonw_kv_double(&w, "thp_splits_per_1000", c->per1000_split);
		jsonw_kv_double(&w, "thp_allocs_per_1000", c->per1000_alloc);
		jsonw_kv_double(&w, "thp_collapses_per_1000", c->per1000_collapse);
		jsonw_kv_double(&w, "tlb_flushes_per_1000", c->per1000_flush);
		jsonw_kv_double(&w, "thp_merges_per_1000", c->per1000_merge);
		jsonw_kv_double(&w, "thp_merges_busy_per_1000", c->per1000_merge_busy);
		jsonw_key(&w, "classes");
		jsonw_arr_open(&w);
		for (k = 0; k < c->cr->p.nclasses; k++) {
			jsonw_obj_open(&w);
			jsonw_kv_str(&w, "size", size_str(c->cr->p.size[k], sz,
							  sizeof(sz)));
			json_class(&w, "start", &c->start_cls[k]);
			json_class(&w, "steady", &c->steady_cls[k]);
			jsonw_obj_close(&w);
		}
		jsonw_arr_close(&w);
		jsonw_obj_close(&w);
	}
	jsonw_arr_close(&w);
	jsonw_key(&w, "modes");
	jsonw_arr_open(&w);
	for (m = 0; m < MODE_NR; m++)
		json_mode(&w, a, m);
	jsonw_arr_close(&w);
	return churn_json_close(&w);
}

/* ---- stdout ---- */

static void print_text(FILE *f, const struct churn_cell *cells, size_t n)
{
	char sz[32];
	size_t i;
	unsigned int k;

	if (!n)
		return;
	fprintf(f, "churn: 2M coverage of the ranges (start -> steady -> end), "
		"THP events per 1000 conversions, p50 per size (start -> steady)\n");
	for (i = 0; i < n; i++) {
		const struct churn_cell *c = &cells[i];

		fprintf(f, "%-13s round %u: 2M %5.1f%% -> %5.1f%% -> %5.1f%%, "
			"splits %.1f, merges %.1f (busy %.1f), allocs %.1f, TLB flushes %.0f\n",
			churn_mode_name(&c->cr->p, c->res->p.mode), c->res->p.round,
			100 * c->cov_start, 100 * c->cov_steady,
			100 * c->cov_end, c->per1000_split, c->per1000_merge,
			c->per1000_merge_busy, c->per1000_alloc,
			c->per1000_flush);
		for (k = 0; k < c->cr->p.nclasses; k++)
			fprintf(f, "    %-4s p50 %9.1f -> %9.1f us (n %zu -> %zu)\n",
				size_str(c->cr->p.size[k], sz, sizeof(sz)),
				c->start_cls[k].p50 / 1000,
				c->steady_cls[k].p50 / 1000, c->start_cls[k].n,
				c->steady_cls[k].n);
	}
}
int churn_report(struct report *rep, const struct cell_result *res, size_t n)
{
	struct churn_cell *cells = calloc(n ? n : 1, sizeof(*cells));
	size_t i, nc = 0, most = 1;
	double *tmp;
	int r = 0, e;

	/* room for every operation of the run (the events pool them) */
	for (i = 0; i < n; i++)
		if (res[i].churn)
			most += res[i].churn->nops;
	tmp = malloc(most * sizeof(*tmp));
	if (!cells || !tmp) {
		free(cells);
		free(tmp);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		if (!digest(&cells[nc], &res[i], tmp))
			nc++;
	if (rep->env->churn_p.events || rep->env->churn_p.accept ||
	    rep->env->churn_p.io) {
		struct series_arg ops = { cells, nc, tmp };

		r = rep->env->churn_p.events ?
		    churn_events_report(rep, res, n, &ops) :
		    rep->env->churn_p.accept ?
		    churn_accept_report(rep, res, n, &ops) :
		    churn_io_report(rep, res, n, &ops);
		free(cells);
		free(tmp);
		return r;
	}
	print_text(rep->out, cells, nc);
	if (rep->dir) {
		struct series_arg sa = { cells, nc, tmp };
		struct json_arg ja = { rep, cells, nc };

		e = report_write_file(rep, "churn.csv", write_series, &sa);
		r = r ? r : e;
		e = report_write_file(rep, "churn-ops.csv", churn_write_ops, &sa);
		r = r ? r : e;
		e = report_write_file(rep, "churn.json", write_json, &ja);
		r = r ? r : e;
	}
	free(cells);
	free(tmp);
	return r;
}
