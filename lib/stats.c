// SPDX-License-Identifier: GPL-2.0
/*
 * Exact statistics on raw samples (see stats.h for the definitions):
 * numpy-'linear' percentiles, summary, bootstrap CI of a ratio of
 * percentiles, order-statistic CI of a percentile.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "stats.h"

/* NaN sorts last so that a NaN ratio cannot scramble qsort */
static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	if (isnan(a))
		return isnan(b) ? 0 : 1;
	if (isnan(b))
		return -1;
	return (a > b) - (a < b);
}

void stats_sort(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
}

static double lerp(double a, double b, double t)
{
	return t == 0 ? a : a + (b - a) * t;
}

/* virtual index h = (n - 1) * p / 100 split into k and fraction */
static size_t pct_index(size_t n, double p, double *frac)
{
	double h;
	size_t k;

	if (!(p > 0))
		p = 0;
	if (p > 100)
		p = 100;
	h = (double)(n - 1) * p / 100.0;
	k = (size_t)h;
	if (k >= n - 1) {
		*frac = 0;
		return n - 1;
	}
	*frac = h - (double)k;
	return k;
}

double stats_percentile_sorted(const double *sorted, size_t n, double p)
{
	double frac;
	size_t k;

	if (!n || isnan(p))
		return NAN;
	k = pct_index(n, p, &frac);
	return frac ? lerp(sorted[k], sorted[k + 1], frac) : sorted[k];
}

/*
 * Quickselect (median-of-three pivot, Hoare partition): afterwards v[k]
 * is the k-th smallest, nothing before it is larger, nothing after it
 * smaller. Resampled data is not adversarial, so no introselect.
 */
static void select_kth(double *v, size_t n, size_t k)
{
	ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;
	double t;

#define SWAP(x, y) do { t = v[x]; v[x] = v[y]; v[y] = t; } while (0)
	while (hi > lo) {
		ptrdiff_t mid = lo + (hi - lo) / 2, i = lo, j = hi;
		double pivot;

		/* v[lo] <= v[mid] <= v[hi]: sentinels for the scans */
		if (v[mid] < v[lo])
			SWAP(mid, lo);
		if (v[hi] < v[lo])
			SWAP(hi, lo);
		if (v[hi] < v[mid])
			SWAP(hi, mid);
		pivot = v[mid];
		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				SWAP(i, j);
				i++;
				j--;
			}
		}
		/* [lo, j] <= pivot <= [i, hi], anything between equals it */
		if (kk <= j)
			hi = j;
		else if (kk >= i)
			lo = i;
		else
			break;
	}
#undef SWAP
}

double stats_select_percentile(double *v, size_t n, double p)
{
	double frac, next;
	size_t k, i;

	if (!n || isnan(p))
		return NAN;
	k = pct_index(n, p, &frac);
	select_kth(v, n, k);
	if (!frac)
		return v[k];
	/* the (k+1)-th smallest is the minimum of the upper part */
	next = v[k + 1];
	for (i = k + 2; i < n; i++)
		if (v[i] < next)
			next = v[i];
	return lerp(v[k], next, frac);
}

static bool has_nan(const double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (isnan(v[i]))
			return true;
	return false;
}

