// SPDX-License-Identifier: GPL-2.0
/* convbench --merge: make bench's boots as one run, see merge.h */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cellstats.h"
#include "design.h"
#include "history.h"
#include "jsonr.h"
#include "merge.h"
#include "options.h"
#include "report.h"
#include "samples.h"
#include "stats.h"
#include "summary_json.h"
#include "trace_csv.h"
#include "work_counts.h"

/* the probes' overhead goals of issue 10, under TCG */
#define GOAL_2M_PCT	5.0
#define GOAL_4K_PCT	15.0

struct merge {
	struct boot *boots;
	size_t nboots;
	struct cell_result *plain, *traced;	/* valid boots' rounds */
	size_t nplain, ntraced;
	struct run_stats plain_rs, traced_rs;
	struct csv_sum trace_buckets, trace_totals;
	bool have_trace;
	/* --design: make bench's, rebuilt from its parameters */
	struct design design;
	bool have_design;
	bool *design_valid;	/* per design boot: left out or not */
};

static void say_balance(void *arg, const char *line)
{
	(void)arg;
	fprintf(stderr, "convbench: --merge: design: %s\n", line);
}

void merge_design_slots(const struct design *d, unsigned int k,
			struct cell_result *res, size_t n)
{
	const struct design_boot *b;
	size_t i;

	for (i = 0; d && i < n; i++) {
		b = design_round_boot(d, k, res[i].p.mode == MODE_GMEM ?
				      DESIGN_K_GMEM : DESIGN_K_V5);
		res[i].p.boot_slot = b ? b->slot + 1 : 0;
	}
}

/*
 * --design: the boots' slots and which design boots were left out: this
 * merge's own, and the gmem boots' from the gmem run's rounds; a boot of
 * the other kernel that this merge does not see (the gmem merge's v5
 * boots) counts as run. The balance over the valid boots goes to stderr.
 */
static int merge_design(struct merge *m, const struct env *env)
{
	enum design_kernel mine = DESIGN_K_V5;
	struct design_params p;
	const struct jv *rounds = NULL;
	struct jv *gsum = NULL;
	char path[4096], err[256];
	unsigned int i, bad;
	size_t j;

	env_design_params(env, &p);
	if (design_build(&p, &m->design)) {
		fprintf(stderr, "convbench: --merge: --design: no design of these parameters\n");
		return -EINVAL;
	}
	m->have_design = true;
	m->design_valid = calloc(m->design.nboots, sizeof(bool));
	if (!m->design_valid)
		return -ENOMEM;
	/* this merge's kernel: its cells' */
	for (j = 0; j < m->nboots; j++)
		if (m->boots[j].nplain) {
			mine = m->boots[j].plain[0].p.mode == MODE_GMEM ?
			       DESIGN_K_GMEM : DESIGN_K_V5;
			break;
		}
	if (env->gmem_run) {
		snprintf(path, sizeof(path), "%s/summary.json", env->gmem_run);
		gsum = jsonr_load(path, err, sizeof(err));
		rounds = jv_get(gsum, "rounds");
	}
	for (i = 0; i < m->design.nboots; i++) {
		const struct design_boot *b = &m->design.boot[i];
		const struct jv *r;

		m->design_valid[i] = true;
		if (b->kernel == DESIGN_K_GMEM && env->gmem_run) {
			for (j = 0; (r = jv_at(rounds, j)); j++)
				if (jv_num(jv_get(r, "round"), -1) == b->round)
					m->design_valid[i] =
						jv_bool(jv_get(r, "valid"), false);
			continue;
		}
		if (b->kernel != mine)
			continue;
		m->design_valid[i] = false;	/* unless its boot is here */
		for (j = 0; j < m->nboots; j++)
			if (m->boots[j].k == b->round)
				m->design_valid[i] = m->boots[j].valid;
	}
	jsonr_free(gsum);
	for (j = 0; j < m->nboots; j++) {
		merge_design_slots(&m->design, m->boots[j].k, m->boots[j].plain,
				   m->boots[j].nplain);
		merge_design_slots(&m->design, m->boots[j].k,
				   m->boots[j].traced, m->boots[j].ntraced);
	}
	bad = design_check(&m->design, m->design_valid, say_balance, NULL);
	if (bad)
		fprintf(stderr, "convbench: --merge: the boots left in are not balanced (%u findings, in summary.json's design.balance)\n",
			bad);
	return 0;
}

