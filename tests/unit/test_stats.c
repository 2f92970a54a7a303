// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of lib/stats: numpy-'linear' percentiles (expected values
 * worked out by hand from numpy's definition), selection == sort,
 * mean/stddev, the order-statistic CI ranks (exact binomial), and the
 * bootstrap ratio CI: deterministic, covers a known 2x ratio, narrows
 * with more samples, fast enough for 2000 replicates.
 *
 * Output: TAP-like lines, then "N passed, N failed". Exit 0 pass, 1 fail.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stats.h"
#include "tap.h"

static uint64_t rng_state = 0x2545f4914f6cdd1dULL;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* uniform in (0, 1] */
static double rnd_unit(void)
{
	return ((rnd() >> 11) + 1) * 0x1p-53;
}

/* lognormal with the given median (Box-Muller), latency-like skew */
static void fill_lognormal(double *v, size_t n, double median, double sigma)
{
	size_t i;

	for (i = 0; i < n; i++) {
		double z = sqrt(-2 * log(rnd_unit())) *
			   cos(2 * M_PI * rnd_unit());

		v[i] = median * exp(sigma * z);
	}
}

static bool near(double a, double b)
{
	return fabs(a - b) <= 1e-12 * (fabs(b) > 1 ? fabs(b) : 1);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------------ */

static void test_percentiles(void)
{
	static const struct {
		double x[6];
		size_t n;
		double p, want;
	} cases[] = {
		{ { 1, 2, 3, 4 }, 4, 0, 1 },
		{ { 1, 2, 3, 4 }, 4, 25, 1.75 },
		{ { 1, 2, 3, 4 }, 4, 50, 2.5 },
		{ { 1, 2, 3, 4 }, 4, 75, 3.25 },
		{ { 1, 2, 3, 4 }, 4, 90, 3.7 },
		{ { 1, 2, 3, 4 }, 4, 100, 4 },
		{ { 15, 20, 35, 40, 50 }, 5, 10, 17 },
		{ { 15, 20, 35, 40, 50 }, 5, 40, 29 },
		{ { 15, 20, 35, 40, 50 }, 5, 50, 35 },
		{ { 15, 20, 35, 40, 50 }, 5, 95, 48 },
		{ { 3, 1, 2, 3, 3, 0 }, 6, 20, 1 },
		{ { 3, 1, 2, 3, 3, 0 }, 6, 50, 2.5 },
		{ { 3, 1, 2, 3, 3, 0 }, 6, 90, 3 },
		{ { 42 }, 1, 50, 42 },
		{ { 42 }, 1, 99, 42 },
	};
	unsigned int i, bad = 0;
	double out;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (stats_percentile(cases[i].x, cases[i].n, cases[i].p, &out) ||
		    !near(out, cases[i].want)) {
			tap_diag("case %u: p%g = %.17g, want %g", i,
				 cases[i].p, out, cases[i].want);
			bad++;
		}
	}
	tap_result(!bad, "percentiles match numpy 'linear' on known data");

	{
		static const uint64_t u[] = { 40, 10, 30, 20 };

		tap_result(!stats_percentile_u64(u, 4, 50, &out) && out == 25,
			   "u64 percentile");
	}
	{
		static const double x[] = { 5, 1, 3 }, y[] = { 1, NAN };

		tap_result(!stats_median(x, 3, &out) && out == 3 &&
			   stats_median(x, 0, &out) == -EINVAL &&
			   stats_median(y, 2, &out) == -EINVAL &&
			   isnan(stats_percentile_sorted(x, 0, 50)),
			   "median; n == 0 and NaN samples refused");
	}
}

static void test_select_matches_sort(void)
{
	static const double ps[] = { 0, 1, 10, 25, 33.3, 50, 66.6, 90, 99,
				     99.9, 100 };
	double v[300], s[300], w[300];
	unsigned int bad = 0, n, i, j, trial;

	for (trial = 0; trial < 400; trial++) {
		n = 1 + rnd() % 300;
		for (i = 0; i < n; i++)	/* many ties half of the time */
			v[i] = trial % 2 ? (double)(rnd() % 7) : rnd_unit();
		memcpy(s, v, n * sizeof(*v));
		stats_sort(s, n);
		for (j = 0; j < sizeof(ps) / sizeof(ps[0]); j++) {
			memcpy(w, v, n * sizeof(*v));
			if (stats_select_percentile(w, n, ps[j]) !=
			    stats_percentile_sorted(s, n, ps[j]))
				bad++;
		}
	}
	tap_result(!bad, "quickselect percentile == sort percentile "
		   "(400 arrays, ties)");
}

