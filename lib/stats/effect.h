/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The 95% interval of a ratio from this run alone (issue 22, item 2):
 * a confidence interval for this configuration's effect on this host,
 * from the run's own hierarchy (units: boots or rounds; blocks within
 * them; samples within blocks), never from earlier runs.
 *
 * What is estimated. theta, the ratio num/den of the p50 latencies
 * (inplace/destructive, gmem/destructive) of this build and
 * configuration on this host: averaged over boots (a boot's own
 * deviation is noise: another boot is another draw), over the order
 * conditions the design balances (lib/stats/design.h), and, when the machine
 * drifts during the run, at the run's middle. It is not where a repeat
 * run lands, nor the ratio on another host (under TCG a ratio belongs
 * to the host it ran on): repeatability is measured apart, across runs
 * (issue 22, item 3), and never widens this interval.
 *
 * Method: a linear mixed model, fitted on unit summaries. On the log of
 * each run's p50, y(u, j, a) for unit u, block j, arm a (numerator or
 * denominator):
 *   y = mu_a + x_u' beta_a + b(u, a) + e(u, j, a)
 * with b random per unit and arm (the boot's state: ~9% at 4K between
 * boots), e random per block (block and sampling noise: 0.4-1.5%), x_u
 * the unit's design covariates (time for a drift, kernel order), coded
 * 0 at the point estimated. The unit's mean log ratio
 *   d_u = mean over its blocks of y(u, j, num) - y(u, j, den)
 * (paired: the v5 modes share a block in the same boot) or the mean
 * over its numerator runs less the mean over its denominator runs
 * (unpaired: gmem and destructive ran in two boots of the round) then
 * follows d_u = log theta + x_u' beta + eta_u, eta_u independent with
 * one variance when the units are alike. log theta is the intercept of
 * the least-squares fit of d_u on (1, x_u), its variance s^2 (X'X)^-1_00
 * with s^2 the residual variance, and the interval is
 *   exp(intercept -/+ t(1 - alpha/2, n - p) * se).
 * For a balanced nested design (every unit the same number of blocks)
 * this is exactly the REML analysis of the mixed model: the fixed
 * effect's estimate, its standard error and its Satterthwaite (and
 * Kenward-Roger) degrees of freedom are those of the fit on unit means,
 * n - p; so that is what is computed, with no iteration and no variance
 * component that can come out negative. Where a boot lost a block the
 * unit means stay unbiased and s^2 still estimates their spread (the
 * boots' variance dominates the blocks'), so the same t is kept. Each
 * unit counts once: no weighting by blocks, which would let one long
 * boot dominate.
 *
 * Covariates: the caller passes up to EFFECT_MAX_COV, most important
 * first; the intercept always, a covariate only while the residual df
 * stays >= EFFECT_MIN_DF and it is not (nearly) a combination of those
 * kept (a factor that did not vary). The rule depends on the design
 * only, never on the latencies. For inplace/destructive (units: v5
 * boots) the boot's time (design_boot_time()): a ratio drifting along
 * the run (in/de 2M fell 0.152 -> 0.139 over two hours) then widens
 * nothing and is estimated at the middle; drift common to both modes
 * and order effects inside the boot already cancel in the ABBA blocks.
 * For gmem/destructive (units: rounds) the round's time and its kernel
 * order (design_kernel_code()): the two boots of a round run one after
 * the other, so a drift of the host, or being the second boot, shows as
 * a difference that alternates with the kernel order; fitted, it is
 * removed from the noise, and the estimate is for the average of both
 * orders. The design's other factors (traced first, the v5 mode order)
 * are balanced, so their effects average out of the mean; left in the
 * residual they can only widen the interval a little.
 *
 * Why not a cluster bootstrap over boots. It was simulated beside this
 * on the same synthetic runs (tests/unit/test_effect.c prints the
 * table; in/de, 10 v5 boots, 3000 intervals each):
 *                                 no drift   default   strong drift
 *   this method (t, n - p df)       94.9%      95.2%      96.1%
 *   t on boot means, no covariate   95.2%      96.5%      98.4% (+17%)
 *   percentile cluster bootstrap    89.7%      91.2%      95.5%
 *   bootstrap-t over boots          94.6%      95.7%      98.1% (+24%)
 * (in brackets: mean width against this method's). With 10 units the
 * percentile bootstrap under-covers: its variance has divisor n, not
 * n - 1, and its quantiles are the normal's, not t(9)'s; it reaches
 * 95% under strong drift only because the trend it cannot remove
 * inflates its spread. The bootstrap-t is right without drift but wider
 * and more variable in width; neither removes a drift or a kernel-order
 * alternation without a model of them (resampling boots mixes early
 * with late: the trend is counted as noise and the interval over-covers,
 * as the t on boot means without the covariate does). The fit here is
 * exact when the unit means are normal, and a unit mean averages a
 * boot's blocks of 75-150 conversions on the log scale: close to it
 * (with boot effects drawn from t(4) it still covers 95.4%).
 *
 * Simulated coverage of the 95% interval (make test: test_effect; each
 * row >= 1000 runs of 3 sizes; in/de, gm/de, in/gm derived), and of the
 * same interval made 20% narrower / wider (in/de and gm/de pooled):
 *   default, 10 rounds (drift, order effects)  95.2 95.4 95.1  90.4 / 97.6
 *   strong drift and order effects, 10 rounds  96.1 95.9 95.1  91.6 / 98.0
 *   no drift, no order effect, 10 rounds       94.9 94.9 95.6  90.0 / 97.7
 *   few boots, 6 rounds                        95.4 95.1 95.0  91.5 / 97.2
 *   more boots, 20 rounds                      95.0 95.7 94.9  89.3 / 98.0
 *   heavy-tailed boot effects (t4), 10 rounds  95.4 95.5 94.9  90.8 / 97.8
 * With 6 rounds (df 3-4) a 20% wider interval stays near 97%: t's tails
 * are heavy there, for any exact interval. A design whose every block
 * starts with destructive (no ABBA) leaves in/de at 70% coverage.
 *
 * Families: design_family() counts the estimated ratios, in/de and
 * gm/de per size and direction (12 in the default run); in/gm is the
 * quotient of two of them, fitted over rounds for its own interval but
 * not counted. effect_joint_conf() gives the level at which each of a
 * family's intervals holds for all to hold jointly (Bonferroni).
 *
 * Integration (after the reorganisation of bench/), replacing:
 * - bench/report/cellstats.c ratio_stats_build(): the per-round ratios stay
 *   (per_round in summary.json) but the interval comes from
 *   effect_units() over the design's cells (one effect_run per cell:
 *   unit = boot id, its block, num = inplace, value = the cell's p50;
 *   paired) and effect_fit() with design_boot_time(); the geometric
 *   mean over rounds becomes exp(intercept). ratio_pct_intervals()
 *   goes. p90/p99 ratios may use the same fit on the cells' p90/p99
 *   where shown; their bands are item 5's business.
 * - bench/merge/merge_gmem.c pair(): gm/de and in/gm units are rounds
 *   (unpaired: the gmem boot's gmem cells against the v5 boot's
 *   destructive or inplace cells), covariates design_round_time() and
 *   design_kernel_code(); in/gm flagged derived.
 * - bench/report/history.c history_apply() and history_load(), the
 *   between-run term of ratio_pct_intervals() and lib/stats/stats.c
 *   stats_between_runs(): out of every interval; run-bench.sh stops
 *   passing --history to the merge; history.c's matching (with the
 *   host identity of item 3) moves to the repeatability command.
 * - bench/merge/merge.c merge_run(): family = design_family(&design, 2) (12,
 *   not 18); a joint interval, if kept, at effect_joint_conf(0.95,
 *   family). overhead_of() can take the same fit (unit = boot, num =
 *   traced cells, den = untraced, paired by size and block: T is
 *   balanced, so the order's effect averages out).
 * summary.json, per ratio and percentile: "ratio", "ci95_lo",
 * "ci95_hi" keep their names with the new meaning (analysis/plotdata.c
 * reads them unchanged); "ci95_df" is n - p; added "ci95_units" (boots
 * or rounds), "ci95_covariates" (name and slope in log per boot, per
 * effect_json()), "unit_sd_log", "block_sd_log", "boot_sd_log",
 * "joint_ci95_lo"/"joint_ci95_hi" with "joint_family", and "derived":
 * true on in/gm. Gone: each_ci95_*, machine_ci95_*, rounds_ci95_*,
 * between_runs_sd_log, earlier_runs, ci95_family and the top-level
 * "history" (analysis/report.c reads each_ci95_*, ci95_family,
 * earlier_runs, history and method.order_seed, and
 * analysis/test_report.sh checks them: both change with it).
 * method.ci describes this header's method; "design" is design_json()'s
 * and replaces method.order_seed and method.order.
 * Repeatability (item 3) is computed apart: for runs of the same
 * identity taken on the host (host CPU model and count, host kernel,
 * virtualised or not, QEMU version and command line, accelerator,
 * convbench commit, kernel keys, arguments), per ratio the runs'
 * exp(intercept) values, their spread (max/min - 1 and the sd of the
 * logs), and whether all lie within the equivalence margin (+-5%) of
 * their geometric mean, plus how many runs' values fall inside each
 * other's intervals (with drift, not always); runs of another identity
 * listed as such. No interval here takes any of it in.
 */
#ifndef CONVBENCH_EFFECT_H
#define CONVBENCH_EFFECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EFFECT_MAX_COV	3
/* covariates are kept only while the residual df stays at least this */
#define EFFECT_MIN_DF	3

/* one run (a design cell) of one ratio's arms */
struct effect_run {
	uint32_t unit;		/* boot id (paired) or round (unpaired) */
	uint32_t block;		/* pairs num and den runs when paired */
	bool num;		/* numerator arm (inplace, gmem) */
	double value;		/* the run's p50 (or any latency), > 0 */
};

struct effect_unit {
	uint32_t id;
	double d;		/* mean log ratio of the unit */
	unsigned int nblocks;	/* paired: complete blocks; else runs */
	double within_var;	/* paired, >= 2 blocks: their variance */
	double x[EFFECT_MAX_COV];	/* covariates, 0 at the target */
};

/*
 * The units of runs r[0..n): paired, each block with both arms gives a
 * log ratio (runs of one arm in a block are averaged on the log
 * scale) and a unit is the mean of its complete blocks; unpaired, a
 * unit is the mean log of its numerator runs less that of its
 * denominator runs. A unit without both arms is left out. *out
 * (malloc'd, ids ascending, x[] zero for the caller to fill) and
 * *nunits; 0, -EINVAL (a value <= 0, infinite or NaN) or -ENOMEM.
 */
int effect_units(const struct effect_run *r, size_t n, bool paired,
		 struct effect_unit **out, size_t *nunits);

struct effect_fit {
	double ratio;		/* exp(est) */
	double lo, hi;		/* the interval; NaN when df == 0 */
	double conf;
	double est, se, t;	/* log scale; se, t NaN when df == 0 */
	unsigned int n;		/* units */
	unsigned int df;	/* n - 1 - covariates kept */
	unsigned int ncov;	/* covariates kept */
	bool kept[EFFECT_MAX_COV];
	double slope[EFFECT_MAX_COV];	/* log per unit of x; 0 dropped */
	double unit_sd;		/* residual sd of the unit means (log) */
	double block_sd;	/* pooled within units (paired), else NaN */
	double boot_sd;		/* units beyond their blocks' scatter */
};

/*
 * The fit of units u[0..n), ncov <= EFFECT_MAX_COV covariates offered
 * (x[0..ncov) of each unit), at level conf: 0, or -EINVAL (n == 0, a d
 * or x not finite, conf outside (0, 1), ncov too large). n == 1 gives
 * the unit's ratio with NaN bounds.
 */
int effect_fit(const struct effect_unit *u, size_t n, unsigned int ncov,
	       double conf, struct effect_fit *f);

/* the level each of family intervals needs for all to hold at conf */
double effect_joint_conf(double conf, unsigned int family);

struct jsonw;
/*
 * a fit as a JSON object: ratio, lo, hi, conf, df, units, t, se_log,
 * covariates ([{name, slope_log}] of those kept; names[] may be NULL),
 * unit_sd_log, block_sd_log, boot_sd_log
 */
void effect_json(struct jsonw *w, const struct effect_fit *f,
		 const char *const names[]);
/* the kept covariates alone, as effect_json()'s "covariates" array */
void effect_json_covariates(struct jsonw *w, const struct effect_fit *f,
			    const char *const names[]);

#endif /* CONVBENCH_EFFECT_H */
