// SPDX-License-Identifier: GPL-2.0
/* The churn workload's results: see churn_report.h */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cellstats.h"
#include "churn.h"
#include "churn_report.h"
#include "csvw.h"
#include "jsonw.h"
#include "provenance.h"
#include "stats.h"
#include "units.h"

#define SZ_2M_PAGES	512.0

struct class_stat {
	size_t n;
	double p50, p99;	/* ns; NaN without samples */
};

/* one cell (mode, round) digested */
struct churn_cell {
	const struct cell_result *res;
	const struct churn_result *cr;
	const struct churn_mark *base, *start, *end;
	double cov_start, cov_steady, cov_end;
	double huge_start, huge_end;	/* shmem 2M folios in the kernel */
	double per1000_split, per1000_alloc, per1000_collapse, per1000_flush;
	struct class_stat start_cls[CHURN_CLASSES], steady_cls[CHURN_CLASSES];
};

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
	for (k = 0; k < cr->p.nclasses; k++) {
		class_stat(c, k, ~0u, 0, cr->p.interval, tmp, &c->start_cls[k]);
		class_stat(c, k, ~0u, cr->p.ops / 2, UINT64_MAX, tmp,
			   &c->steady_cls[k]);
	}
	return 0;
}

/* ---- churn.csv: the time series ---- */

struct series_arg {
	const struct churn_cell *cells;
	size_t n;
	double *tmp;
};

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
	      "thp_alloc,thp_collapse,tlb_flush", f);
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
			csvw_str(&w, conv_mode_name(c->res->p.mode));
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

static int write_ops(FILE *f, void *arg)
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

			csvw_str(&w, conv_mode_name(c->res->p.mode));
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

/*
 * mean and 95% t interval over rounds (NaN bounds with one round); a
 * share's (a key starting with "coverage") is cut to [0, 1]
 */
static void json_over_rounds(struct jsonw *w, const char *key,
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
	json_over_rounds(w, key, v, n, false);
}

/* class k's p50 at the start (steady: false) or in steady state */
static void json_mode_p50(struct jsonw *w, const struct json_arg *a,
			  enum conv_mode m, unsigned int k, bool steady)
{
	double p50[MAX_ROUNDS];
	size_t i, n = 0;

	for (i = 0; i < a->n; i++) {
		const struct class_stat *s = steady ?
			&a->cells[i].steady_cls[k] : &a->cells[i].start_cls[k];

		if (a->cells[i].res->p.mode == m && n < MAX_ROUNDS && s->n)
			p50[n++] = s->p50;
	}
	json_over_rounds(w, steady ? "steady_ns" : "start_ns", p50, n, true);
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
	jsonw_kv_str(w, "mode", conv_mode_name(m));
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
	jsonw_key(w, "p50");
	jsonw_arr_open(w);
	for (k = 0; k < cp->nclasses; k++) {
		jsonw_obj_open(w);
		jsonw_kv_str(w, "size", size_str(cp->size[k], sz, sizeof(sz)));
		json_mode_p50(w, a, m, k, false);
		json_mode_p50(w, a, m, k, true);
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

	jsonw_init(&w, f);
	jsonw_obj_open(&w);
	jsonw_key(&w, "provenance");
	jsonw_obj_open(&w);
	provenance_write(&w, env);
	jsonw_obj_close(&w);
	jsonw_key(&w, "churn");
	jsonw_obj_open(&w);
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
		jsonw_kv_str(&w, "mode", conv_mode_name(c->res->p.mode));
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
	jsonw_obj_close(&w);
	jsonw_obj_close(&w);
	return jsonw_finish(&w);
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

		fprintf(f, "%-11s round %u: 2M %5.1f%% -> %5.1f%% -> %5.1f%%, "
			"splits %.1f, allocs %.1f, TLB flushes %.0f\n",
			conv_mode_name(c->res->p.mode), c->res->p.round,
			100 * c->cov_start, 100 * c->cov_steady,
			100 * c->cov_end, c->per1000_split, c->per1000_alloc,
			c->per1000_flush);
		for (k = 0; k < c->cr->p.nclasses; k++)
			fprintf(f, "    %-4s p50 %9.1f -> %9.1f us (n %zu -> %zu)\n",
				size_str(c->cr->p.size[k], sz, sizeof(sz)),
				c->start_cls[k].p50 / 1000,
				c->steady_cls[k].p50 / 1000, c->start_cls[k].n,
				c->steady_cls[k].n);
	}
}

/* ---- --workload=split: events ---- */

