// SPDX-License-Identifier: GPL-2.0
/* The statistics of a run's cells and ratios: see cellstats.h */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cellstats.h"
#include "effect.h"
#include "rng.h"
#include "stats.h"

const double cs_pct_value[CS_NPCT] = { 50, 90, 99 };
const char *const cs_pct_name[CS_NPCT] = { "p50", "p90", "p99" };
const char *const cs_cov_names[3][EFFECT_MAX_COV] = {
	[CS_COVS_PLAN] = { "round", "round_parity" },
	[CS_COVS_BOOT] = { "boot_time" },
	[CS_COVS_ROUND] = { "round", "kernel_order" },
};
const char *const cs_phase_name[PH_NR] = {
	"copy", "exit_round_trip", "after_exit", "host_handler",
	"host_record", "host_memory", "host_release",
};

double tsc_ns(const struct cell_result *res, uint64_t cycles)
{
	return res->tsc_khz ? cycles * 1e6 / res->tsc_khz : (double)cycles;
}

static uint64_t phase_of(const struct conv_sample *s, enum cs_phase p)
{
	switch (p) {
	case PH_COPY:		return s->copy;
	case PH_EXIT_RT:	return s->exit_rt;
	case PH_AFTER_EXIT:	return s->fault_in;
	case PH_HOST:		return s->host;
	case PH_RECORD:		return s->host_record;
	case PH_MEMORY:		return s->host_mem;
	default:		return s->host_release;
	}
}

static bool has_dir(const struct cell_result *r, enum conv_dir d)
{
	return r->p.dir_mask & (1u << d);
}

static double median_of(double *v, size_t n)
{
	return n ? stats_select_percentile(v, n, 50) : NAN;
}

static bool in_cell(const struct cell_result *r, enum conv_mode m,
		    uint64_t size, enum conv_dir d)
{
	return r->p.mode == m && r->p.size == size && has_dir(r, d);
}

/* what the cell's rounds say of themselves; the count of its samples */
static size_t cell_scan(const struct cell_result *res, size_t nres,
			struct cell_stats *c)
{
	size_t i, j, n = 0;

	for (i = 0; i < nres; i++) {
		const struct cell_result *r = &res[i];

		if (!in_cell(r, c->mode, c->size, c->dir))
			continue;
		if (!c->first)
			c->first = r;
		c->conversions += r->conversions;
		if (r->vm_counts) {
			c->vm_ipis += r->ipis;
			c->vm_tlb_flush_req += r->tlb_flush_req;
			c->vm_conversions += r->conversions;
		}
		c->wall_s += r->wall_s;
		c->interrupted |= r->interrupted;
		if (r->error[0] && !c->error)
			c->error = r->error;
		if (!c->tsc_khz)
			c->tsc_khz = r->tsc_khz;
		for (j = 0; j < r->n; j++)
			n += r->samples[j].dir == c->dir;
	}
	return n;
}

/* NPT faults per conversion of r in direction d: counted, or NaN */
static double npf_of(const struct cell_result *r, enum conv_dir d)
{
	double f = 0;
	size_t j, n = 0;

	if (r->npf_known & (1u << d))
		return r->npf[d];
	if (!r->work)
		return NAN;
	for (j = 0; j < r->n; j++) {
		if (r->samples[j].dir == d) {
			f += r->work[j].npt_faults;
			n++;
		}
	}
	return n ? f / n : NAN;
}

double cs_fixed_cost(const struct cell_result *r, enum conv_dir d)
{
	double u = 0, f = npf_of(r, d), umem;
	size_t j, n = 0;

	if (!r->cal_n[CAL_NULL_EXIT] || !r->cal_n[CAL_NPT_FAULT] || isnan(f))
		return NAN;
	for (j = 0; j < r->n; j++) {
		if (r->samples[j].dir != d)
			continue;
		u += r->samples[j].exits;
		n++;
	}
	if (!n)
		return NAN;
	u /= n;
	/*
	 * the userspace exits that were faults (all but the hypercall of
	 * an explicit conversion) are counted as NPT faults too
	 */
	umem = fmax(0, u - (r->p.trigger == TRIGGER_EXPLICIT));
	return u * r->cal_ns[CAL_NULL_EXIT] +
	       fmax(0, f - umem) * r->cal_ns[CAL_NPT_FAULT];
}