/* private copy of v (or of v64 as doubles); -EINVAL on NaN or n == 0 */
static int copy_of(const double *v, const uint64_t *v64, size_t n,
		   double **out)
{
	size_t i;

	if (!n || (v && has_nan(v, n)))
		return -EINVAL;
	*out = malloc(n * sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		(*out)[i] = v ? v[i] : (double)v64[i];
	return 0;
}

static int percentile_of(const double *v, const uint64_t *v64, size_t n,
			 double p, double *out)
{
	double *c;
	int err;

	err = isnan(p) ? -EINVAL : copy_of(v, v64, n, &c);
	if (err)
		return err;
	*out = stats_select_percentile(c, n, p);
	free(c);
	return 0;
}

int stats_percentile(const double *v, size_t n, double p, double *out)
{
	return percentile_of(v, NULL, n, p, out);
}

int stats_median(const double *v, size_t n, double *out)
{
	return percentile_of(v, NULL, n, 50, out);
}

int stats_percentile_u64(const uint64_t *v, size_t n, double p, double *out)
{
	return percentile_of(NULL, v, n, p, out);
}

double stats_mean(const double *v, size_t n)
{
	double sum = 0;
	size_t i;

	if (!n)
		return NAN;
	for (i = 0; i < n; i++)
		sum += v[i];
	return sum / (double)n;
}

/* two passes: no cancellation from sum(x^2) - n*mean^2 */
double stats_stddev(const double *v, size_t n)
{
	double mean, ss = 0;
	size_t i;

	if (n < 2)
		return NAN;
	mean = stats_mean(v, n);
	for (i = 0; i < n; i++)
		ss += (v[i] - mean) * (v[i] - mean);
	return sqrt(ss / (double)(n - 1));
}

static int summary_of(const double *v, const uint64_t *v64, size_t n,
		      struct stats_summary *s)
{
	double *x;
	int err;

	err = copy_of(v, v64, n, &x);
	if (err)
		return err;
	stats_sort(x, n);
	s->n = n;
	s->min = x[0];
	s->max = x[n - 1];
	s->mean = stats_mean(x, n);
	s->stddev = stats_stddev(x, n);
	s->p50 = stats_percentile_sorted(x, n, 50);
	s->p90 = stats_percentile_sorted(x, n, 90);
	s->p99 = stats_percentile_sorted(x, n, 99);
	free(x);
	return 0;
}

int stats_summary(const double *v, size_t n, struct stats_summary *s)
{
	return summary_of(v, NULL, n, s);
}

int stats_summary_u64(const uint64_t *v, size_t n, struct stats_summary *s)
{
	return summary_of(NULL, v, n, s);
}

/* ------------------------------------------------------------------ */
/* bootstrap                                                           */

static double resample_pct(struct rng *r, const double *src, size_t n,
			   double *scratch, double p)
{
	size_t i;

	for (i = 0; i < n; i++)
		scratch[i] = src[rng_below(r, (uint32_t)n)];
	return stats_select_percentile(scratch, n, p);
}

int stats_bootstrap_ratio_ci(const double *a, size_t na,
			     const double *b, size_t nb, double p,
			     unsigned int reps, double conf, uint64_t seed,
			     double *lo, double *hi)
{
	double *scratch, *ratio, alpha;
	struct rng rng;
	unsigned int i;

	if (!na || !nb || na > UINT32_MAX || nb > UINT32_MAX ||
	    !(p >= 0 && p <= 100) || !(conf > 0 && conf < 1) ||
	    has_nan(a, na) || has_nan(b, nb))
		return -EINVAL;
	if (!reps)
		reps = STATS_BOOTSTRAP_REPS;
	scratch = malloc((na > nb ? na : nb) * sizeof(*scratch));
	ratio = malloc(reps * sizeof(*ratio));
	if (!scratch || !ratio) {
		free(scratch);
		free(ratio);
		return -ENOMEM;
	}
	rng_seed(&rng, seed);
	for (i = 0; i < reps; i++) {
		double pa = resample_pct(&rng, a, na, scratch, p);
		double pb = resample_pct(&rng, b, nb, scratch, p);

		ratio[i] = pb / pa;
	}
	stats_sort(ratio, reps);
	alpha = 1 - conf;
	*lo = stats_percentile_sorted(ratio, reps, 100 * alpha / 2);
	*hi = stats_percentile_sorted(ratio, reps, 100 * (1 - alpha / 2));
	free(scratch);
	free(ratio);
	return 0;
}

/* ------------------------------------------------------------------ */
/* order-statistic CI                                                  */

/*
 * log P(Binom(n, q) = k); lgamma() is C99 (it sets the libc global
 * signgam, harmless here: the arguments are positive).
 */
static double log_binom_pmf(size_t n, size_t k, double q)
{
	return lgamma((double)n + 1) - lgamma((double)k + 1) -
	       lgamma((double)(n - k) + 1) + (double)k * log(q) +
	       (double)(n - k) * log1p(-q);
}

int stats_percentile_ci(const double *v, size_t n, double p, double conf,
			double *lo, double *hi)
{
	double q = p / 100, half, tail;
	size_t l = 0, u = n + 1, k;
	double *c;
	int err;

	if (!(p > 0 && p < 100) || !(conf > 0 && conf < 1))
		return -EINVAL;
	err = copy_of(v, NULL, n, &c);
	if (err)
		return err;
	stats_sort(c, n);
	half = (1 - conf) / 2;

	/* l: largest rank with P(B <= l - 1) <= half */
	tail = 0;
	for (k = 0; k < n; k++) {
		tail += exp(log_binom_pmf(n, k, q));
		if (tail > half)
			break;
		l = k + 1;
	}
	/* u: smallest rank with P(B >= u) <= half; summed from the top */
	tail = 0;
	for (k = n; k >= 1; k--) {
		tail += exp(log_binom_pmf(n, k, q));
		if (tail > half)
			break;
		u = k;
	}
	if (l < 1 || u > n || l > u) {
		*lo = c[0];
		*hi = c[n - 1];
		err = -ERANGE;
	} else {
		*lo = c[l - 1];
		*hi = c[u - 1];
	}
	free(c);
	return err;
}

int stats_median_ci(const double *v, size_t n, double conf,
		    double *lo, double *hi)
{
	return stats_percentile_ci(v, n, 50, conf, lo, hi);
}