enum { EV_SPLIT, EV_REST, EV_UNIFORM, EV_NR };
static const char *const ev_name[EV_NR] = { "split", "rest", "uniform" };

/* one conversion of an event, with the work between its marks */
struct event_row {
	const struct cell_result *res;
	uint64_t event;
	unsigned int kind;
	uint64_t off;
	bool whole;		/* the range was 2M-mapped whole before the split */
	double ns;
	uint64_t host_exits;
	double exits, npt_faults, npt_fixed, d2m, d4k, splits, flushes;
};

/* the marks of vCPU 0 by their number (--workload=split runs one) */
static const struct churn_mark *mark_idx(const struct churn_result *cr,
					 uint32_t idx)
{
	size_t i;

	for (i = 0; i < cr->nmarks; i++)
		if (cr->marks[i].idx == idx && !cr->marks[i].vcpu)
			return &cr->marks[i];
	return NULL;
}

static void row_work(struct event_row *e, const struct churn_mark *a,
		     const struct churn_mark *b)
{
	e->exits = (double)b->exits - a->exits;
	e->npt_faults = (double)b->pf_taken - a->pf_taken;
	e->npt_fixed = (double)b->pf_fixed - a->pf_fixed;
	e->d2m = (double)b->pages_2m - a->pages_2m;
	e->d4k = (double)b->pages_4k - a->pages_4k;
	e->splits = (double)b->thp_split - a->thp_split;
	e->flushes = (double)b->tlb_flush - a->tlb_flush;
}

/*
 * Every event of every cell: op 2e (split) between marks 4e+1 and 4e+2,
 * the rest of the range touched (rest) between 4e+2 and 4e+3, op 2e+1
 * (uniform) between 4e+3 and 4e+4. Returns the rows (malloc'd).
 */
static struct event_row *event_rows(const struct cell_result *res, size_t n,
				    size_t *nrows)
{
	struct event_row *rows;
	size_t i, j, total = 0, k = 0;

	for (i = 0; i < n; i++)
		if (res[i].churn)
			total += res[i].churn->nops;
	rows = calloc(total ? 2 * total : 1, sizeof(*rows));
	for (i = 0; rows && i < n; i++) {
		const struct churn_result *cr = res[i].churn;
		const struct churn_mark *base = cr ? mark_idx(cr, 0) : NULL;

		for (j = 0; base && j < cr->nops; j++) {
			const struct churn_sample *s = &cr->ops[j];
			uint64_t e = s->op / 2;
			const struct churn_mark *m[5];
			unsigned int q, kind = s->op % 2 ? EV_UNIFORM : EV_SPLIT;
			bool whole;

			for (q = 1; q < 5; q++)
				m[q] = mark_idx(cr, 4 * e + q);
			if (cr->ops_vcpu[j] || !m[1] || !m[2] || !m[3] || !m[4])
				continue;
			whole = (double)m[1]->pages_2m - base->pages_2m >=
				cr->p.range / (2ULL << 20);
			for (q = kind; q <= (kind == EV_SPLIT ? EV_REST : kind); q++) {
				struct event_row *r = &rows[k++];

				r->res = &res[i];
				r->event = e;
				r->kind = q;
				r->off = s->off;
				r->whole = whole;
				r->ns = tsc_ns(&res[i], q == EV_REST ? s->rest : s->total);
				r->host_exits = q == EV_REST ? 0 : cr->ops_exits[j];
				row_work(r, m[q + 1], m[q + 2]);
			}
		}
	}
	*nrows = k;
	return rows;
}

struct events_arg {
	const struct report *rep;
	const struct event_row *rows;
	size_t n;
};

static int write_events_csv(FILE *f, void *arg)
{
	const struct events_arg *a = arg;
	struct csvw w;
	size_t i;

	csvw_init(&w, f);
	fputs("mode,round,event,kind,offset,whole_before,total_ns,exits,"
	      "npt_faults,npt_fixed,pages_2m_delta,pages_4k_delta,thp_splits,"
	      "tlb_flush_requests\n", f);
	for (i = 0; i < a->n; i++) {
		const struct event_row *r = &a->rows[i];

		csvw_str(&w, conv_mode_name(r->res->p.mode));
		csvw_u64(&w, r->res->p.round);
		csvw_u64(&w, r->event);
		csvw_str(&w, ev_name[r->kind]);
		csvw_u64(&w, r->off);
		csvw_u64(&w, r->whole);
		csvw_double(&w, r->ns);
		csvw_double(&w, r->exits);
		csvw_double(&w, r->npt_faults);
		csvw_double(&w, r->npt_fixed);
		csvw_double(&w, r->d2m);
		csvw_double(&w, r->d4k);
		csvw_double(&w, r->splits);
		csvw_double(&w, r->flushes);
		csvw_end_row(&w);
	}
	return csvw_error(&w) || ferror(f) ? -EIO : 0;
}