/*
 * c->total[] in rounds' order, c->by_round[] the same with each round
 * sorted apart, each round's percentiles; the exits. A
 * round's blocks (a design's boot runs each cell in blocks: ABBA) are
 * one round: their samples pooled, as the round's conversions.
 */
static double cell_rounds(const struct cell_result *res, size_t nres,
			  struct cell_stats *c)
{
	size_t i, j, at = 0, rstart = 0;
	double exits = 0, fsum = 0, fixed;
	unsigned int p;

	for (i = 0; i < nres; i++) {
		const struct cell_result *r = &res[i];
		struct cs_round *rd;
		size_t start = at;

		if (!in_cell(r, c->mode, c->size, c->dir))
			continue;
		for (j = 0; j < r->n; j++) {
			const struct conv_sample *s = &r->samples[j];

			if (s->dir != c->dir)
				continue;
			c->total[at++] = tsc_ns(r, s->total);
			exits += s->exits;
		}
		if (at == start)
			continue;
		fixed = cs_fixed_cost(r, c->dir) * (at - start);
		if (c->nrounds && c->round[c->nrounds - 1].round == r->p.round) {
			rd = &c->round[c->nrounds - 1];	/* its next block */
			start = rstart;
			fsum += fixed;
		} else if (c->nrounds == MAX_ROUNDS) {
			continue;
		} else {
			rd = &c->round[c->nrounds++];
			rd->round = r->p.round;
			rd->boot_slot = r->p.boot_slot;
			rstart = start;
			fsum = fixed;
			for (p = 0; p < CAL_NR; p++)
				rd->cal_ns[p] = r->cal_n[p] ? r->cal_ns[p] : NAN;
			rd->npf = npf_of(r, c->dir);
		}
		/*
		 * this round's percentiles, on its samples sorted apart in
		 * c->by_round (which the tail bands read too)
		 */
		rd->n = at - start;
		rd->off = start;
		/* weighted by the blocks' samples; NaN if one is unknown */
		rd->fixed_ns = fsum / rd->n;
		memcpy(c->by_round + start, c->total + start,
		       rd->n * sizeof(double));
		stats_sort(c->by_round + start, rd->n);
		for (p = 0; p < CS_NPCT; p++)
			rd->pct[p] = stats_percentile_sorted(c->by_round + start,
							     rd->n, cs_pct_value[p]);
	}
	return exits;
}

/* the pooled statistics of the sorted totals; the p50's CI over rounds */
static int cell_pooled(struct cell_stats *c, double exits)
{
	size_t n = c->n;
	unsigned int p, k;
	double mean, *l;

	if (n) {
		c->min = c->total[0];
		c->max = c->total[n - 1];
		c->mean = stats_mean(c->total, n);
		c->stddev = stats_stddev(c->total, n);
		c->exits_mean = exits / n;
	}
	for (p = 0; p < CS_NPCT; p++) {
		c->pct[p] = stats_percentile_sorted(c->total, n, cs_pct_value[p]);
		c->beyond[p] = n ? stats_beyond_sorted(c->total, n, c->pct[p]) : 0;
	}
	if (c->nrounds < 2)
		return 0;
	l = malloc(c->nrounds * sizeof(*l));
	if (!l)
		return -ENOMEM;
	for (k = 0; k < c->nrounds; k++)
		l[k] = c->round[k].pct[CS_P50];
	stats_mean_ci_t(l, c->nrounds, CS_CONF, &mean, &c->p50_lo, &c->p50_hi);
	free(l);
	return 0;
}

/* medians of the first access and of each phase, pooled */
static void cell_phases(const struct cell_result *res, size_t nres,
			struct cell_stats *c, double *tmp)
{
	size_t i, j, at;
	unsigned int p;

