/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The statistics convbench reports, computed once from the cells of all
 * rounds and used by every writer (stdout, summary.json, histograms):
 *
 * - per (mode, size, direction): the samples of all rounds pooled: n,
 *   mean, min, max, p50/p90/p99 (numpy 'linear', lib/stats/stats.h) each with
 *   the number of samples beyond it; per round n and p50/p90/p99; the
 *   p50's 95% t interval over the rounds' p50s; median phases.
 * - per (size, direction) with both modes: for p50, p90 and p99 the
 *   ratio inplace/destructive of every round, their geometric mean, the
 *   95% intervals of struct ratio_pct (from this run's rounds alone;
 *   earlier runs are only listed beside them, bench/report/history.h),
 *   and the ratio of the pooled
 *   percentiles. A tail ratio (p90, p99) is "shown" only
 *   when at least STATS_TAIL_MIN samples lie beyond that percentile in
 *   each mode: fewer make it a coin toss.
 *
 * Rounds, not samples, are the independent units: samples within a
 * round drift and correlate, so no interval here treats them as
 * independent.
 */
#ifndef CONVBENCH_CELLSTATS_H
#define CONVBENCH_CELLSTATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "run_env.h"
#include "cell_types.h"
#include "effect.h"

#define CS_CONF		0.95
#define STATS_TAIL_MIN	50	/* samples beyond a percentile to show it */

enum cs_pct { CS_P50, CS_P90, CS_P99, CS_NPCT };
extern const double cs_pct_value[CS_NPCT];	/* 50, 90, 99 */
extern const char *const cs_pct_name[CS_NPCT];	/* "p50", ... */

/* the phases of a conversion, in ns (median over the pooled samples) */
enum cs_phase { PH_COPY, PH_EXIT_RT, PH_AFTER_EXIT, PH_HOST, PH_RECORD,
		PH_MEMORY, PH_RELEASE, PH_NR };
extern const char *const cs_phase_name[PH_NR];

/*
 * The tail spectrum of a cell: pooled percentiles with 95% bands from
 * resampling whole rounds (boots) with replacement, CS_BOOT times (the
 * percentile bootstrap; run_stats_bands())
 */
#define CS_NSPEC	4
#define CS_BOOT		1000
extern const double cs_spec_value[CS_NSPEC];	/* 50, 90, 99, 99.9 */
extern const char *const cs_spec_name[CS_NSPEC];

struct cs_band {
	double value, lo, hi;	/* lo..hi NaN below 2 rounds */
	size_t beyond;
};

struct cs_round {
	uint32_t round;
	size_t off;		/* its samples in cell_stats.by_round */
	uint8_t boot_slot;	/* cell_params.boot_slot: 0 without a design */
	size_t n;
	double pct[CS_NPCT];
	/* the emulator's fixed cost of one conversion (cs_fixed_cost()) */
	double fixed_ns;
	/* what it came from, as its first block's VM had them; NaN unknown */
	double cal_ns[CAL_NR];
	double npf;		/* NPT faults per conversion */
};

/*
 * The emulator's fixed cost of one conversion of r in direction d, in
 * ns: its userspace exits (the samples' exits) at r's null exit each,
 * and its NPT faults that KVM fixed without userspace (r->npf[], else
 * the --counts work of its samples) at r's NPT fault each. NaN where r
 * has no calibration or no fault count.
 */
double cs_fixed_cost(const struct cell_result *r, enum conv_dir d);

struct cell_stats {
	enum conv_mode mode;
	uint64_t size;
	enum conv_dir dir;
	const struct cell_result *first;	/* the cell's settings */
	size_t n;			/* pooled over rounds */
	double mean, stddev, min, max;
	double pct[CS_NPCT];
	size_t beyond[CS_NPCT];		/* samples > pct[] */
	double p50_lo, p50_hi;		/* t over rounds; NaN < 2 rounds */
	double first_p50;		/* request to first access */
	double phase_p50[PH_NR];
	double exits_mean;
	/* the calibration: medians over the cell's VMs, their samples */
	double cal_ns[CAL_NR];
	uint32_t cal_n[CAL_NR];
	double fixed_ns;		/* median over rounds; NaN unknown */
	unsigned int nrounds;
	struct cs_round round[MAX_ROUNDS];
	double *total;			/* pooled total_ns, sorted, n */
	double *by_round;		/* the same, each round's sorted apart */
	bool banded;			/* spec[] computed */
	struct cs_band spec[CS_NSPEC];
	/* aggregated over the cell's rounds */
	uint64_t conversions;
	/* the rounds' VM-wide counts (cell_result.vm_counts), their conversions */
	uint64_t vm_ipis, vm_tlb_flush_req, vm_conversions;
	double wall_s;
	bool interrupted;
	const char *error;		/* the first round's error, or NULL */
	uint64_t tsc_khz;
};