/*
 * The events of mode m and kind k that count: after a whole range
 * (where the mode has any), else all of them (gmem: 4K throughout)
 */
static size_t event_pick(const struct events_arg *a, enum conv_mode m,
			 unsigned int k, bool *whole_only)
{
	size_t i, nw = 0;

	for (i = 0; i < a->n; i++)
		nw += a->rows[i].res->p.mode == m && a->rows[i].kind == k &&
		      a->rows[i].whole;
	*whole_only = nw > 0;
	return nw;
}

static bool event_in(const struct event_row *r, enum conv_mode m,
		     unsigned int k, bool whole_only)
{
	return r->res->p.mode == m && r->kind == k &&
	       (!whole_only || r->whole);
}

/* the median of a work field of the picked events */
static double event_median(const struct events_arg *a, enum conv_mode m,
			   unsigned int k, bool whole_only, size_t off,
			   double *tmp)
{
	size_t i, n = 0;
	double med = NAN;

	for (i = 0; i < a->n; i++)
		if (event_in(&a->rows[i], m, k, whole_only))
			tmp[n++] = *(const double *)((const char *)&a->rows[i] + off);
	stats_median(tmp, n, &med);
	return med;
}

static void json_events(struct jsonw *w, const struct events_arg *a,
			double *tmp)
{
	static const struct { const char *key; size_t off; } work[] = {
		{ "exits", offsetof(struct event_row, exits) },
		{ "npt_faults", offsetof(struct event_row, npt_faults) },
		{ "npt_fixed", offsetof(struct event_row, npt_fixed) },
		{ "pages_2m_delta", offsetof(struct event_row, d2m) },
		{ "pages_4k_delta", offsetof(struct event_row, d4k) },
		{ "thp_splits", offsetof(struct event_row, splits) },
		{ "tlb_flush_requests", offsetof(struct event_row, flushes) },
	};
	double p50[MAX_ROUNDS];
	unsigned int m, k, q;
	size_t i, j, n, all;
	bool whole_only;

	jsonw_key(w, "events");
	jsonw_arr_open(w);
	for (m = 0; m < MODE_NR; m++)
		for (k = 0; k < EV_NR; k++) {
			for (i = 0, all = 0; i < a->n; i++)
				all += a->rows[i].res->p.mode == m &&
				       a->rows[i].kind == k;
			if (!all)
				continue;
			n = event_pick(a, m, k, &whole_only);
			jsonw_obj_open(w);
			jsonw_kv_str(w, "mode", conv_mode_name(m));
			jsonw_kv_str(w, "kind", ev_name[k]);
			jsonw_kv_u64(w, "events", all);
			jsonw_kv_u64(w, "after_whole_2m", n);
			jsonw_kv_bool(w, "counted_only_after_whole_2m", whole_only);
			/* per round: the p50 of its events; over rounds */
			for (q = 0, j = 0; q < MAX_ROUNDS; q++) {
				size_t c = 0;

				for (i = 0; i < a->n; i++)
					if (event_in(&a->rows[i], m, k, whole_only) &&
					    a->rows[i].res->p.round == q)
						tmp[c++] = a->rows[i].ns;
				if (c && !stats_median(tmp, c, &p50[j]))
					j++;
			}
			json_over_rounds(w, "p50_ns", p50, j, true);
			jsonw_key(w, "work_median");
			jsonw_obj_open(w);
			for (q = 0; q < sizeof(work) / sizeof(work[0]); q++)
				jsonw_kv_double(w, work[q].key,
						event_median(a, m, k, whole_only,
							     work[q].off, tmp));
			jsonw_obj_close(w);
			jsonw_obj_close(w);
		}
	jsonw_arr_close(w);
}

