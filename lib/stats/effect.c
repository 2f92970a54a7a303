// SPDX-License-Identifier: GPL-2.0
/* A ratio's interval from the run's own boots and blocks: see effect.h */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "design.h"
#include "effect.h"
#include "jsonw.h"
#include "stats.h"

static int cmp_run(const void *pa, const void *pb)
{
	const struct effect_run *a = pa, *b = pb;

	if (a->unit != b->unit)
		return a->unit < b->unit ? -1 : 1;
	if (a->block != b->block)
		return a->block < b->block ? -1 : 1;
	return (int)b->num - (int)a->num;
}

/* the log means of each arm over r[lo..hi) */
static void arm_means(const struct effect_run *r, size_t lo, size_t hi,
		      double *num, double *den)
{
	double s[2] = { 0, 0 };
	size_t i, c[2] = { 0, 0 };

	for (i = lo; i < hi; i++) {
		s[r[i].num] += log(r[i].value);
		c[r[i].num]++;
	}
	*num = c[1] ? s[1] / c[1] : NAN;
	*den = c[0] ? s[0] / c[0] : NAN;
}

int effect_units(const struct effect_run *runs, size_t n, bool paired,
		 struct effect_unit **out, size_t *nunits)
{
	struct effect_run *r;
	struct effect_unit *u;
	double *diff;
	size_t i, j, k, nu = 0;

	*out = NULL;
	*nunits = 0;
	for (i = 0; i < n; i++)
		if (!(runs[i].value > 0) || isinf(runs[i].value))
			return -EINVAL;
	r = malloc((n ? n : 1) * sizeof(*r));
	u = calloc(n ? n : 1, sizeof(*u));
	diff = malloc((n ? n : 1) * sizeof(*diff));
	if (!r || !u || !diff) {
		free(r);
		free(u);
		free(diff);
		return -ENOMEM;
	}
	memcpy(r, runs, n * sizeof(*r));
	qsort(r, n, sizeof(*r), cmp_run);
	for (i = 0; i < n; i = j) {
		struct effect_unit *x = &u[nu];
		double num, den, sum = 0, ss = 0, mean;
		unsigned int nb = 0;

		for (j = i; j < n && r[j].unit == r[i].unit; j++)
			;
		memset(x, 0, sizeof(*x));
		x->id = r[i].unit;
		x->within_var = NAN;
		if (!paired) {
			arm_means(r, i, j, &num, &den);
			if (isnan(num) || isnan(den))
				continue;
			x->d = num - den;
			x->nblocks = j - i;
			nu++;
			continue;
		}
		/* blocks: the log ratio of each complete one */
		for (k = i; k < j; ) {
			size_t e;

			for (e = k; e < j && r[e].block == r[k].block; e++)
				;
			arm_means(r, k, e, &num, &den);
			if (!isnan(num) && !isnan(den)) {
				diff[nb++] = num - den;
				sum += num - den;
			}
			k = e;
		}
		if (!nb)
			continue;
		mean = sum / nb;
		for (k = 0; k < nb; k++)
			ss += (diff[k] - mean) * (diff[k] - mean);
		x->d = mean;
		x->nblocks = nb;
		if (nb >= 2)
			x->within_var = ss / (nb - 1);
		nu++;
	}
	free(r);
	free(diff);
	*out = u;
	*nunits = nu;
	return 0;
}

/*
 * stats_t_quantile() bisects to full precision (~200 evaluations of the
 * incomplete beta): a run needs a few dozen, a simulation hundreds of
 * thousands, of a handful of (p, df). The last p's quantiles are kept.
 */
static double t_quantile(double p, unsigned int df)
{
	static double memo_p, memo[2 * DESIGN_MAX_ROUNDS + 1];

	if (df >= sizeof(memo) / sizeof(*memo))
		return stats_t_quantile(p, df);
	if (p != memo_p) {
		memset(memo, 0, sizeof(memo));
		memo_p = p;
	}
	if (!memo[df])
		memo[df] = stats_t_quantile(p, df);
	return memo[df];
}

double effect_joint_conf(double conf, unsigned int family)
{
	return 1 - (1 - conf) / (family ? family : 1);
}

/*
 * X = Q R by modified Gram-Schmidt, column 0 the intercept: the
 * orthonormal columns into q (n each), R into r, the covariate each
 * kept column is into col (0: the intercept); returns how many were
 * kept. A covariate costs a df: one is kept only while EFFECT_MIN_DF
 * remain, and only if something of it is left after those kept.
 */
static unsigned int qr_columns(const struct effect_unit *u, size_t n,
			       unsigned int ncov, double *q,
			       double r[][EFFECT_MAX_COV + 1], unsigned int *col)
{
	unsigned int p = 0, c, k;
	size_t i;

	for (c = 0; c <= ncov; c++) {
		double *w = q + (size_t)p * n, norm0 = 0, norm = 0;

		/* a covariate costs a df: only while EFFECT_MIN_DF remain */
		if (c && (long)n - 1 - (long)p < EFFECT_MIN_DF)
			break;
		for (i = 0; i < n; i++) {
			w[i] = c ? u[i].x[c - 1] : 1;
			norm0 += w[i] * w[i];
		}
		for (k = 0; k < p; k++) {
			const double *qk = q + (size_t)k * n;
			double dot = 0;

			for (i = 0; i < n; i++)
				dot += qk[i] * w[i];
			r[k][p] = dot;
			for (i = 0; i < n; i++)
				w[i] -= dot * qk[i];
		}
		for (i = 0; i < n; i++)
			norm += w[i] * w[i];
		/* nothing left of it: constant, or a mix of those kept */
		if (!(norm0 > 0) || norm <= 1e-18 * norm0)
			continue;
		norm = sqrt(norm);
		for (i = 0; i < n; i++)
			w[i] /= norm;
		r[p][p] = norm;
		col[p++] = c;
	}
	return p;
}