#define HISTORY_MAX	32	/* earlier runs listed beside a ratio */
/*
 * The covariates of a ratio's fit, by what the run's order was:
 * - a design's boots (make bench, lib/stats/design.h), both modes in one
 *   boot (inplace/destructive): the boot's time along the run; the order
 *   effects inside the boot cancel in its ABBA blocks and the factors
 *   across boots are balanced;
 * - a design's boots, the modes in the two boots of a round (against
 *   gmem): the round's time and its kernel order (+1/2 when the gmem
 *   boot came first), so that the estimate is for both orders' average;
 * - no design (convbench's own rounds, bench/cell/plan.h): the round's
 *   time and its parity, which the order alternates with.
 */
enum cs_cov { CS_COV_TIME, CS_COV_SECOND, CS_NCOV };
enum cs_cov_set { CS_COVS_PLAN, CS_COVS_BOOT, CS_COVS_ROUND };
/* each set's names, for effect_json_covariates() (the rest NULL) */
extern const char *const cs_cov_names[3][EFFECT_MAX_COV];

struct ratio_pct {
	/*
	 * exp of the fit's intercept: with the covariates centred, the
	 * geometric mean of the per-round ratios
	 */
	double ratio;
	/*
	 * The 95% CI of this configuration's ratio on this host, from this
	 * run alone (lib/stats/effect.h): the log per-round ratios, one
	 * unit per round, fitted on the round's time (a drift along the
	 * run) and its parity (which kernel, which mode and which phase ran
	 * first alternate by round); t with n - 1 - covariates kept df.
	 * jlo..jhi: at the level where all family ratios of the run hold
	 * jointly (Bonferroni). NaN below 2 rounds. No earlier run enters.
	 */
	double lo, hi, jlo, jhi;
	unsigned int df;
	unsigned int family;		/* estimated ratios, derived ones not */
	bool derived;			/* a quotient of two estimated ones */
	struct effect_fit fit;		/* lo..hi's: covariates, slopes, sds */
	/* earlier runs (--history): listed for repeatability, in no CI */
	unsigned int nearlier;
	const char *earlier_name[HISTORY_MAX];
	double earlier[HISTORY_MAX];	/* their ratios */
	double pooled;			/* pooled inplace / pooled destructive */
	size_t beyond_de, beyond_in;
	bool shown;			/* p50, or both beyond >= STATS_TAIL_MIN */
	unsigned int nrounds;
	uint32_t round_id[MAX_ROUNDS];
	double per_round[MAX_ROUNDS];
	/* the covariates: which set, and each round's values (centred later) */
	enum cs_cov_set covs;
	double cov[MAX_ROUNDS][CS_NCOV];
};

/*
 * num over den; de, in name the denominator and numerator after the
 * first pair, inplace over destructive (beyond_de, beyond_in too)
 */
struct ratio_stats {
	uint64_t size;
	enum conv_dir dir;
	enum conv_mode num, den;
	const struct cell_stats *de, *in;
	struct ratio_pct pct[CS_NPCT];
	/*
	 * p50 less the emulator's fixed cost (cs_round.fixed_ns), round by
	 * round, with its own 95% CI (in no family); nrounds 0: unknown
	 */
	struct ratio_pct norm;
};

struct run_stats {
	struct cell_stats *cells;	/* mode, size, direction order */
	size_t ncells;
	struct ratio_stats *ratios;
	size_t nratios;
};

/* 0 or -ENOMEM; res[] must outlive rs */
int run_stats_build(const struct cell_result *res, size_t n,
		    struct run_stats *rs);
void run_stats_free(struct run_stats *rs);
/*
 * Every cell's spec[]: the pooled percentiles of cs_spec_value with the
 * 2.5% and 97.5% quantiles of the same percentile over CS_BOOT pools of
 * rounds drawn with replacement (seeded by the cell: reproducible)
 */
void run_stats_bands(struct run_stats *rs);
/*
 * q->in over q->de, rounds paired by round number (q->size, dir, num,
 * den, de and in set by the caller)
 */
void ratio_stats_build(struct ratio_stats *q);
/* x's 95% interval from its per-round ratios (jlo..jhi the same) */
void ratio_pct_intervals(struct ratio_pct *x);
/*
 * The joint intervals of q[0..n) over family estimated ratios (the
 * run's p50 ratios, derived ones not counted), from the fit already
 * made; derived: q are quotients of two others (inplace over gmem)
 */
void ratio_stats_family(struct ratio_stats *q, size_t n, unsigned int family,
			bool derived);
const struct cell_stats *run_stats_cell(const struct run_stats *rs,
					enum conv_mode m, uint64_t size,
					enum conv_dir d);

/* ns of a TSC delta of res */
double tsc_ns(const struct cell_result *res, uint64_t cycles);

#endif /* CONVBENCH_CELLSTATS_H */