static void design_json_extra(struct jsonw *w, void *arg)
{
	struct merge *m = arg;

	design_json(w, &m->design, m->design_valid);
}

/* append the cells of src to *dst (moving the samples) */
static int take(struct cell_result **dst, size_t *n, struct cell_result *src,
		size_t nsrc)
{
	struct cell_result *d;

	if (!nsrc)
		return 0;
	d = realloc(*dst, (*n + nsrc) * sizeof(*d));
	if (!d)
		return -ENOMEM;
	memcpy(d + *n, src, nsrc * sizeof(*d));
	memset(src, 0, nsrc * sizeof(*src));
	*dst = d;
	*n += nsrc;
	return 0;
}

/* ---- work counts: each boot's counts run, and whether they agree ---- */

static const struct jv *counts_cell(const struct boot *b,
				    const struct cell_stats *c)
{
	return jv_get(summary_find(jv_get(b->counts_sum, "cells"),
				   conv_mode_name(c->mode), c->size,
				   conv_dir_name(c->dir)), "work");
}

static void work_json(struct jsonw *w, const struct cell_stats *c, void *arg)
{
	const struct merge *m = arg;
	unsigned int k;
	size_t i;

	jsonw_obj_open(w);
	jsonw_kv_str(w, "source", "convbench --counts in every valid boot; "
		     "per_conversion: mean over boots; exact: every boot "
		     "counted the same");
	for (k = 0; k < WC_NR; k++) {
		double lo = INFINITY, hi = -INFINITY, sum = 0;
		const char *why = "no counts run";
		size_t nb = 0;

		jsonw_key(w, work_count_name[k]);
		jsonw_obj_open(w);
		jsonw_key(w, "boots");
		jsonw_arr_open(w);
		for (i = 0; i < m->nboots; i++) {
			const struct jv *x = jv_get(counts_cell(&m->boots[i], c),
						    work_count_name[k]);
			double v = jv_num(jv_get(x, "per_conversion"), NAN);

			if (!m->boots[i].valid)
				continue;
			if (isnan(v)) {
				why = jv_str(jv_get(x, "not_counted_why"), why);
				continue;
			}
			jsonw_double(w, v);
			lo = fmin(lo, v);
			hi = fmax(hi, v);
			sum += v;
			nb++;
		}
		jsonw_arr_close(w);
		if (nb) {
			jsonw_kv_double(w, "per_conversion", sum / nb);
			jsonw_kv_bool(w, "exact", lo == hi);
		} else {
			jsonw_kv_str(w, "not_counted_why", why);
		}
		jsonw_obj_close(w);
	}
	jsonw_obj_close(w);
}

/* ---- overhead: traced over untraced p50, boot by boot ---- */

struct overhead {
	double plain_p50, traced_p50, ratio, lo, hi;
	unsigned int nrounds;
	double hits_per_conv;
	bool ok;
	/*
	 * the probes' cost calibrated in each boot (probe_cal.h): its
	 * median over the boots, ns per hit; per boot the traced p50 less
	 * hits per conversion x that boot's cost, over the untraced p50:
	 * geometric mean and CI over the boots (ncorr of them)
	 */
	double ns_per_hit, corr, corr_lo, corr_hi;
	unsigned int ncorr;
};

/*
 * The probes' cost per hit in a boot, ns: the traced phase's
 * calibration (ns per fallocate call, the probes running) less the
 * untraced phase's, over the traced one's hits per call. NaN when a
 * phase has no calibration.
 */
static double probe_ns_per_hit(const struct boot *b)
{
	const struct jv *p = jv_get(b->plain_sum, "probe_calibration");
	const struct jv *t = jv_get(b->traced_sum, "probe_calibration");
	double hp = jv_num(jv_get(t, "hits_per_call"), NAN);
	double np = jv_num(jv_get(p, "ns_per_call"), NAN);
	double nt = jv_num(jv_get(t, "ns_per_call"), NAN);

	if (!jv_bool(jv_get(p, "ok"), false) ||
	    !jv_bool(jv_get(t, "ok"), false) || !(hp > 0) || !(np > 0) ||
	    !(nt > 0))
		return NAN;
	return (nt - np) / hp;
}

static const struct boot *boot_of(const struct merge *m, unsigned int k)
{
	size_t i;

	for (i = 0; i < m->nboots; i++)
		if (m->boots[i].k == k && m->boots[i].valid)
			return &m->boots[i];
	return NULL;
}