static void test_moments(void)
{
	static const double x[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	static const uint64_t u[] = { 9, 7, 5, 5, 4, 4, 4, 2 };
	struct stats_summary s, su;
	bool ok;

	ok = stats_mean(x, 8) == 5 && near(stats_stddev(x, 8), 2.138089935299395) &&
	     isnan(stats_stddev(x, 1)) && isnan(stats_mean(x, 0));
	tap_result(ok, "mean, sample stddev (ddof=1)");
	ok = !stats_summary(x, 8, &s) && !stats_summary_u64(u, 8, &su) &&
	     s.n == 8 && s.min == 2 && s.max == 9 && s.mean == 5 &&
	     s.p50 == 4.5 && near(s.p90, 7.6) && near(s.p99, 8.86) &&
	     !memcmp(&s, &su, sizeof(s));
	tap_result(ok, "summary of double and u64 samples");
}

static void test_percentile_ci(void)
{
	static const struct { size_t n; double p, conf; size_t l, u; } c[] = {
		{ 6, 50, 0.95, 1, 6 }, { 10, 50, 0.95, 2, 9 },
		{ 100, 50, 0.95, 40, 61 }, { 1000, 50, 0.95, 469, 532 },
		{ 1000, 50, 0.99, 459, 542 }, { 1000, 90, 0.95, 881, 919 },
		{ 1000, 99, 0.95, 983, 997 },
	};
	double *x = malloc(1000 * sizeof(*x)), lo, hi;
	unsigned int i, bad = 0;

	/* x(k) = k, shuffled: the interval reads back as ranks */
	for (i = 0; i < 1000; i++)
		x[i] = 1000 - i;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		double *y = x + 1000 - c[i].n;	/* values 1..n */

		if (stats_percentile_ci(y, c[i].n, c[i].p, c[i].conf, &lo, &hi) ||
		    lo != c[i].l || hi != c[i].u) {
			tap_diag("n=%zu p%g conf %g: [%g, %g], want [%zu, %zu]",
				 c[i].n, c[i].p, c[i].conf, lo, hi, c[i].l, c[i].u);
			bad++;
		}
	}
	tap_result(!bad, "order-statistic CI ranks match the exact binomial");
	tap_result(stats_median_ci(x + 995, 5, 0.95, &lo, &hi) == -ERANGE &&
		   lo == 1 && hi == 5,
		   "median CI of 5 samples: -ERANGE and [min, max]");
	free(x);
}

static void test_bootstrap(void)
{
	enum { N = 1000, BIG = 4000, SMALL = 250 };
	double *a = malloc(BIG * sizeof(*a)), *b = malloc(BIG * sizeof(*b));
	double lo, hi, lo2, hi2, t, w_small, w_big;
	unsigned int i, covered = 0;
	bool bad;
	int err;

	fill_lognormal(a, N, 1000, 0.5);
	fill_lognormal(b, N, 2000, 0.5);
	t = now_s();
	err = stats_bootstrap_ratio_ci(a, N, b, N, 50, 0, 0.95, 42, &lo, &hi);
	t = now_s() - t;
	tap_diag("bootstrap 2000 reps, 1000+1000 samples: %.1f ms, CI [%.4f, %.4f]",
		 t * 1e3, lo, hi);
	tap_result(!err && lo < 2 && hi > 2 && lo > 1.7 && hi < 2.3,
		   "95%% CI of the median ratio contains the true 2x");
	tap_result(t < 1.0, "2000 replicates of 1000+1000 in under 1 s");

	stats_bootstrap_ratio_ci(a, N, b, N, 50, 0, 0.95, 42, &lo2, &hi2);
	tap_result(lo2 == lo && hi2 == hi, "same seed, same interval");
	stats_bootstrap_ratio_ci(a, N, b, N, 50, 0, 0.95, 43, &lo2, &hi2);
	tap_result(lo2 != lo || hi2 != hi, "another seed, another interval");

	err = stats_bootstrap_ratio_ci(a, N, b, N, 90, 500, 0.95, 1, &lo, &hi);
	tap_result(!err && lo < 2 && hi > 2, "p90 ratio CI contains 2x");

	fill_lognormal(a, BIG, 1000, 0.5);
	fill_lognormal(b, BIG, 2000, 0.5);
	stats_bootstrap_ratio_ci(a, SMALL, b, SMALL, 50, 500, 0.95, 7, &lo, &hi);
	w_small = hi - lo;
	stats_bootstrap_ratio_ci(a, BIG, b, BIG, 50, 500, 0.95, 7, &lo, &hi);
	w_big = hi - lo;
	tap_diag("CI width: %.4f with 250+250, %.4f with 4000+4000", w_small, w_big);
	tap_result(w_big < 0.5 * w_small, "CI narrows with 16x the samples");

	/* coverage over independent data sets (seeded: not flaky) */
	for (i = 0; i < 100; i++) {
		fill_lognormal(a, 200, 1000, 0.5);
		fill_lognormal(b, 200, 2000, 0.5);
		stats_bootstrap_ratio_ci(a, 200, b, 200, 50, 300, 0.95, i, &lo, &hi);
		covered += lo <= 2 && hi >= 2;
	}
	tap_diag("coverage of nominal 95%%: %u/100", covered);
	tap_result(covered >= 85, "coverage near nominal over 100 data sets");

	b[0] = NAN;
	err = stats_bootstrap_ratio_ci(a, 10, b, 10, 50, 0, .95, 1, &lo, &hi);
	bad = err != -EINVAL;
	err = stats_bootstrap_ratio_ci(a, 0, a, 10, 50, 0, .95, 1, &lo, &hi);
	bad |= err != -EINVAL;
	err = stats_bootstrap_ratio_ci(a, 10, a, 10, 50, 0, 1.0, 1, &lo, &hi);
	bad |= err != -EINVAL;
	tap_result(!bad, "bootstrap refuses NaN, empty input, conf 1");
	free(a);
	free(b);
}

int main(void)
{
	test_percentiles();
	test_select_matches_sort();
	test_moments();
	test_percentile_ci();
	test_bootstrap();
	return tap_finish(false);
}