	for (p = 0; p <= PH_NR; p++) {
		at = 0;
		for (i = 0; i < nres; i++) {
			const struct cell_result *r = &res[i];

			if (!in_cell(r, c->mode, c->size, c->dir))
				continue;
			for (j = 0; j < r->n; j++) {
				const struct conv_sample *s = &r->samples[j];

				if (s->dir == c->dir)
					tmp[at++] = tsc_ns(r, p == PH_NR ?
						s->first : phase_of(s, p));
			}
		}
		if (p == PH_NR)
			c->first_p50 = median_of(tmp, at);
		else
			c->phase_p50[p] = median_of(tmp, at);
	}
}

/* the calibration over the cell's VMs; the rounds' fixed costs' median */
static void cell_fixed(const struct cell_result *res, size_t nres,
		       struct cell_stats *c, double *tmp, size_t ntmp)
{
	unsigned int k;
	size_t i, at;

	for (k = 0; k < CAL_NR; k++) {
		for (i = 0, at = 0; i < nres && at < ntmp; i++) {
			const struct cell_result *r = &res[i];

			if (!in_cell(r, c->mode, c->size, c->dir) ||
			    !r->cal_n[k])
				continue;
			tmp[at++] = r->cal_ns[k];
			c->cal_n[k] += r->cal_n[k];
		}
		c->cal_ns[k] = median_of(tmp, at);
	}
	for (k = 0, at = 0; k < c->nrounds && at < ntmp; k++) {
		if (isnan(c->round[k].fixed_ns)) {
			at = 0;
			break;
		}
		tmp[at++] = c->round[k].fixed_ns;
	}
	c->fixed_ns = median_of(tmp, at);
}

/* one (mode, size, direction) over the rounds of res[] */
static int cell_build(const struct cell_result *res, size_t nres,
		      enum conv_mode m, uint64_t size, enum conv_dir d,
		      struct cell_stats *c)
{
	double *tmp, exits;
	size_t n, ntmp;

	memset(c, 0, sizeof(*c));
	c->mode = m;
	c->size = size;
	c->dir = d;
	c->p50_lo = c->p50_hi = NAN;
	n = c->n = cell_scan(res, nres, c);
	/* scratch for the phases (n) and the calibrations (nres + rounds) */
	ntmp = n > nres + MAX_ROUNDS ? n : nres + MAX_ROUNDS;
	c->total = calloc(n ? n : 1, sizeof(double));
	c->by_round = calloc(n ? n : 1, sizeof(double));
	tmp = calloc(ntmp, sizeof(double));
	if (!c->total || !c->by_round || !tmp) {
		free(tmp);
		return -ENOMEM;
	}
	exits = cell_rounds(res, nres, c);
	stats_sort(c->total, n);
	if (cell_pooled(c, exits)) {
		free(tmp);
		return -ENOMEM;
	}
	cell_phases(res, nres, c, tmp);
	cell_fixed(res, nres, c, tmp, ntmp);
	free(tmp);
	return 0;
}

/* the fit of x's per-round ratios, lo..hi at 95% (NaN below 2 rounds) */
void ratio_pct_intervals(struct ratio_pct *x)
{
	unsigned int k, j, ncov = x->covs == CS_COVS_BOOT ? 1 : CS_NCOV;
	struct effect_unit u[MAX_ROUNDS];
	double mean[CS_NCOV] = { 0 };

	memset(&x->fit, 0, sizeof(x->fit));
	x->family = 1;
	x->ratio = x->nrounds == 1 ? x->per_round[0] : NAN;
	x->lo = x->hi = x->jlo = x->jhi = NAN;
	x->df = 0;
	if (x->nrounds < 2)
		return;
	/* centred over the rounds taken: the intercept is their mean */
	for (k = 0; k < x->nrounds; k++)
		for (j = 0; j < CS_NCOV; j++)
			mean[j] += x->cov[k][j] / x->nrounds;
	for (k = 0; k < x->nrounds; k++) {
		if (!(x->per_round[k] > 0) || !isfinite(x->per_round[k]))
			return;
		u[k] = (struct effect_unit) {
			.id = x->round_id[k],
			.d = log(x->per_round[k]),
			.nblocks = 1,
		};
		for (j = 0; j < ncov; j++)
			u[k].x[j] = x->cov[k][j] - mean[j];
	}
	if (effect_fit(u, x->nrounds, ncov, CS_CONF, &x->fit))
		return;
	x->ratio = x->fit.ratio;
	x->lo = x->jlo = x->fit.lo;
	x->hi = x->jhi = x->fit.hi;
	x->df = x->fit.df;
}