/* variance components, for the record: within blocks, between boots */
static void variance_components(const struct effect_unit *u, size_t n,
				struct effect_fit *f)
{
	double wsum = 0, wdf = 0, nbsum = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		nbsum += u[i].nblocks;
		if (u[i].nblocks >= 2 && isfinite(u[i].within_var)) {
			wsum += (u[i].nblocks - 1) * u[i].within_var;
			wdf += u[i].nblocks - 1;
		}
	}
	if (wdf > 0) {
		f->block_sd = sqrt(wsum / wdf);
		if (f->df)
			f->boot_sd = sqrt(fmax(0, f->unit_sd * f->unit_sd -
					       wsum / wdf / (nbsum / n)));
	}
}

int effect_fit(const struct effect_unit *u, size_t n, unsigned int ncov,
	       double conf, struct effect_fit *f)
{
	/* X = Q R by modified Gram-Schmidt, column 0 the intercept */
	double *q, r[EFFECT_MAX_COV + 1][EFFECT_MAX_COV + 1] = { { 0 } };
	double ri[EFFECT_MAX_COV + 1][EFFECT_MAX_COV + 1] = { { 0 } };
	double qy[EFFECT_MAX_COV + 1], beta[EFFECT_MAX_COV + 1] = { 0 };
	unsigned int col[EFFECT_MAX_COV + 1], p = 0, c, k, a, b;
	double rss = 0, v00 = 0;
	size_t i;

	memset(f, 0, sizeof(*f));
	f->ratio = f->lo = f->hi = f->est = f->se = f->t = NAN;
	f->unit_sd = f->block_sd = f->boot_sd = NAN;
	f->conf = conf;
	if (!n || ncov > EFFECT_MAX_COV || !(conf > 0 && conf < 1))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (!isfinite(u[i].d))
			return -EINVAL;
		for (c = 0; c < ncov; c++)
			if (!isfinite(u[i].x[c]))
				return -EINVAL;
	}
	q = calloc(n * (EFFECT_MAX_COV + 1), sizeof(*q));
	if (!q)
		return -ENOMEM;
	p = qr_columns(u, n, ncov, q, r, col);
	/* R^-1 (upper triangular), beta = R^-1 Q' y */
	for (a = 0; a < p; a++) {
		const double *qa = q + (size_t)a * n;

		qy[a] = 0;
		for (i = 0; i < n; i++)
			qy[a] += qa[i] * u[i].d;
	}
	for (b = p; b-- > 0; ) {
		ri[b][b] = 1 / r[b][b];
		for (a = b; a-- > 0; ) {
			double s = 0;

			for (k = a + 1; k <= b; k++)
				s += r[a][k] * ri[k][b];
			ri[a][b] = -s / r[a][a];
		}
	}
	for (a = 0; a < p; a++) {
		beta[a] = 0;
		for (k = a; k < p; k++)
			beta[a] += ri[a][k] * qy[k];
	}
	for (i = 0; i < n; i++) {
		double fit = 0;

		for (a = 0; a < p; a++)
			fit += q[(size_t)a * n + i] * qy[a];
		rss += (u[i].d - fit) * (u[i].d - fit);
	}
	for (k = 0; k < p; k++)
		v00 += ri[0][k] * ri[0][k];
	f->n = n;
	f->df = n - p;
	f->ncov = p - 1;
	for (a = 1; a < p; a++) {
		f->kept[col[a] - 1] = true;
		f->slope[col[a] - 1] = beta[a];
	}
	f->est = beta[0];
	f->ratio = exp(f->est);
	if (f->df) {
		double s2 = rss / f->df;

		f->unit_sd = sqrt(s2);
		f->se = sqrt(s2 * v00);
		f->t = t_quantile((1 + conf) / 2, f->df);
		f->lo = exp(f->est - f->t * f->se);
		f->hi = exp(f->est + f->t * f->se);
	}
	variance_components(u, n, f);
	free(q);
	return 0;
}

void effect_json_covariates(struct jsonw *w, const struct effect_fit *f,
			    const char *const names[])
{
	unsigned int c;

	jsonw_arr_open(w);
	for (c = 0; c < EFFECT_MAX_COV; c++) {
		if (!f->kept[c])
			continue;
		jsonw_obj_open(w);
		jsonw_kv_str(w, "name", names ? names[c] : NULL);
		jsonw_kv_double(w, "slope_log", f->slope[c]);
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
}

void effect_json(struct jsonw *w, const struct effect_fit *f,
		 const char *const names[])
{
	jsonw_obj_open(w);
	jsonw_kv_double(w, "ratio", f->ratio);
	jsonw_kv_double(w, "lo", f->lo);
	jsonw_kv_double(w, "hi", f->hi);
	jsonw_kv_double(w, "conf", f->conf);
	jsonw_kv_u64(w, "df", f->df);
	jsonw_kv_u64(w, "units", f->n);
	jsonw_kv_double(w, "t", f->t);
	jsonw_kv_double(w, "se_log", f->se);
	jsonw_key(w, "covariates");
	effect_json_covariates(w, f, names);
	jsonw_kv_double(w, "unit_sd_log", f->unit_sd);
	jsonw_kv_double(w, "block_sd_log", f->block_sd);
	jsonw_kv_double(w, "boot_sd_log", f->boot_sd);
	jsonw_obj_close(w);
}
