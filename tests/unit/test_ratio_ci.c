// SPDX-License-Identifier: GPL-2.0
/*
 * The interval convbench prints beside a ratio, validated on synthetic
 * runs through the path a run takes: cells of samples (struct
 * cell_result) into run_stats_build() (bench/report/cellstats.c), which
 * takes each round's p50 per mode, pairs the modes by round number,
 * and fits the log per-round ratios (lib/stats/effect.h, covariates the
 * round's number and its parity).
 *
 * The model of a run (make bench's today: one boot per round, both
 * modes in it, which mode first alternating by round): per round r the
 * machine's state moves both modes' medians (log sd 0.10), the ratio
 * itself moves from boot to boot (log sd RATIO_SD: ~9% at 4K), a drift
 * along the run and an effect of running first (parity) add to it, and
 * each mode's ITER samples are lognormal around its median (sd 0.085:
 * a round's p50 ratio moves ~1.5% when resampled). The truth is the
 * ratio at the run's middle averaged over both orders; a run covers it
 * when its 95% interval holds it.
 *
 * Checks, per scenario of NSIM runs: coverage within 93-97%; the
 * interval made 20% narrower (on the log scale, about its estimate)
 * covers < 93%, and, where there are enough rounds for t to tell
 * (20 rounds: 17 df), 20% wider covers > 97%. With 10 rounds (7 df) a
 * 20% wider interval covers ~97.0% and is only printed. Also: the
 * rounds are paired by their number, not their position (a run whose
 * cells come in another order gives the same interval), and no interval
 * from one round.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cellstats.h"
#include "rng.h"
#include "tap.h"

#define ITER		100
#define NSIM		1000
#define MACHINE_SD	0.10
#define SAMPLE_SD	0.085

struct scenario {
	const char *name;
	unsigned int rounds;
	double ratio_sd;	/* boot to boot, log */
	double drift;		/* log per round */
	double first;		/* log, inplace first (odd rounds) */
	bool assert_wider;
};

static double gauss(struct rng *r)
{
	double u = (rng_next(r) >> 11) * 0x1.0p-53;
	double v = (rng_next(r) >> 11) * 0x1.0p-53;

	return sqrt(-2 * log(u > 0 ? u : 0x1.0p-53)) * cos(2 * M_PI * v);
}

static void fill(struct cell_result *c, struct conv_sample *s, uint32_t round,
		 enum conv_mode m, double log_median, struct rng *r)
{
	unsigned int i;

