/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Exact statistics on raw samples, and confidence intervals for the
 * comparisons a report makes ("mode B is 2.1x mode A at the median").
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

#define STATS_BOOTSTRAP_REPS	2000

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
 * In-place percentile by selection (expected O(n), reorders v): what
 * the bootstrap uses per replicate instead of a sort.
 */
double stats_select_percentile(double *v, size_t n, double p);

/*
 * Percentile bootstrap CI of percentile_p(b) / percentile_p(a) (p = 50:
 * ratio of medians). Each of reps replicates resamples a and b
 * independently with replacement (xoshiro256** seeded from seed via
 * splitmix64, so a seed gives the same interval), and [lo, hi] are the
 * (1 -/+ conf) / 2 percentiles of the replicate ratios. reps 0 means
 * STATS_BOOTSTRAP_REPS; conf in (0, 1), e.g. 0.95. A replicate with
 * percentile_p(a) == 0 gives an infinite (or NaN for 0/0) ratio.
 */
int stats_bootstrap_ratio_ci(const double *a, size_t na,
			     const double *b, size_t nb, double p,
			     unsigned int reps, double conf, uint64_t seed,
			     double *lo, double *hi);

/*
 * Distribution-free CI of the p-th percentile (p = 50: the median) from
 * order statistics: [x(l), x(u)] with l the largest and u the smallest
 * rank such that P(Binom(n, p/100) < l) <= (1 - conf) / 2 and
 * P(Binom(n, p/100) >= u) <= (1 - conf) / 2, so coverage >= conf with no
 * assumption on the distribution (the classic sign-test interval).
 * Too few samples for conf (n < 6 for a 95% median): [min, max] and
 * -ERANGE.
 */
int stats_percentile_ci(const double *v, size_t n, double p, double conf,
			double *lo, double *hi);
int stats_median_ci(const double *v, size_t n, double conf,
		    double *lo, double *hi);

#endif /* CONVBENCH_STATS_H */