/* hits per recorded conversion of a cell, over the traced boots */
static double hits_per_conversion(const struct merge *m,
				  const struct cell_stats *c)
{
	double hits = 0, conv = 0;
	char name[96], sz[32];
	size_t i, j;

	snprintf(name, sizeof(name), "%s %s %s", conv_mode_name(c->mode),
		 size_str(c->size, sz, sizeof(sz)), conv_dir_name(c->dir));
	for (i = 0; i < m->nboots; i++) {
		const struct jv *ctx = jv_get(jv_get(m->boots[i].traced_sum,
						     "trace"), "contexts");

		if (!m->boots[i].valid)
			continue;
		for (j = 0; j < jv_len(ctx); j++) {
			const struct jv *x = jv_at(ctx, j);

			if (strcmp(jv_str(jv_get(x, "context"), ""), name))
				continue;
			hits += jv_num(jv_get(x, "hits"), 0);
			conv += jv_num(jv_get(x, "conversions"), 0);
		}
	}
	return conv ? hits / conv : NAN;
}

static void overhead_of(const struct merge *m, const struct cell_stats *p,
			struct overhead *o)
{
	const struct cell_stats *t = run_stats_cell(&m->traced_rs, p->mode,
						    p->size, p->dir);
	double r[MAX_ROUNDS], rc[MAX_ROUNDS], cal[MAX_ROUNDS], g, c, x;
	unsigned int a, b, ncal = 0;
	const struct boot *bt;

	memset(o, 0, sizeof(*o));
	o->lo = o->hi = o->ratio = NAN;
	o->ns_per_hit = o->corr = o->corr_lo = o->corr_hi = NAN;
	if (!t || !t->n || !p->n)
		return;
	o->ok = true;
	o->plain_p50 = p->pct[CS_P50];
	o->traced_p50 = t->pct[CS_P50];
	o->hits_per_conv = hits_per_conversion(m, p);
	for (a = 0; a < p->nrounds; a++)
		for (b = 0; b < t->nrounds; b++) {
			if (t->round[b].round != p->round[a].round ||
			    !(p->round[a].pct[CS_P50] > 0))
				continue;
			r[o->nrounds++] = t->round[b].pct[CS_P50] /
					  p->round[a].pct[CS_P50];
			bt = boot_of(m, p->round[a].round);
			c = bt ? probe_ns_per_hit(bt) : NAN;
			if (isnan(c) || isnan(o->hits_per_conv))
				continue;
			cal[ncal] = c;
			x = (t->round[b].pct[CS_P50] - o->hits_per_conv * c) /
			    p->round[a].pct[CS_P50];
			if (x > 0)
				rc[o->ncorr++] = x;
			ncal++;
		}
	if (o->nrounds)
		stats_ratio_rounds(r, o->nrounds, CS_CONF, &g, &o->lo, &o->hi);
	o->ratio = o->nrounds ? g : NAN;
	if (ncal)
		o->ns_per_hit = stats_select_percentile(cal, ncal, 50);
	if (o->ncorr)
		stats_ratio_rounds(rc, o->ncorr, CS_CONF, &o->corr,
				   &o->corr_lo, &o->corr_hi);
}