static void print_events(FILE *f, const struct events_arg *a, double *tmp)
{
	unsigned int m, k;
	bool whole_only;
	double med;
	size_t i, n;

	for (m = 0; m < MODE_NR; m++)
		for (k = 0; k < EV_NR; k++) {
			for (i = 0, n = 0; i < a->n; i++)
				if (a->rows[i].res->p.mode == m && a->rows[i].kind == k)
					tmp[n++] = a->rows[i].ns;
			if (!n)
				continue;
			event_pick(a, m, k, &whole_only);
			med = event_median(a, m, k, whole_only,
					   offsetof(struct event_row, ns), tmp);
			fprintf(f, "%-11s %-7s p50 %8.1f us%s; per event: NPT faults %.0f, 2M entries %+.0f, 4K entries %+.0f, THP splits %.0f, flush requests %.0f\n",
				conv_mode_name(m), ev_name[k], med / 1000,
				whole_only ? "" : " (no whole 2M before)",
				event_median(a, m, k, whole_only, offsetof(struct event_row, npt_faults), tmp),
				event_median(a, m, k, whole_only, offsetof(struct event_row, d2m), tmp),
				event_median(a, m, k, whole_only, offsetof(struct event_row, d4k), tmp),
				event_median(a, m, k, whole_only, offsetof(struct event_row, splits), tmp),
				event_median(a, m, k, whole_only, offsetof(struct event_row, flushes), tmp));
		}
}

struct ev_json_arg {
	struct events_arg ev;
	double *tmp;
};

static int write_events_json(FILE *f, void *arg)
{
	const struct ev_json_arg *a = arg;
	const struct env *env = a->ev.rep->env;
	struct jsonw w;
	char sz[32];

	jsonw_init(&w, f);
	jsonw_obj_open(&w);
	jsonw_key(&w, "provenance");
	jsonw_obj_open(&w);
	provenance_write(&w, env);
	jsonw_obj_close(&w);
	jsonw_key(&w, "split");
	jsonw_obj_open(&w);
	jsonw_kv_str(&w, "method", "events: the range punched out of the "
		     "private fd, allocated again and written (untimed: the "
		     "kernel allocates it afresh, huge where it can), then one "
		     "piece at a random offset converted to shared (split), "
		     "the rest of the range touched (rest: the faults the "
		     "split leaves for later) and the piece converted back "
		     "(uniform), each timed by the guest from its request to "
		     "the piece usable; its work is what KVM and the kernel "
		     "counted between the marks around it. Only events after "
		     "a whole 2M-mapped range count where a mode has any. p50: "
		     "per round, then geometric mean and t interval over rounds");
	jsonw_kv_u64(&w, "range_bytes", env->churn_p.range);
	jsonw_kv_str(&w, "piece", size_str(env->churn_p.size[0], sz, sizeof(sz)));
	jsonw_kv_u64(&w, "seed", env->seed);
	json_events(&w, &a->ev, a->tmp);
	jsonw_obj_close(&w);
	jsonw_obj_close(&w);
	return jsonw_finish(&w);
}

/* --workload=split's results: events.csv, churn-ops.csv, churn.json */
static int events_report(struct report *rep, const struct cell_result *res,
			 size_t n, struct churn_cell *cells, size_t nc,
			 double *tmp)
{
	struct ev_json_arg ja = { { rep, NULL, 0 }, tmp };
	struct series_arg sa = { cells, nc, tmp };
	int r = 0, e;

	ja.ev.rows = event_rows(res, n, &ja.ev.n);
	if (!ja.ev.rows)
		return -ENOMEM;
	print_events(rep->out, &ja.ev, tmp);
	if (rep->dir) {
		e = report_write_file(rep, "events.csv", write_events_csv, &ja.ev);
		r = r ? r : e;
		e = report_write_file(rep, "churn-ops.csv", write_ops, &sa);
		r = r ? r : e;
		e = report_write_file(rep, "churn.json", write_events_json, &ja);
		r = r ? r : e;
	}
	free((void *)ja.ev.rows);
	return r;
}

/* ---- --workload=accept: a boot's conversion storm ---- */

enum { SW_ACCEPT, SW_POOL, SW_NR };
static const char *const sw_name[SW_NR] = { "accept", "pool" };

/* one sweep of one cell */
struct sweep_row {
	const struct cell_result *res;
	uint64_t chunk;
	unsigned int sweep;
	uint64_t chunks;	/* conversions, every vCPU's */
	double ms;		/* their latencies summed */
	double p50_ns;
	double mib;		/* converted: the ranges */
	double exits, faults;	/* userspace exits; NPT faults (KVM) */
};

