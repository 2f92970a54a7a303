/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Exact statistics on raw samples, and the confidence intervals of the
 * comparisons a report makes ("mode B is 0.8x mode A at the median"),
 * from the variation between rounds (see stats_ratio_rounds()).
 *
 * Percentiles use linear interpolation between order statistics, the
 * same as numpy.percentile(x, p) with its default method 'linear':
 * h = (n - 1) * p / 100, result = x[floor(h)] + (h - floor(h)) *
 * (x[floor(h) + 1] - x[floor(h)]) on the sorted samples.
 *
 * Samples must not be NaN (-EINVAL). Functions that take a const array
 * work on a private copy (-ENOMEM if it cannot be allocated).
 */
#ifndef CONVBENCH_STATS_H
#define CONVBENCH_STATS_H

#include <stddef.h>
#include <stdint.h>

struct stats_summary {
	size_t n;
	double min, max, mean;
	double stddev;		/* sample stddev: numpy.std(x, ddof=1) */
	double p50, p90, p99;
};

/* percentile of already sorted samples, p in [0, 100]; NaN if n == 0 */
double stats_percentile_sorted(const double *sorted, size_t n, double p);
int stats_percentile(const double *v, size_t n, double p, double *out);
int stats_median(const double *v, size_t n, double *out);
double stats_mean(const double *v, size_t n);		/* NaN if n == 0 */
double stats_stddev(const double *v, size_t n);		/* NaN if n < 2 */
/* all of the above at once, one sort; -EINVAL if n == 0 */
int stats_summary(const double *v, size_t n, struct stats_summary *s);

/* the same for u64 samples (ns or cycles), converted to double */
int stats_percentile_u64(const uint64_t *v, size_t n, double p, double *out);
int stats_summary_u64(const uint64_t *v, size_t n, struct stats_summary *s);

/* in-place sort of doubles, ascending */
void stats_sort(double *v, size_t n);
/*
 * In-place percentile by selection (expected O(n), reorders v).
 */
double stats_select_percentile(double *v, size_t n, double p);

/* samples of sorted[] strictly greater than v: what lies beyond a percentile */
size_t stats_beyond_sorted(const double *sorted, size_t n, double v);

/*
 * Student's t: the quantile t with P(T <= t) = p for df degrees of
 * freedom (p in (0, 1), df >= 1), e.g. stats_t_quantile(0.975, 4) =
 * 2.776. NaN for bad arguments.
 */
double stats_t_quantile(double p, unsigned int df);

/*
 * The t interval of the mean of n >= 2 values (independent, roughly
 * normal): mean -/+ t((1 + conf) / 2, n - 1) * stddev / sqrt(n).
 * -EINVAL for n < 2, NaN among v or conf outside (0, 1).
 */
int stats_mean_ci_t(const double *v, size_t n, double conf, double *mean,
		    double *lo, double *hi);

/*
 * A ratio measured once per round (inplace/destructive p50 of round r,
 * all > 0): its geometric mean and the t interval of the mean of the
 * log ratios, taken back with exp(). Rounds are the independent units,
 * the samples inside a round are not (they drift and correlate), so
 * this is the interval convbench reports. n == 1 gives the ratio and
 * NaN bounds (return 0); -EINVAL for n == 0 or a ratio <= 0 or NaN.
 */
int stats_ratio_rounds(const double *ratio, size_t n, double conf,
		       double *geomean, double *lo, double *hi);

/*
 * Two independent runs' per-round values of one statistic (a cell's p50
 * of each boot of run a and of run b, all > 0): the ratio of their
 * geometric means b/a, and the Welch t interval of the difference of
 * the mean logs (df by Welch-Satterthwaite, rounded down but for 1e-6 of rounding
 * error), taken back
 * with exp(). The boots are the independent units of each run. With
 * na or nb == 1 the ratio and NaN bounds; with both runs' rounds all
 * equal, lo = hi = the ratio. -EINVAL for na or nb == 0, a value <= 0,
 * infinite or NaN, or conf outside (0, 1).
 */
int stats_ratio_welch(const double *a, size_t na, const double *b,
		      size_t nb, double conf, double *ratio, double *lo,
		      double *hi);

/*
 * The mean of the logs of n >= 2 ratios (all > 0) and the variance of
 * that mean (s^2 / n): 0, -EINVAL or -ENOMEM
 */
int stats_log_mean_var(const double *ratio, size_t n, double *mean,
		       double *var);

/*
 * Intervals of a log ratio with a term for the variation between runs.
 * Rounds of one run share the machine's state of those minutes (other
 * load on the host, its caches): a second run later moves by more than
 * the rounds of one run spread. This run gives m0, the mean of its
 * n0 >= 2 per-round log ratios, and v0, the variance of that mean
 * (s^2 / n0); k earlier runs of the same build and method on the same
 * machine give theirs, m[] and v[].
 *
 * tau2, the variance between runs, is Hedges' moment estimate over the
 * k + 1 runs: the variance of their means less the mean of their v
 * (vbar), or 0 when that is negative (the runs agree as well as their
 * rounds say). Two intervals, both centred on m0, df by
 * Welch-Satterthwaite and rounded down (few runs make tau2 uncertain,
 * and the interval wide):
 *   lo..hi    the machine's ratio: m0 -/+ t * sqrt(v0 + tau2);
 *   rlo..rhi  where a repeat run's mean lands (a prediction interval):
 *             m0 -/+ t * sqrt(v0 + ve + 2 tau2), ve the mean v of the
 *             earlier runs (k (n0 - 1) df) standing for the repeat
 *             run's rounds.
 * With k == 0, tau2 is 0 and unknown: lo..hi is the t interval over
 * this run's rounds, rlo..rhi m0 -/+ t(n0 - 1) * sqrt(2 v0), the same
 * for two runs that do not move.
 *
 * -EINVAL for n0 < 2, v0 or any v[] < 0 or NaN, or conf outside (0, 1).
 */
struct stats_between {
	double tau2, vbar;	/* log scale */
	unsigned int df, rdf;	/* of the t quantiles used */
	double lo, hi;		/* the machine's log ratio */
	double rlo, rhi;	/* a repeat run's */
};

int stats_between_runs(double m0, double v0, unsigned int n0,
		       const double *m, const double *v, size_t k,
		       double conf, struct stats_between *out);

#endif /* CONVBENCH_STATS_H */