void ratio_stats_family(struct ratio_stats *q, size_t n, unsigned int family,
			bool derived)
{
	unsigned int p;
	double t;
	size_t i;

	if (!family)
		family = 1;
	for (i = 0; i < n; i++)
		for (p = 0; p < CS_NPCT; p++) {
			struct ratio_pct *x = &q[i].pct[p];

			x->derived = derived;
			x->family = family;
			if (!x->df)
				continue;
			/* the same fit at the level where all family hold */
			t = stats_t_quantile((1 + effect_joint_conf(CS_CONF,
						family)) / 2, x->df);
			x->jlo = exp(x->fit.est - t * x->fit.se);
			x->jhi = exp(x->fit.est + t * x->fit.se);
		}
}

/*
 * x's covariates for the round it is adding (x->nrounds): see cs_cov.
 * A round from a design's boots carries their slots; gmem's boot is not
 * the v5 modes', so a ratio with gmem on one side spans two boots.
 */
static void round_covs(struct ratio_pct *x, const struct cs_round *de,
		       const struct cs_round *in, enum conv_mode mde,
		       enum conv_mode min)
{
	double *c = x->cov[x->nrounds];
	bool cross = (mde == MODE_GMEM) != (min == MODE_GMEM);
	const struct cs_round *v5 = mde == MODE_GMEM ? in : de;

	if (!de->boot_slot || !in->boot_slot) {
		x->covs = CS_COVS_PLAN;
		c[CS_COV_TIME] = de->round;
		c[CS_COV_SECOND] = de->round % 2;
	} else if (!cross) {
		/* the boot's place along the run: rounds of two boots */
		x->covs = CS_COVS_BOOT;
		c[CS_COV_TIME] = de->round + (de->boot_slot - 1) / 2.0;
		c[CS_COV_SECOND] = 0;
	} else {
		x->covs = CS_COVS_ROUND;
		c[CS_COV_TIME] = de->round;
		/* +1/2: the gmem boot first, the v5 one second */
		c[CS_COV_SECOND] = v5->boot_slot == 2 ? 0.5 : -0.5;
	}
}

/* q->norm: the p50s less the fixed costs, rounds paired as for p50 */
static void ratio_norm_build(struct ratio_stats *q)
{
	const struct cell_stats *de = q->de, *in = q->in;
	struct ratio_pct *x = &q->norm;
	unsigned int a, b;

	memset(x, 0, sizeof(*x));
	x->ratio = x->lo = x->hi = x->jlo = x->jhi = x->pooled = NAN;
	x->shown = true;
	if (de->pct[CS_P50] > de->fixed_ns && in->pct[CS_P50] > in->fixed_ns)
		x->pooled = (in->pct[CS_P50] - in->fixed_ns) /
			    (de->pct[CS_P50] - de->fixed_ns);
	for (a = 0; a < de->nrounds; a++) {
		const struct cs_round *rd = &de->round[a], *ri;
		double nd, ni;

		for (b = 0; b < in->nrounds; b++)
			if (in->round[b].round == rd->round)
				break;
		if (b == in->nrounds)
			continue;
		ri = &in->round[b];
		nd = rd->pct[CS_P50] - rd->fixed_ns;
		ni = ri->pct[CS_P50] - ri->fixed_ns;
		/* a round without its fixed costs: no normalized ratio at all */
		if (!(nd > 0) || !(ni > 0)) {
			x->nrounds = 0;
			x->pooled = NAN;
			return;
		}
		x->round_id[x->nrounds] = rd->round;
		round_covs(x, rd, ri, de->mode, in->mode);
		x->per_round[x->nrounds++] = ni / nd;
	}
	ratio_pct_intervals(x);
}

