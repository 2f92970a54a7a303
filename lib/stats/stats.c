// SPDX-License-Identifier: GPL-2.0
/*
 * Exact statistics on raw samples (see stats.h for the definitions):
 * numpy-'linear' percentiles, summary, t intervals from rounds.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

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
/* intervals from rounds                                               */

size_t stats_beyond_sorted(const double *sorted, size_t n, double v)
{
	size_t lo = 0, hi = n;

	/* the first index whose value is > v */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sorted[mid] > v)
			hi = mid;
		else
			lo = mid + 1;
	}
	return n - lo;
}

/*
 * Continued fraction of the regularized incomplete beta function
 * I_x(a, b) (modified Lentz), valid for x < (a + 1) / (a + b + 2).
 */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;
	int m;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (m = 1; m <= 300; m++) {
		double m2 = 2.0 * m, aa, del;

		aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
		d = 1 + aa * d;
		c = 1 + aa / c;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		if (fabs(c) < tiny)
			c = tiny;
		h *= d * c;
		aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		d = 1 + aa * d;
		c = 1 + aa / c;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		if (fabs(c) < tiny)
			c = tiny;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-15)
			break;
	}
	return h;
}

static double beta_inc(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
		    b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

/* P(T <= t), Student's t with df degrees of freedom */
static double t_cdf(double t, double df)
{
	double tail = 0.5 * beta_inc(df / 2, 0.5, df / (df + t * t));

	return t >= 0 ? 1 - tail : tail;
}

double stats_t_quantile(double p, unsigned int df)
{
	double lo = 0, hi = 1e6, mid;
	int i;

	if (!df || !(p > 0 && p < 1))
		return NAN;
	if (p < 0.5)
		return -stats_t_quantile(1 - p, df);
	/* t_cdf is increasing: bisect to full double precision */
	for (i = 0; i < 200; i++) {
		mid = (lo + hi) / 2;
		if (t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

int stats_mean_ci_t(const double *v, size_t n, double conf, double *mean,
		    double *lo, double *hi)
{
	double m, half;

	if (n < 2 || has_nan(v, n) || !(conf > 0 && conf < 1))
		return -EINVAL;
	m = stats_mean(v, n);
	half = stats_t_quantile((1 + conf) / 2, (unsigned int)(n - 1)) *
	       stats_stddev(v, n) / sqrt((double)n);
	*mean = m;
	*lo = m - half;
	*hi = m + half;
	return 0;
}

int stats_ratio_rounds(const double *ratio, size_t n, double conf,
		       double *geomean, double *lo, double *hi)
{
	double m, v, half;
	int err;

	if (!n || !(conf > 0 && conf < 1))
		return -EINVAL;
	if (n == 1) {
		if (!(ratio[0] > 0) || isinf(ratio[0]))
			return -EINVAL;
		*geomean = ratio[0];
		*lo = *hi = NAN;
		return 0;
	}
	err = stats_log_mean_var(ratio, n, &m, &v);
	if (err)
		return err;
	half = stats_t_quantile((1 + conf) / 2, (unsigned int)(n - 1)) *
	       sqrt(v);
	*geomean = exp(m);
	*lo = exp(m - half);
	*hi = exp(m + half);
	return 0;
}

/* the mean of the logs of v[0..n) and their variance (NaN for n < 2) */
static int log_moments(const double *v, size_t n, double *mean, double *var)
{
	double m = 0, ss = 0, d;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!(v[i] > 0) || isinf(v[i]))
			return -EINVAL;
		m += log(v[i]);
	}
	m /= n;
	for (i = 0; i < n; i++) {
		d = log(v[i]) - m;
		ss += d * d;
	}
	*mean = m;
	*var = n > 1 ? ss / (n - 1) : NAN;
	return 0;
}

int stats_ratio_welch(const double *a, size_t na, const double *b,
		      size_t nb, double conf, double *ratio, double *lo,
		      double *hi)
{
	double ma, va, mb, vb, sa, sb, se2, df, half;

	if (!na || !nb || !(conf > 0 && conf < 1) ||
	    log_moments(a, na, &ma, &va) || log_moments(b, nb, &mb, &vb))
		return -EINVAL;
	*ratio = exp(mb - ma);
	*lo = *hi = NAN;
	if (na < 2 || nb < 2)
		return 0;
	sa = va / na;
	sb = vb / nb;
	se2 = sa + sb;
	if (se2 == 0) {
		*lo = *hi = *ratio;
		return 0;
	}
	df = se2 * se2 / (sa * sa / (na - 1) + sb * sb / (nb - 1));
	half = stats_t_quantile((1 + conf) / 2,
				df < 1 ? 1 : (unsigned int)floor(df + 1e-6)) *
	       sqrt(se2);
	*lo = exp(mb - ma - half);
	*hi = exp(mb - ma + half);
	return 0;
}

int stats_log_mean_var(const double *ratio, size_t n, double *mean,
		       double *var)
{
	double *l, sd;
	size_t i;

	if (n < 2)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!(ratio[i] > 0) || isinf(ratio[i]))
			return -EINVAL;
	l = malloc(n * sizeof(*l));
	if (!l)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		l[i] = log(ratio[i]);
	*mean = stats_mean(l, n);
	sd = stats_stddev(l, n);
	*var = sd * sd / (double)n;
	free(l);
	return 0;
}

/* Welch-Satterthwaite: df of a sum of variance terms c[i] with df d[i] */
static unsigned int satterthwaite(const double *c, const double *d, int n)
{
	double sum = 0, den = 0, df;
	int i;

	for (i = 0; i < n; i++) {
		sum += c[i];
		if (c[i] > 0 && d[i] > 0)
			den += c[i] * c[i] / d[i];
	}
	if (!(den > 0))
		return 1;
	df = sum * sum / den;
	return df < 1 ? 1 : df > 1e6 ? 1000000 : (unsigned int)df;
}

int stats_between_runs(double m0, double v0, unsigned int n0,
		       const double *m, const double *v, size_t k,
		       double conf, struct stats_between *out)
{
	double mean = m0, ss, c[3], d[3], half, p = (1 + conf) / 2;
	size_t i;

	if (n0 < 2 || !(v0 >= 0) || isnan(m0) || !(conf > 0 && conf < 1))
		return -EINVAL;
	out->vbar = v0;
	for (i = 0; i < k; i++) {
		if (!(v[i] >= 0) || isnan(m[i]))
			return -EINVAL;
		mean += m[i];
		out->vbar += v[i];
	}
	mean /= (double)(k + 1);
	out->vbar /= (double)(k + 1);
	ss = (m0 - mean) * (m0 - mean);
	for (i = 0; i < k; i++)
		ss += (m[i] - mean) * (m[i] - mean);
	out->tau2 = k ? ss / (double)k - out->vbar : 0;
	if (!(out->tau2 > 0))
		out->tau2 = 0;

	c[0] = v0;
	d[0] = n0 - 1;
	c[1] = out->tau2;
	d[1] = (double)k;
	out->df = satterthwaite(c, d, 2);
	half = stats_t_quantile(p, out->df) * sqrt(v0 + out->tau2);
	out->lo = m0 - half;
	out->hi = m0 + half;

	/*
	 * the repeat run's rounds: like the earlier runs' (independent of
	 * v0), or like this run's when there is none (then one estimate)
	 */
	c[1] = k ? (out->vbar * (double)(k + 1) - v0) / (double)k : v0;
	d[1] = (double)k * (n0 - 1);
	c[2] = 2 * out->tau2;
	d[2] = (double)k;
	if (k) {
		out->rdf = satterthwaite(c, d, 3);
	} else {
		out->rdf = n0 - 1;
	}
	half = stats_t_quantile(p, out->rdf) * sqrt(v0 + c[1] + c[2]);
	out->rlo = m0 - half;
	out->rhi = m0 + half;
	return 0;
}