	memset(c, 0, sizeof(*c));
	c->p.round = round;
	c->p.mode = m;
	c->p.size = 4096;
	c->p.dir_mask = 1u << DIR_TO_SHARED;
	c->p.iterations = ITER;
	c->p.vcpus = 1;
	c->tsc_khz = 1000000;	/* a cycle is a ns */
	c->samples = s;
	c->n = ITER;
	c->conversions = ITER;
	for (i = 0; i < ITER; i++) {
		memset(&s[i], 0, sizeof(s[i]));
		s[i].iter = i;
		s[i].dir = DIR_TO_SHARED;
		s[i].exits = 1;
		s[i].total = (uint64_t)exp(log_median + SAMPLE_SD * gauss(r));
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* the median of a cell's totals, computed here (ITER is even) */
static double median_total(const struct cell_result *c)
{
	uint64_t v[ITER];
	unsigned int i;

	for (i = 0; i < ITER; i++)
		v[i] = c->samples[i].total;
	qsort(v, ITER, sizeof(v[0]), cmp_u64);
	return (v[ITER / 2 - 1] + v[ITER / 2]) / 2.0;
}

/*
 * one synthetic run: its p50 ratio's fit; swap: cells in reverse order;
 * want[k] (if not NULL): round k's p50 ratio as computed here
 */
static int one_run(const struct scenario *sc, uint64_t seed, bool swap,
		   double truth, struct ratio_pct *out, double *want)
{
	unsigned int n = 2 * sc->rounds, k;
	struct cell_result *c = calloc(n, sizeof(*c));
	struct conv_sample *s = calloc((size_t)n * ITER, sizeof(*s));
	double mid = (sc->rounds - 1) / 2.0;
	struct run_stats rs;
	struct rng r;
	int err = -1;

	rng_seed(&r, seed);
	for (k = 0; c && s && k < sc->rounds; k++) {
		double machine = log(100000) + MACHINE_SD * gauss(&r);
		double d = log(truth) + sc->ratio_sd * gauss(&r) +
			   sc->drift * (k - mid) +
			   sc->first * ((k % 2) - 0.5);
		unsigned int a = swap ? n - 1 - 2 * k : 2 * k;
		unsigned int b = swap ? a - 1 : a + 1;

		fill(&c[a], &s[(size_t)a * ITER], k, MODE_DESTRUCTIVE,
		     machine, &r);
		fill(&c[b], &s[(size_t)b * ITER], k, MODE_INPLACE,
		     machine + d, &r);
		if (want)
			want[k] = median_total(&c[b]) / median_total(&c[a]);
	}
	if (c && s && !run_stats_build(c, n, &rs)) {
		err = rs.nratios == 1 ? 0 : -1;
		if (!err)
			*out = rs.ratios[0].pct[CS_P50];
		run_stats_free(&rs);
	}
	free(s);
	free(c);
	return err;
}

/*
 * make bench's design: each round's cells run as blocks A B B A, half
 * the conversions each. A round's blocks are one round: its ratio is of
 * the p50s of both blocks' samples pooled, and the fit is over the boot's
 * time (cell_params.boot_slot set: a design's boot).
 */
static void test_blocks(void)
{
	const unsigned int rounds = 10, h = ITER / 2;
	struct cell_result *c = calloc(4 * rounds, sizeof(*c));
	struct conv_sample *s = calloc((size_t)2 * rounds * ITER, sizeof(*s));
	struct cell_result whole[2];
	double want[10];
	struct run_stats rs;
	unsigned int k, j, bad = 0;
	struct rng r;

	rng_seed(&r, 5);
	for (k = 0; c && s && k < rounds; k++) {
		double machine = log(100000) + MACHINE_SD * gauss(&r);
		struct conv_sample *sd = &s[(size_t)2 * k * ITER];
		struct cell_result *b = &c[4 * k];

		fill(&whole[0], sd, k, MODE_DESTRUCTIVE, machine, &r);
		fill(&whole[1], sd + ITER, k, MODE_INPLACE,
		     machine + log(0.7) + 0.09 * gauss(&r), &r);
		want[k] = median_total(&whole[1]) / median_total(&whole[0]);
		/* de 0, in 0, in 1, de 1: each the half of its cell */
		for (j = 0; j < 4; j++) {
			unsigned int m = j == 1 || j == 2, blk = j >= 2;

			b[j] = whole[m];
			b[j].samples = whole[m].samples + blk * h;
			b[j].n = h;
			b[j].p.block = blk;
			b[j].p.boot_slot = 1;
		}
	}
	if (!c || !s || run_stats_build(c, 4 * rounds, &rs) || rs.nratios != 1) {
		tap_result(false, "blocks: a run of 10 rounds in ABBA blocks");
		free(c);
		free(s);
		return;
	}
	for (k = 0; k < rounds && k < rs.ratios[0].pct[CS_P50].nrounds; k++)
		bad += fabs(rs.ratios[0].pct[CS_P50].per_round[k] / want[k] - 1) > 1e-12;
	tap_result(rs.ratios[0].pct[CS_P50].nrounds == rounds && !bad,
		   "blocks: a round's two blocks per mode are one round (%u rounds), its ratio of the pooled blocks' p50s (%u of 10 differ)",
		   rs.ratios[0].pct[CS_P50].nrounds, bad);
	tap_result(rs.ratios[0].pct[CS_P50].covs == CS_COVS_BOOT &&
		   rs.ratios[0].pct[CS_P50].df >= 7,
		   "blocks: a design's boots are fitted on the boot's time alone (df %u)",
		   rs.ratios[0].pct[CS_P50].df);
	run_stats_free(&rs);
	free(c);
	free(s);
}

/* equal but for the order of a sum */
static bool near(double a, double b)
{
	return fabs(a / b - 1) < 1e-12;
}

static bool covers(const struct ratio_pct *x, double truth, double scale)
{
	double e = log(x->ratio);
	double lo = e - scale * (e - log(x->lo));
	double hi = e + scale * (log(x->hi) - e);

	return lo <= log(truth) && log(truth) <= hi;
}

static void scenario(const struct scenario *sc)
{
	const double truth = 0.7, scale[3] = { 1, 0.8, 1.2 };
	unsigned long hit[3] = { 0 }, runs = 0, k;
	struct ratio_pct x;
	unsigned int i, df = 0;
	double cov[3];

	for (i = 0; i < NSIM; i++) {
		if (one_run(sc, 0x5eed0000ULL + i * 7919, false, truth, &x,
			    NULL) ||
		    isnan(x.lo))
			continue;
		runs++;
		df = x.df;
		for (k = 0; k < 3; k++)
			hit[k] += covers(&x, truth, scale[k]);
	}
	for (k = 0; k < 3; k++)
		cov[k] = runs ? 100.0 * hit[k] / runs : 0;
	tap_result(runs == NSIM && cov[0] >= 93 && cov[0] <= 97,
		   "%s: %u rounds (%u df): the 95%% CI covers the true ratio in %.1f%% of %lu runs (93-97%%)",
		   sc->name, sc->rounds, df, cov[0], runs);
	tap_result(cov[1] < 93,
		   "%s: made 20%% narrower it covers %.1f%%: below 93%%, caught",
		   sc->name, cov[1]);
	if (sc->assert_wider)
		tap_result(cov[2] > 97,
			   "%s: made 20%% wider it covers %.1f%%: above 97%%, caught",
			   sc->name, cov[2]);
	else
		tap_diag("%s: made 20%% wider it covers %.1f%% (not asserted: t with %u df is too wide for 20%% to show)",
			 sc->name, cov[2], df);
}

int main(void)
{
	static const struct scenario sc[] = {
		{ "4K, no drift", 10, 0.09, 0, 0.022, false },
		{ "4K, drifting", 10, 0.09, -0.006, 0.022, false },
		{ "2M, strong drift", 10, 0.04, -0.012, 0.01, false },
		{ "4K, 20 rounds", 20, 0.09, -0.003, 0.022, true },
	};
	struct ratio_pct a, b;
	struct scenario one = sc[0];
	unsigned int i, bad;
	double want[20], glog;
	int e1, e2;

	for (i = 0; i < sizeof(sc) / sizeof(sc[0]); i++)
		scenario(&sc[i]);

	/* the cells' order does not matter: rounds pair by number */
	e1 = one_run(&sc[1], 42, false, 0.7, &a, want);
	e2 = one_run(&sc[1], 42, true, 0.7, &b, NULL);
	tap_result(!e1 && !e2 && near(a.ratio, b.ratio) && near(a.lo, b.lo) &&
		   near(a.hi, b.hi) && a.nrounds == 10 && b.nrounds == 10,
		   "cells in reverse order give the same ratio and CI (%.4f %.4f..%.4f, %.4f %.4f..%.4f)",
		   a.ratio, a.lo, a.hi, b.ratio, b.lo, b.hi);
	/* each round's ratio is of its own p50s; the ratio their geomean */
	for (i = 0, bad = 0, glog = 0; !e1 && i < a.nrounds; i++) {
		bad += a.round_id[i] != i ||
		       fabs(a.per_round[i] / want[i] - 1) > 1e-12;
		glog += log(want[i]) / a.nrounds;
	}
	tap_result(!e1 && !bad && fabs(a.ratio / exp(glog) - 1) < 1e-12,
		   "per round the ratio of that round's p50s (%u of 10 differ), the ratio their geometric mean (%.6f, %.6f)",
		   bad, a.ratio, exp(glog));
	one.rounds = 1;
	e1 = one_run(&one, 7, false, 0.7, &a, NULL);
	tap_result(!e1 && a.nrounds == 1 && isnan(a.lo) && isnan(a.hi),
		   "one round: the ratio without a CI (%.4f)", a.ratio);
	test_blocks();
	return tap_finish(false);
}
