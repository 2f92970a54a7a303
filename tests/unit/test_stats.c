// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of lib/stats: numpy-'linear' percentiles (expected values
 * worked out by hand from numpy's definition), selection == sort,
 * mean/stddev, Student t quantiles against the tables, the t interval
 * over rounds of a ratio (agreeing rounds, 1 and 2 rounds, bad input,
 * coverage near 95% in simulation), samples beyond a percentile.
 *
 * Output: TAP-like lines, then "N passed, N failed". Exit 0 pass, 1 fail.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rng.h"
#include "stats.h"
#include "tap.h"

static uint64_t rng_state = 0x2545f4914f6cdd1dULL;

/* splitmix64 (lib/rng.h): a fixed stream, so every run draws the same */
static uint64_t rnd(void)
{
	return rng_splitmix64(&rng_state);
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

static void test_t_quantile(void)
{
	/* Student t 0.975 quantiles from the tables */
	static const struct { unsigned int df; double t; } q[] = {
		{ 1, 12.7062 }, { 2, 4.3027 }, { 4, 2.7764 }, { 9, 2.2622 },
		{ 30, 2.0423 }, { 1000, 1.9623 },
	};
	unsigned int i, bad = 0;

	for (i = 0; i < sizeof(q) / sizeof(q[0]); i++)
		bad += fabs(stats_t_quantile(0.975, q[i].df) - q[i].t) > 1e-4;
	tap_result(!bad, "t quantiles match the tables (df 1, 2, 4, 9, 30, 1000)");
	tap_result(near(stats_t_quantile(0.025, 4), -stats_t_quantile(0.975, 4)) &&
		   fabs(stats_t_quantile(0.5, 7)) < 1e-9,
		   "t quantiles are symmetric, the median is 0");
	tap_result(isnan(stats_t_quantile(1, 4)) && isnan(stats_t_quantile(0.9, 0)),
		   "t quantile refuses p = 1 and df = 0");
}

static void test_round_intervals(void)
{
	double v[5] = { 1, 2, 3, 4, 5 }, m, lo, hi, g;
	double same[3] = { 2, 2, 2 }, two[2] = { 1, 4 }, bad[2] = { 1, -1 };
	double sorted[6] = { 1, 2, 2, 3, 5, 8 };
	int covered = 0, i;

	tap_result(!stats_mean_ci_t(v, 5, 0.95, &m, &lo, &hi) && near(m, 3) &&
		   fabs(lo - 1.0368) < 1e-3 && fabs(hi - 4.9632) < 1e-3,
		   "t interval of 1..5: 3 (1.037..4.963)");
	tap_result(!stats_ratio_rounds(same, 3, 0.95, &g, &lo, &hi) &&
		   near(g, 2) && near(lo, 2) && near(hi, 2),
		   "rounds that agree: the ratio, a zero-width interval");
	tap_result(!stats_ratio_rounds(two, 2, 0.95, &g, &lo, &hi) &&
		   near(g, 2) && lo < 0.05 && hi > 80 && near(lo * hi, 4),
		   "two rounds 1 and 4: geometric mean 2, an interval symmetric in log and wide (t with 1 df)");
	tap_result(!stats_ratio_rounds(two, 1, 0.95, &g, &lo, &hi) &&
		   near(g, 1) && isnan(lo) && isnan(hi),
		   "one round: the ratio, no interval");
	tap_result(stats_ratio_rounds(bad, 2, 0.95, &g, &lo, &hi) == -EINVAL &&
		   stats_ratio_rounds(two, 0, 0.95, &g, &lo, &hi) == -EINVAL &&
		   stats_mean_ci_t(v, 1, 0.95, &m, &lo, &hi) == -EINVAL,
		   "a ratio <= 0, no rounds, one value for a mean: refused");
	/* coverage: 5 rounds whose ratio scatters (lognormal) around 0.8 */
	for (i = 0; i < 2000; i++) {
		double r[5];

		fill_lognormal(r, 5, 0.8, 0.1);
		stats_ratio_rounds(r, 5, 0.95, &g, &lo, &hi);
		covered += lo <= 0.8 && hi >= 0.8;
	}
	tap_diag("5-round intervals cover the true ratio in %d of 2000", covered);
	tap_result(covered >= 1860 && covered <= 1940,
		   "coverage of the 95%% interval over rounds is 93..97%% (%d/2000)",
		   covered);
	tap_result(stats_beyond_sorted(sorted, 6, 2) == 3 &&
		   stats_beyond_sorted(sorted, 6, 8) == 0 &&
		   stats_beyond_sorted(sorted, 6, 0.5) == 6,
		   "samples beyond a value: strictly greater, ties not counted");
	(void)now_s;
}

/* one run of a machine whose state moves between runs: its rounds' log ratios */
static void fill_run(double *l, size_t n, double run_sd, double round_sd)
{
	double u, r[1];
	size_t i;

	fill_lognormal(r, 1, 1, run_sd);
	u = log(r[0]);
	fill_lognormal(l, n, 1, round_sd);
	for (i = 0; i < n; i++)
		l[i] = u + log(l[i]);
}

static void mean_var(const double *l, size_t n, double *m, double *v)
{
	double s = 0, ss = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += l[i];
	*m = s / n;
	for (i = 0; i < n; i++)
		ss += (l[i] - *m) * (l[i] - *m);
	*v = ss / (n - 1) / n;
}

static void test_between_runs(void)
{
	double m[3] = { 0.05, -0.05 }, v[3] = { 1e-4, 1e-4 };
	double same_m[2] = { 0.1, 0.1 }, same_v[2] = { 4e-4, 4e-4 }, bad[1] = { -1 };
	int in_rounds = 0, in_runs = 0, next_rounds = 0, next_runs = 0, i, j;
	struct stats_between b;

	tap_result(!stats_between_runs(0, 1e-4, 5, m, v, 2, 0.95, &b) &&
		   fabs(b.tau2 - 0.0024) < 1e-12 && b.df == 2 &&
		   fabs(b.hi - 4.3027 * 0.05) < 1e-4 && fabs(b.lo + b.hi) < 1e-12,
		   "3 runs at -0.05, 0, 0.05 (each +-0.01): tau2 0.0024, df 2, +-0.215");
	/* repeat: sqrt(1e-4 + 1e-4 + 0.0048) = 0.0707, df 2.2 -> 2 */
	tap_result(b.rdf == 2 && fabs(b.rhi - 4.3027 * sqrt(0.005)) < 1e-4,
		   "a repeat run of those: +-4.303 * sqrt(v0 + vbar + 2 tau2) = +-0.304");
	tap_result(!stats_between_runs(0.1, 4e-4, 5, same_m, same_v, 2, 0.95, &b) &&
		   b.tau2 == 0 && b.df == 4 && fabs(b.hi - 0.1 - 2.7764 * 0.02) < 1e-4,
		   "runs that agree: no between-run term, the 4-df interval over rounds");
	tap_result(!stats_between_runs(0.1, 4e-4, 5, NULL, NULL, 0, 0.95, &b) &&
		   b.tau2 == 0 && b.df == 4 && b.rdf == 4 &&
		   fabs(b.rhi - 0.1 - 2.7764 * sqrt(8e-4)) < 1e-4,
		   "no earlier run: the interval over rounds; a repeat run's is sqrt(2) wider");
	tap_result(stats_between_runs(0, 1e-4, 1, m, v, 2, 0.95, &b) == -EINVAL &&
		   stats_between_runs(0, 1e-4, 5, m, bad, 1, 0.95, &b) == -EINVAL &&
		   stats_between_runs(0, NAN, 5, m, v, 2, 0.95, &b) == -EINVAL,
		   "one round, a negative or NaN variance: refused");
	/*
	 * a machine whose runs move by 3% (log sd) and whose rounds scatter
	 * by 4%: 5 rounds per run, this run and 3 earlier ones. How often
	 * does each interval hold the machine's ratio (1), and the mean of
	 * a next run?
	 */
	for (i = 0; i < 2000; i++) {
		double l[5], m0, v0, mm[3], vv[3], lo, hi, g, next, vn;
		struct stats_between x;

		for (j = 0; j < 3; j++) {
			fill_run(l, 5, 0.03, 0.04);
			mean_var(l, 5, &mm[j], &vv[j]);
		}
		fill_run(l, 5, 0.03, 0.04);
		mean_var(l, 5, &m0, &v0);
		for (j = 0; j < 5; j++)
			l[j] = exp(l[j]);
		stats_ratio_rounds(l, 5, 0.95, &g, &lo, &hi);
		stats_between_runs(m0, v0, 5, mm, vv, 3, 0.95, &x);
		fill_run(l, 5, 0.03, 0.04);
		mean_var(l, 5, &next, &vn);
		in_rounds += log(lo) <= 0 && log(hi) >= 0;
		in_runs += x.lo <= 0 && x.hi >= 0;
		next_rounds += log(lo) <= next && log(hi) >= next;
		next_runs += x.rlo <= next && x.rhi >= next;
	}
	tap_diag("runs moving 3%%, rounds 4%%: the machine's ratio in the rounds' "
		 "interval %d, in the runs' %d of 2000; a next run's mean in "
		 "the rounds' %d, in the repeat interval %d",
		 in_rounds, in_runs, next_rounds, next_runs);
	tap_result(in_rounds < 1800 && in_runs >= 1880,
		   "between runs: the rounds' interval misses the machine's ratio "
		   "(%d/2000 < 90%%), the one with the between-run term does not "
		   "(%d/2000 >= 94%%)", in_rounds, in_runs);
	tap_result(next_rounds < 1600 && next_runs >= 1840,
		   "a next run lands outside the rounds' interval often (%d/2000 "
		   "< 80%%), inside the repeat interval >= 92%% (%d/2000)",
		   next_rounds, next_runs);
}

/*
 * B over A from two runs' boots: a = exp(0, .2, -.2) (log variance
 * .04), b = exp(.5, .6, .4, .5, .7, .3) (.02): Welch's df 3.05, so
 * t(.975, 3) = 3.182446 and half = 3.182446 * sqrt(.04/3 + .02/6) =
 * 0.410851 about log ratio .5 (a pooled-variance t with 7 df gives
 * 0.29); hand-computed
 */
static void test_welch(void)
{
	double a[3] = { 1, exp(0.2), exp(-0.2) };
	double b[6] = { exp(0.5), exp(0.6), exp(0.4), exp(0.5), exp(0.7),
			exp(0.3) };
	double same[2] = { 2, 2 }, bad[2] = { 1, 0 }, r = NAN, lo = NAN;
	double hi = NAN;
	int e = stats_ratio_welch(a, 3, b, 6, 0.95, &r, &lo, &hi);

	tap_result(!e && fabs(r - exp(0.5)) < 1e-9 &&
		   fabs(lo - exp(0.5 - 0.410851)) < 1e-5 &&
		   fabs(hi - exp(0.5 + 0.410851)) < 1e-5,
		   "Welch: B/A %.4f (%.4f..%.4f), df 3 from unequal boots and "
		   "variances", r, lo, hi);
	tap_result(!stats_ratio_welch(same, 2, same, 2, 0.95, &r, &lo, &hi) &&
		   near(r, 1) && near(lo, 1) && near(hi, 1),
		   "Welch: runs whose boots all agree: the ratio, zero width");
	tap_result(!stats_ratio_welch(a, 1, b, 6, 0.95, &r, &lo, &hi) &&
		   near(r, exp(0.5)) && isnan(lo) && isnan(hi),
		   "Welch: one boot in A: the ratio, no interval");
	tap_result(stats_ratio_welch(bad, 2, b, 6, 0.95, &r, &lo, &hi) ==
		   -EINVAL && stats_ratio_welch(a, 0, b, 6, 0.95, &r, &lo,
						&hi) == -EINVAL,
		   "Welch: a value <= 0 or a run without boots: refused");
}

int main(void)
{
	test_percentiles();
	test_select_matches_sort();
	test_moments();
	test_t_quantile();
	test_round_intervals();
	test_between_runs();
	test_welch();
	return tap_finish(false);
}