static struct sweep_row *sweep_rows(const struct cell_result *res, size_t n,
				    double *tmp, size_t *nrows)
{
	struct sweep_row *rows = calloc(2 * n + 1, sizeof(*rows));
	size_t i, j, k = 0, c;
	unsigned int sw, v;

	for (i = 0; rows && i < n; i++) {
		const struct churn_result *cr = res[i].churn;
		uint64_t per;

		if (!cr || !cr->p.accept)
			continue;
		per = cr->p.range / cr->p.size[0];
		for (sw = 0; sw < SW_NR; sw++) {
			struct sweep_row *r = &rows[k++];

			r->res = &res[i];
			r->chunk = cr->p.size[0];
			r->sweep = sw;
			r->mib = (double)cr->p.range * res[i].p.vcpus / (1 << 20);
			for (j = 0, c = 0; j < cr->nops; j++) {
				uint64_t op = cr->ops[j].op;

				if (op < 1 + sw * per || op >= 1 + (sw + 1) * per)
					continue;
				tmp[c++] = tsc_ns(&res[i], cr->ops[j].total);
				r->ms += tmp[c - 1] / 1e6;
				r->exits += cr->ops_exits[j];
			}
			r->chunks = c;
			r->p50_ns = NAN;
			stats_median(tmp, c, &r->p50_ns);
			/* NPT faults between the sweep's marks, each vCPU's */
			for (v = 0; v < res[i].p.vcpus; v++) {
				const struct churn_mark *a = NULL, *b = NULL;

				for (j = 0; j < cr->nmarks; j++) {
					if (cr->marks[j].vcpu != v)
						continue;
					if (cr->marks[j].idx == 1 + sw)
						a = &cr->marks[j];
					if (cr->marks[j].idx == 2 + sw)
						b = &cr->marks[j];
				}
				if (a && b)
					r->faults += (double)b->pf_taken - a->pf_taken;
				else
					r->faults = NAN;
			}
		}
	}
	*nrows = k;
	return rows;
}

struct sweeps_arg {
	const struct report *rep;
	const struct sweep_row *rows;
	size_t n;
};

static int write_accept_csv(FILE *f, void *arg)
{
	const struct sweeps_arg *a = arg;
	struct csvw w;
	size_t i;

	csvw_init(&w, f);
	fputs("mode,round,chunk_bytes,sweep,conversions,ms,ms_per_mib,"
	      "exits_per_mib,npt_faults_per_mib,p50_ns\n", f);
	for (i = 0; i < a->n; i++) {
		const struct sweep_row *r = &a->rows[i];

		csvw_str(&w, conv_mode_name(r->res->p.mode));
		csvw_u64(&w, r->res->p.round);
		csvw_u64(&w, r->chunk);
		csvw_str(&w, sw_name[r->sweep]);
		csvw_u64(&w, r->chunks);
		csvw_double(&w, r->ms);
		csvw_double(&w, r->ms / r->mib);
		csvw_double(&w, r->exits / r->mib);
		csvw_double(&w, r->faults / r->mib);
		csvw_double(&w, r->p50_ns);
		csvw_end_row(&w);
	}
	return csvw_error(&w) || ferror(f) ? -EIO : 0;
}

/* a field of the sweeps of (mode, chunk, sweep), over rounds */
static void json_sweep_value(struct jsonw *w, const struct sweeps_arg *a,
			     const struct sweep_row *like, const char *key,
			     double (*of)(const struct sweep_row *), bool geo)
{
	double v[MAX_ROUNDS];
	size_t i, n = 0;

	for (i = 0; i < a->n && n < MAX_ROUNDS; i++)
		if (a->rows[i].res->p.mode == like->res->p.mode &&
		    a->rows[i].chunk == like->chunk &&
		    a->rows[i].sweep == like->sweep)
			v[n++] = of(&a->rows[i]);
	json_over_rounds(w, key, v, n, geo);
}

static double sw_ms_mib(const struct sweep_row *r) { return r->ms / r->mib; }
static double sw_exits_mib(const struct sweep_row *r) { return r->exits / r->mib; }
static double sw_faults_mib(const struct sweep_row *r) { return r->faults / r->mib; }
static double sw_p50(const struct sweep_row *r) { return r->p50_ns; }