static void overhead_json(struct jsonw *w, void *arg)
{
	const struct merge *m = arg;
	struct overhead o;
	char sz[32];
	size_t i;

	jsonw_obj_open(w);
	jsonw_kv_str(w, "method", "per boot the traced and the untraced round "
		     "(which first alternates by boot); overhead = traced p50 "
		     "/ untraced p50 - 1, geometric mean over boots with a 95% "
		     "t interval. Corrected: per boot the traced p50 less hits "
		     "per conversion x the probes' cost per hit calibrated in "
		     "that boot (summary.json probe_calibration of both phases: "
		     "fallocate calls on a shmem page, shmem_fallocate traced, "
		     "ns per call traced less untraced over hits per call), "
		     "over the untraced p50; within 5% is the check");
	jsonw_key(w, "cells");
	jsonw_arr_open(w);
	for (i = 0; i < m->plain_rs.ncells; i++) {
		const struct cell_stats *c = &m->plain_rs.cells[i];

		overhead_of(m, c, &o);
		if (!o.ok)
			continue;
		jsonw_obj_open(w);
		jsonw_kv_str(w, "mode", conv_mode_name(c->mode));
		jsonw_kv_str(w, "size", size_str(c->size, sz, sizeof(sz)));
		jsonw_kv_str(w, "direction", conv_dir_name(c->dir));
		jsonw_kv_double(w, "p50_untraced_ns", o.plain_p50);
		jsonw_kv_double(w, "p50_traced_ns", o.traced_p50);
		jsonw_kv_double(w, "p50_difference_ns", o.traced_p50 - o.plain_p50);
		jsonw_kv_double(w, "overhead_pct", 100 * (o.ratio - 1));
		jsonw_kv_double(w, "overhead_pct_ci95_lo", 100 * (o.lo - 1));
		jsonw_kv_double(w, "overhead_pct_ci95_hi", 100 * (o.hi - 1));
		jsonw_kv_u64(w, "rounds", o.nrounds);
		jsonw_kv_double(w, "hits_per_conversion", o.hits_per_conv);
		jsonw_kv_double(w, "probe_ns_per_hit", o.ns_per_hit);
		jsonw_kv_double(w, "p50_traced_corrected_ns",
				o.traced_p50 - o.hits_per_conv * o.ns_per_hit);
		jsonw_kv_double(w, "corrected_pct", 100 * (o.corr - 1));
		jsonw_kv_double(w, "corrected_pct_ci95_lo",
				100 * (o.corr_lo - 1));
		jsonw_kv_double(w, "corrected_pct_ci95_hi",
				100 * (o.corr_hi - 1));
		jsonw_kv_u64(w, "corrected_rounds", o.ncorr);
		if (o.ncorr)
			jsonw_kv_bool(w, "corrected_within_5pct",
				      fabs(o.corr - 1) <= 0.05);
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
	jsonw_obj_close(w);
}

/* "MODE SIZE DIRECTION" of a cell */
static const char *cell_label(const struct cell_stats *c, char *buf,
			      size_t len)
{
	char sz[32];

	snprintf(buf, len, "%s %s %s", conv_mode_name(c->mode),
		 size_str(c->size, sz, sizeof(sz)), conv_dir_name(c->dir));
	return buf;
}

/* a ratio's CI as percent changes, "(n/a, N round)" without one */
static void ratio_ci_pct(double lo, double hi, unsigned int n, char *buf,
			 size_t len)
{
	if (isnan(lo))
		snprintf(buf, len, "(n/a, %u round)", n);
	else
		snprintf(buf, len, "(%+.1f%%..%+.1f%%)", 100 * (lo - 1),
			 100 * (hi - 1));
}

static void overhead_text(FILE *f, void *arg)
{
	const struct merge *m = arg;
	struct overhead o;
	char name[64], sz[32], ci[40];
	size_t i;

	fprintf(f, "\nBPF probe overhead: traced and untraced rounds alternate "
		"in each boot; traced p50 over untraced p50 per boot, geometric "
		"mean and 95%% t interval over boots\n");
	fprintf(f, "%-26s %11s %11s %9s %-21s %8s %7s\n", "cell", "p50 plain",
		"p50 traced", "overhead", "(95% CI)", "hits/cv", "ns/hit");
	for (i = 0; i < m->plain_rs.ncells; i++) {
		const struct cell_stats *c = &m->plain_rs.cells[i];
		double d;

		overhead_of(m, c, &o);
		if (!o.ok)
			continue;
		cell_label(c, name, sizeof(name));
		ratio_ci_pct(o.lo, o.hi, o.nrounds, ci, sizeof(ci));
		d = o.traced_p50 - o.plain_p50;
		fprintf(f, "%-26s %11.0f %11.0f %+8.1f%% %-21s %8.1f %7s\n",
			name, o.plain_p50, o.traced_p50, 100 * (o.ratio - 1),
			ci, o.hits_per_conv, o.hits_per_conv > 0 ?
			(snprintf(sz, sizeof(sz), "%.0f", d / o.hits_per_conv),
			 sz) : "-");
	}
	fprintf(f, "goal for the default probe set under TCG: <= %.0f%% at 2M, "
		"<= %.0f%% at 4K (issue 10); ns/hit: p50 difference over "
		"probe hits per conversion\n", GOAL_2M_PCT, GOAL_4K_PCT);
	fprintf(f, "\ncorrected: per boot, traced p50 less hits/cv x the "
		"probes' cost per hit calibrated in that boot, over untraced "
		"p50 (the check: within 5%%)\n");
	fprintf(f, "%-26s %9s %12s %9s %-21s %s\n", "cell", "cal ns/hit",
		"p50 tr corr", "residual", "(95% CI)", "within 5%");
	for (i = 0; i < m->plain_rs.ncells; i++) {
		const struct cell_stats *c = &m->plain_rs.cells[i];

		overhead_of(m, c, &o);
		if (!o.ok || !o.ncorr)
			continue;
		cell_label(c, name, sizeof(name));
		ratio_ci_pct(o.corr_lo, o.corr_hi, o.ncorr, ci, sizeof(ci));
		fprintf(f, "%-26s %9.0f %12.0f %+8.1f%% %-21s %s\n", name,
			o.ns_per_hit, o.traced_p50 - o.hits_per_conv *
			o.ns_per_hit, 100 * (o.corr - 1), ci,
			fabs(o.corr - 1) <= 0.05 ? "yes" : "no");
	}
}

static int overhead_file(FILE *f, void *arg)
{
	overhead_text(f, arg);
	return ferror(f) ? -EIO : 0;
}

/* ---- trace: summed over the traced boots ---- */

static int read_traces(struct merge *m, const char *dir)
{
	char path[4096], err[512];
	size_t i;
	int r;

	for (i = 0; i < m->nboots; i++) {
		if (!m->boots[i].valid || !m->boots[i].traced_sum)
			continue;
		snprintf(path, sizeof(path), "%s/boot-%u/traced/trace.csv",
			 dir, m->boots[i].k);
		r = csv_sum_add(&m->trace_buckets, path, trace_csv_col_name,
				TRACE_CSV_KEYS,
				trace_csv_col_name + TRACE_CSV_KEYS,
				TRACE_CSV_NR - TRACE_CSV_KEYS, err, sizeof(err));
		snprintf(path, sizeof(path), "%s/boot-%u/traced/trace-totals.csv",
			 dir, m->boots[i].k);
		r = r ? r : csv_sum_add(&m->trace_totals, path,
				trace_totals_col_name, TRACE_TOTALS_KEYS,
				trace_totals_col_name + TRACE_TOTALS_KEYS,
				TRACE_TOTALS_NR - TRACE_TOTALS_KEYS,
				err, sizeof(err));
		if (r) {
			fprintf(stderr, "convbench: --merge: %s\n", err);
			return r;
		}
		m->have_trace = true;
	}
	return 0;
}

/* a trace-totals.csv column's index among a csv_sum's sums */
#define TOTAL(c)	(TRACE_TOTALS_##c - TRACE_TOTALS_KEYS)

static void trace_json(struct jsonw *w, void *arg)
{
	const struct merge *m = arg;
	const struct jv *first = NULL;
	const struct csv_sum *t = &m->trace_totals;
	size_t i;

	for (i = 0; i < m->nboots && !first; i++)
		if (m->boots[i].valid)
			first = jv_get(m->boots[i].traced_sum, "trace");
	jsonw_obj_open(w);
	jsonw_kv_str(w, "set", jv_str(jv_get(first, "set"), NULL));
	jsonw_kv_str(w, "timing", jv_str(jv_get(first, "timing"), NULL));
	jsonw_key(w, "probes");
	jv_write(w, jv_get(first, "probes"));
	jsonw_key(w, "totals");
	jsonw_arr_open(w);
	for (i = 0; i < t->nrows; i++) {
		char *const *k = t->keys[i];
		const double *sum = t->sums[i];
		double calls = sum[TOTAL(CALLS)], conv = sum[TOTAL(CONVERSIONS)];
		char ctx[96];

		if (k[TRACE_TOTALS_MODE][0])
			snprintf(ctx, sizeof(ctx), "%s %s %s",
				 k[TRACE_TOTALS_MODE], k[TRACE_TOTALS_SIZE],
				 k[TRACE_TOTALS_PHASE]);
		else
			snprintf(ctx, sizeof(ctx), "outside cells");
		jsonw_obj_open(w);
		jsonw_kv_str(w, "probe", k[TRACE_TOTALS_PROBE]);
		jsonw_kv_str(w, "context", ctx);
		jsonw_kv_u64(w, "calls", calls);
		jsonw_kv_u64(w, "inclusive_ns", sum[TOTAL(INCLUSIVE)]);
		jsonw_kv_u64(w, "exclusive_ns", sum[TOTAL(EXCLUSIVE)]);
		jsonw_kv_u64(w, "conversions", conv);
		if (conv) {
			jsonw_kv_double(w, "calls_per_conversion", calls / conv);
			jsonw_kv_double(w, "exclusive_ns_per_conversion",
					sum[TOTAL(EXCLUSIVE)] / conv);
		}
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
	jsonw_obj_close(w);
}

static int buckets_file(FILE *f, void *arg)
{
	return csv_sum_write(&((struct merge *)arg)->trace_buckets, f);
}

static int totals_file(FILE *f, void *arg)
{
	return csv_sum_write(&((struct merge *)arg)->trace_totals, f);
}

static int traced_samples_file(FILE *f, void *arg)
{
	struct merge *m = arg;

	return samples_write_csv(f, m->traced, m->ntraced);
}

/* ---- the run ---- */

static struct report_round *rounds_of(const struct merge *m)
{
	struct report_round *rr = calloc(m->nboots, sizeof(*rr));
	size_t i;

	for (i = 0; rr && i < m->nboots; i++) {
		const struct boot *b = &m->boots[i];
		const struct jv *r0 = jv_at(jv_get(b->plain_sum, "rounds"), 0);

		rr[i].round = b->k;
		snprintf(rr[i].order, sizeof(rr[i].order), "%s",
			 jv_str(jv_get(r0, "order"), ""));
		rr[i].invalid = !b->valid;
		rr[i].clock_unchecked = b->valid && b->unchecked;
		snprintf(rr[i].why, sizeof(rr[i].why), "%s", b->why);
		rr[i].tsc_khz = b->tsc_khz;
		rr[i].tsc_khz_measured = b->tsc_khz_measured;
		rr[i].clock_dev_pct = b->deviation_pct;
		snprintf(rr[i].clocksource, sizeof(rr[i].clocksource), "%s",
			 b->clocksource);
		snprintf(rr[i].tsc_messages, sizeof(rr[i].tsc_messages), "%s",
			 b->tsc_messages);
	}
	return rr;
}

/* the boots' rounds pooled, their statistics, their traces */
static int merge_pool(struct merge *m, const char *dir, size_t *valid)
{
	size_t i;
	int r = 0;

	for (i = 0; i < m->nboots && !r; i++) {
		struct boot *b = &m->boots[i];

		if (!b->valid) {
			fprintf(stderr, "convbench: --merge: boot %u left out: %s\n",
				b->k, b->why);
			continue;
		}
		(*valid)++;
		r = take(&m->plain, &m->nplain, b->plain, b->nplain);
		r = r ? r : take(&m->traced, &m->ntraced, b->traced, b->ntraced);
	}
	if (!r)
		r = run_stats_build(m->plain, m->nplain, &m->plain_rs);
	if (!r)
		r = run_stats_build(m->traced, m->ntraced, &m->traced_rs);
	if (!r)
		r = read_traces(m, dir);
	return r;
}

/* --history: the earlier runs, with gmem's provenance when there is one */
static int merge_history(struct history *hist, struct jv **gsum,
			 const struct env *env, const struct jv *prov)
{
	char p[4096], err[512];

	if (env->gmem_run) {
		snprintf(p, sizeof(p), "%s/summary.json", env->gmem_run);
		*gsum = jsonr_load(p, err, sizeof(err));
		if (!*gsum)
			fprintf(stderr, "convbench: --history: no gmem "
				"provenance, the ratios against gmem "
				"take in no earlier run: %s\n", err);
	}
	return history_load(hist, env->history, env->out_dir, prov,
			    jv_get(*gsum, "provenance"));
}

/* what a merged run adds to report.h's files */
struct merge_extras {
	struct report_extra work, over, trace, gmem, hist, design;
};

/* the merged run's report and files, rep open */
static int merge_report(struct report *rep, struct merge_extras *x,
			struct merge *m, const struct env *env,
			struct merge_gmem *gm, struct history *hist)
{
	int r = 0;

	rep->order_seed = (uint64_t)jv_num(jv_get(jv_get(m->boots[0].plain_sum,
					"method"), "order_seed"), 0);
	if (env->history) {
		rep->history = hist;
		x->hist.json = history_json;
		x->hist.arg = hist;
		report_add(rep, &x->hist);
	}
	rep->nrounds = m->nboots;
	if (m->have_design) {
		x->design.json = design_json_extra;
		x->design.arg = m;
		report_add(rep, &x->design);
	}
	x->work.cell_json = work_json;
	x->work.arg = m;
	report_add(rep, &x->work);
	if (m->ntraced) {
		x->over.json = overhead_json;
		x->over.text = overhead_text;
		x->over.arg = m;
		report_add(rep, &x->over);
	}
	if (env->gmem_run)
		merge_gmem_add(gm, rep, &x->gmem);
	if (m->have_trace) {
		x->trace.json = trace_json;
		x->trace.arg = m;
		report_add(rep, &x->trace);
		r = report_write_file(rep, "trace.csv", buckets_file, m) ?:
		    report_write_file(rep, "trace-totals.csv", totals_file, m);
	}
	if (!r && m->ntraced)
		r = report_write_file(rep, "samples-traced.csv",
				      traced_samples_file, m) ?:
		    report_write_file(rep, "overhead.txt", overhead_file, m);
	if (!r)
		r = report_finish(rep, m->plain, m->nplain);
	return r;
}

int merge_run(const struct env *env)
{
	struct merge_extras x = {
		.work = { .key = "work" }, .over = { .key = "overhead" },
		.trace = { .key = "trace" }, .hist = { .key = "history" },
		.design = { .key = "design" },
	};
	struct merge_gmem gm = { 0 };
	struct history hist = { 0 };
	struct jv *gsum = NULL;
	const struct jv *prov = NULL;
	struct report_round *rounds = NULL;
	struct merge m = { 0 };
	struct report rep;
	struct env e = *env;
	char err[512];
	size_t i, valid = 0;
	unsigned int family;
	int r;

	e.format = FORMAT_TEXT;
	r = merge_read_boots(env->merge, &m.boots, &m.nboots, err, sizeof(err));
	if (r) {
		fprintf(stderr, "convbench: %s\n", err);
		return 2;
	}
	if (env->design) {
		r = merge_design(&m, env);
		if (r) {
			r = r == -ENOMEM ? 1 : 2;
			goto out;
		}
	}
	r = merge_pool(&m, env->merge, &valid);
	if (!r && env->gmem_run) {
		r = merge_gmem_load(&gm, env->gmem_run, m.plain, m.nplain,
				    m.have_design ? &m.design : NULL);
		if (r) {
			r = r == -ENOMEM ? 1 : 2;
			goto out;
		}
	}
	for (i = 0; i < m.nboots && !prov; i++)
		if (m.boots[i].valid)
			prov = jv_get(m.boots[i].plain_sum, "provenance");
	if (!r && env->history) {
		r = merge_history(&hist, &gsum, env, prov);
		if (r)
			goto out;
	}
	/*
	 * the p50 ratios the run estimates, whose joint intervals hold
	 * together: inplace/gmem is the quotient of two of them, fitted for
	 * its own interval but not counted
	 */
	family = m.plain_rs.nratios + gm.ngm_de;
	ratio_stats_family(gm.gm_de, gm.ngm_de, family, false);
	ratio_stats_family(gm.in_gm, gm.nin_gm, family, true);
	history_list(env->history ? &hist : NULL, HIST_GMEM_DE, gm.gm_de,
		     gm.ngm_de);
	history_list(env->history ? &hist : NULL, HIST_INPLACE_GM, gm.in_gm,
		     gm.nin_gm);
	rounds = rounds_of(&m);
	if (r || !rounds) {
		fprintf(stderr, "convbench: --merge: %s\n", strerror(r ? -r : ENOMEM));
		r = 1;
		goto out;
	}
	r = report_open(&rep, &e);
	if (r)
		goto out;
	rep.provenance = prov;
	rep.rounds = rounds;
	rep.family = family;
	r = merge_report(&rep, &x, &m, env, &gm, &hist);
	report_close(&rep);
	if (!r && !valid) {
		fprintf(stderr, "convbench: --merge: no valid boot\n");
		r = 1;
	}
	r = r ? 1 : 0;
out:
	history_free(&hist);
	jsonr_free(gsum);
	merge_gmem_free(&gm);
	run_stats_free(&m.plain_rs);
	run_stats_free(&m.traced_rs);
	csv_sum_free(&m.trace_buckets);
	csv_sum_free(&m.trace_totals);
	samples_free(m.plain, m.nplain);
	samples_free(m.traced, m.ntraced);
	merge_free_boots(m.boots, m.nboots);
	design_free(&m.design);
	free(m.design_valid);
	free(rounds);
	return r;
}