void ratio_stats_build(struct ratio_stats *q)
{
	const struct cell_stats *de = q->de, *in = q->in;
	unsigned int p, a, b;

	for (p = 0; p < CS_NPCT; p++) {
		struct ratio_pct *x = &q->pct[p];

		memset(x, 0, sizeof(*x));
		x->ratio = x->lo = x->hi = x->pooled = NAN;
		x->beyond_de = de->beyond[p];
		x->beyond_in = in->beyond[p];
		/* the median always; a tail only on enough samples */
		x->shown = p == CS_P50 || (x->beyond_de >= STATS_TAIL_MIN &&
					    x->beyond_in >= STATS_TAIL_MIN);
		if (de->n && in->n && de->pct[p] > 0)
			x->pooled = in->pct[p] / de->pct[p];
		/* rounds in which both modes ran */
		for (a = 0; a < de->nrounds; a++) {
			for (b = 0; b < in->nrounds; b++)
				if (in->round[b].round == de->round[a].round)
					break;
			if (b == in->nrounds || !(de->round[a].pct[p] > 0) ||
			    !(in->round[b].pct[p] > 0))
				continue;
			x->round_id[x->nrounds] = de->round[a].round;
			round_covs(x, &de->round[a], &in->round[b],
				   q->de->mode, q->in->mode);
			x->per_round[x->nrounds++] = in->round[b].pct[p] /
						     de->round[a].pct[p];
		}
		ratio_pct_intervals(x);
	}
	ratio_norm_build(q);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

int run_stats_build(const struct cell_result *res, size_t n,
		    struct run_stats *rs)
{
	uint64_t *sizes = calloc(n ? n : 1, sizeof(*sizes));
	size_t nsz = 0, i, j;
	unsigned int m, d;
	int err = 0;

	memset(rs, 0, sizeof(*rs));
	if (!sizes)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		for (j = 0; j < nsz && sizes[j] != res[i].p.size; j++)
			;
		if (j == nsz)
			sizes[nsz++] = res[i].p.size;
	}
	qsort(sizes, nsz, sizeof(*sizes), cmp_u64);
	rs->cells = calloc(MODE_NR * DIR_NR * (nsz ? nsz : 1),
			   sizeof(*rs->cells));
	rs->ratios = calloc(DIR_NR * (nsz ? nsz : 1), sizeof(*rs->ratios));
	if (!rs->cells || !rs->ratios) {
		err = -ENOMEM;
		goto out;
	}
	for (m = 0; m < MODE_NR && !err; m++) {
		for (j = 0; j < nsz && !err; j++) {
			for (d = 0; d < DIR_NR && !err; d++) {
				for (i = 0; i < n; i++)
					if (res[i].p.mode == m &&
					    res[i].p.size == sizes[j] &&
					    has_dir(&res[i], d))
						break;
				if (i == n)
					continue;
				err = cell_build(res, n, m, sizes[j], d,
						 &rs->cells[rs->ncells++]);
			}
		}
	}
	for (j = 0; j < nsz && !err; j++) {
		for (d = 0; d < DIR_NR; d++) {
			const struct cell_stats *de, *in;

			de = run_stats_cell(rs, MODE_DESTRUCTIVE, sizes[j], d);
			in = run_stats_cell(rs, MODE_INPLACE, sizes[j], d);
			if (!de || !in || !de->n || !in->n)
				continue;
			rs->ratios[rs->nratios] = (struct ratio_stats) {
				.size = sizes[j], .dir = d,
				.num = MODE_INPLACE, .den = MODE_DESTRUCTIVE,
				.de = de, .in = in,
			};
			ratio_stats_build(&rs->ratios[rs->nratios++]);
		}
	}
out:
	free(sizes);
	if (err)
		run_stats_free(rs);
	return err;
}