static int write_accept_json(FILE *f, void *arg)
{
	const struct sweeps_arg *a = arg;
	const struct env *env = a->rep->env;
	struct jsonw w;
	char sz[32];
	size_t i, j;

	jsonw_init(&w, f);
	jsonw_obj_open(&w);
	jsonw_key(&w, "provenance");
	jsonw_obj_open(&w);
	provenance_write(&w, env);
	jsonw_obj_close(&w);
	jsonw_key(&w, "accept");
	jsonw_obj_open(&w);
	jsonw_kv_str(&w, "method", "a cell per chunk size (a fresh VM): the "
		     "range made shared (untimed), then private chunk by chunk "
		     "(accept: a guest accepting its memory at boot), then "
		     "shared chunk by chunk (pool: a swiotlb pool set up); each "
		     "conversion timed by the guest until its chunk is written "
		     "(zeroes expected: the content need not survive). Per "
		     "MiB: the sweep's summed latencies, userspace exits and "
		     "KVM's NPT faults over the range; over rounds: mean and t "
		     "interval, geometric for ms per MiB and the p50 of one "
		     "chunk's conversion");
	jsonw_kv_u64(&w, "range_bytes", env->churn_p.range);
	jsonw_kv_u64(&w, "vcpus", env->vcpus);
	jsonw_key(&w, "sweeps");
	jsonw_arr_open(&w);
	for (i = 0; i < a->n; i++) {
		const struct sweep_row *r = &a->rows[i];

		/* once per (mode, chunk, sweep): its first row */
		for (j = 0; j < i; j++)
			if (a->rows[j].res->p.mode == r->res->p.mode &&
			    a->rows[j].chunk == r->chunk &&
			    a->rows[j].sweep == r->sweep)
				break;
		if (j < i)
			continue;
		jsonw_obj_open(&w);
		jsonw_kv_str(&w, "mode", conv_mode_name(r->res->p.mode));
		jsonw_kv_str(&w, "chunk", size_str(r->chunk, sz, sizeof(sz)));
		jsonw_kv_u64(&w, "chunk_bytes", r->chunk);
		jsonw_kv_str(&w, "sweep", sw_name[r->sweep]);
		jsonw_kv_u64(&w, "conversions", r->chunks);
		/* a positive quantity: its interval on the log scale */
		json_sweep_value(&w, a, r, "ms_per_mib", sw_ms_mib, true);
		json_sweep_value(&w, a, r, "exits_per_mib", sw_exits_mib, false);
		json_sweep_value(&w, a, r, "npt_faults_per_mib", sw_faults_mib, false);
		json_sweep_value(&w, a, r, "p50_ns", sw_p50, true);
		jsonw_obj_close(&w);
	}
	jsonw_arr_close(&w);
	jsonw_obj_close(&w);
	jsonw_obj_close(&w);
	return jsonw_finish(&w);
}

static void print_sweeps(FILE *f, const struct sweeps_arg *a)
{
	char sz[32];
	size_t i;

	for (i = 0; i < a->n; i++) {
		const struct sweep_row *r = &a->rows[i];

		fprintf(f, "%-11s round %u, %-4s chunks, %-6s: %8.2f ms/MiB, %7.1f exits/MiB, %7.1f NPT faults/MiB, p50 %.1f us\n",
			conv_mode_name(r->res->p.mode), r->res->p.round,
			size_str(r->chunk, sz, sizeof(sz)), sw_name[r->sweep],
			r->ms / r->mib, r->exits / r->mib, r->faults / r->mib,
			r->p50_ns / 1000);
	}
}

/* --workload=accept's results: accept.csv, churn-ops.csv, churn.json */
static int accept_report(struct report *rep, const struct cell_result *res,
			 size_t n, struct churn_cell *cells, size_t nc,
			 double *tmp)
{
	struct sweeps_arg sa = { rep, NULL, 0 };
	struct series_arg oa = { cells, nc, tmp };
	int r = 0, e;

	sa.rows = sweep_rows(res, n, tmp, &sa.n);
	if (!sa.rows)
		return -ENOMEM;
	print_sweeps(rep->out, &sa);
	if (rep->dir) {
		e = report_write_file(rep, "accept.csv", write_accept_csv, &sa);
		r = r ? r : e;
		e = report_write_file(rep, "churn-ops.csv", write_ops, &oa);
		r = r ? r : e;
		e = report_write_file(rep, "churn.json", write_accept_json, &sa);
		r = r ? r : e;
	}
	free((void *)sa.rows);
	return r;
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
	if (rep->env->churn_p.events || rep->env->churn_p.accept) {
		r = rep->env->churn_p.events ?
		    events_report(rep, res, n, cells, nc, tmp) :
		    accept_report(rep, res, n, cells, nc, tmp);
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
		e = report_write_file(rep, "churn-ops.csv", write_ops, &sa);
		r = r ? r : e;
		e = report_write_file(rep, "churn.json", write_json, &ja);
		r = r ? r : e;
	}
	free(cells);
	free(tmp);
	return r;
}