void run_stats_free(struct run_stats *rs)
{
	size_t i;

	for (i = 0; i < rs->ncells; i++) {
		free(rs->cells[i].total);
		free(rs->cells[i].by_round);
	}
	free(rs->cells);
	free(rs->ratios);
	memset(rs, 0, sizeof(*rs));
}

const struct cell_stats *run_stats_cell(const struct run_stats *rs,
					enum conv_mode m, uint64_t size,
					enum conv_dir d)
{
	size_t i;

	for (i = 0; i < rs->ncells; i++)
		if (rs->cells[i].mode == m && rs->cells[i].size == size &&
		    rs->cells[i].dir == d)
			return &rs->cells[i];
	return NULL;
}

/* ---- the tail spectrum, banded by resampling whole rounds ---- */

const double cs_spec_value[CS_NSPEC] = { 50, 90, 99, 99.9 };
const char *const cs_spec_name[CS_NSPEC] = { "p50", "p90", "p99", "p99.9" };

/* samples <= v in round k's sorted segment */
static size_t upto(const struct cell_stats *c, unsigned int k, double v)
{
	const double *x = c->by_round + c->round[k].off;
	size_t lo = 0, hi = c->round[k].n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (x[mid] <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The j-th smallest (0-based) of the pool that takes round k w[k]
 * times: the smallest pooled value with more than j at or below it
 */
static double kth(const struct cell_stats *c, const unsigned int *w, size_t j)
{
	size_t lo = 0, hi = c->n - 1;
	unsigned int k;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2, cnt = 0;

		for (k = 0; k < c->nrounds; k++)
			if (w[k])
				cnt += w[k] * upto(c, k, c->total[mid]);
		if (cnt > j)
			hi = mid;
		else
			lo = mid + 1;
	}
	return c->total[lo];
}

/* numpy 'linear' percentile p of the weighted pool of n samples */
static double pool_pct(const struct cell_stats *c, const unsigned int *w,
		       size_t n, double p)
{
	double h = (n - 1) * p / 100, a, b;
	size_t j = (size_t)h;

	a = kth(c, w, j);
	b = j + 1 < n ? kth(c, w, j + 1) : a;
	return a + (h - j) * (b - a);
}

static void cell_bands(struct cell_stats *c, double *boot)
{
	unsigned int w[MAX_ROUNDS], b, k, p;
	struct rng r;

	c->banded = true;
	for (p = 0; p < CS_NSPEC; p++) {
		c->spec[p].value = stats_percentile_sorted(c->total, c->n,
							   cs_spec_value[p]);
		c->spec[p].beyond = c->n ? stats_beyond_sorted(c->total, c->n,
						c->spec[p].value) : 0;
		c->spec[p].lo = c->spec[p].hi = NAN;
	}
	if (c->nrounds < 2 || !c->n)
		return;
	rng_seed(&r, c->size * 31 + c->mode * 7 + c->dir + 1);
	for (b = 0; b < CS_BOOT; b++) {
		size_t n = 0;

		memset(w, 0, sizeof(w));
		for (k = 0; k < c->nrounds; k++)
			w[rng_below(&r, c->nrounds)]++;
		for (k = 0; k < c->nrounds; k++)
			n += w[k] * c->round[k].n;
		for (p = 0; p < CS_NSPEC; p++)
			boot[p * CS_BOOT + b] = pool_pct(c, w, n,
							 cs_spec_value[p]);
	}
	for (p = 0; p < CS_NSPEC; p++) {
		stats_sort(boot + p * CS_BOOT, CS_BOOT);
		c->spec[p].lo = stats_percentile_sorted(boot + p * CS_BOOT,
							CS_BOOT, 2.5);
		c->spec[p].hi = stats_percentile_sorted(boot + p * CS_BOOT,
							CS_BOOT, 97.5);
	}
}

void run_stats_bands(struct run_stats *rs)
{
	double *boot = malloc(CS_NSPEC * CS_BOOT * sizeof(double));
	size_t i;

	if (!boot)
		return;
	for (i = 0; i < rs->ncells; i++)
		cell_bands(&rs->cells[i], boot);
	free(boot);
}
