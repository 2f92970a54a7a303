// SPDX-License-Identifier: GPL-2.0
/*
 * The tail spectrum's bands (issue 22, item 5) through
 * run_stats_bands() (bench/report/cellstats.c), recomputed here by
 * brute force: for each of the CS_BOOT resamples, the rounds drawn with
 * the same generator and seed, their samples copied into one pool,
 * sorted, and the numpy-'linear' percentile read off; the band is the
 * 2.5% and 97.5% quantiles of those. cellstats.c finds a pooled
 * percentile by counting (binary searches in each round's sorted
 * samples, weighted by how often the round was drawn), never building
 * the pool: the two must agree exactly. Also: the value is the pooled
 * percentile, a round's blocks are one round, one round has no band;
 * and a tail ratio is shown only where both modes have enough samples
 * beyond it (one mode's enough is not enough).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cellstats.h"
#include "rng.h"
#include "stats.h"
#include "tap.h"

#define ROUNDS	7
#define MAXN	400

struct run {
	struct cell_result c[ROUNDS + 1];
	struct conv_sample s[ROUNDS + 1][MAXN];
	size_t n;
};

/* round r: n samples, heavy-tailed, a block split when two */
static void build(struct run *x, unsigned int rounds, bool split)
{
	struct rng g;
	unsigned int k, i;

	memset(x, 0, sizeof(*x));
	rng_seed(&g, 42);
	for (k = 0; k < rounds; k++) {
		unsigned int n = 150 + 37 * k, parts = split && k == 2 ? 2 : 1;
		unsigned int p;

		for (p = 0; p < parts; p++) {
			struct cell_result *c = &x->c[x->n];
			struct conv_sample *s = x->s[x->n++];

			c->p.round = k;
			c->p.mode = MODE_DESTRUCTIVE;
			c->p.size = 4096;
			c->p.dir_mask = 1u << DIR_TO_SHARED;
			c->tsc_khz = 1000000;
			c->samples = s;
			c->n = n / parts;
			for (i = 0; i < c->n; i++) {
				double u = (rng_next(&g) >> 11) * 0x1.0p-53;

				s[i].dir = DIR_TO_SHARED;
				/* a Pareto tail on a per-round level */
				s[i].total = (uint64_t)((100000 + 5000 * k) *
					     pow(1 - u, -1 / 2.5));
			}
		}
	}
}

/* the brute force: pools built and sorted, CS_BOOT times */
static void brute(const struct cell_stats *c, double lo[CS_NSPEC],
		  double hi[CS_NSPEC])
{
	double *boot = malloc(CS_NSPEC * CS_BOOT * sizeof(double));
	double *pool = malloc(ROUNDS * ROUNDS * MAXN * sizeof(double));
	unsigned int w[MAX_ROUNDS], b, k, p, j;
	struct rng r;

	rng_seed(&r, c->size * 31 + c->mode * 7 + c->dir + 1);
	for (b = 0; b < CS_BOOT; b++) {
		size_t n = 0;

		memset(w, 0, sizeof(w));
		for (k = 0; k < c->nrounds; k++)
			w[rng_below(&r, c->nrounds)]++;
		for (k = 0; k < c->nrounds; k++)
			for (j = 0; j < w[k]; j++) {
				memcpy(pool + n, c->by_round + c->round[k].off,
				       c->round[k].n * sizeof(double));
				n += c->round[k].n;
			}
		stats_sort(pool, n);
		for (p = 0; p < CS_NSPEC; p++)
			boot[p * CS_BOOT + b] = stats_percentile_sorted(pool, n,
							cs_spec_value[p]);
	}
	for (p = 0; p < CS_NSPEC; p++) {
		stats_sort(boot + p * CS_BOOT, CS_BOOT);
		lo[p] = stats_percentile_sorted(boot + p * CS_BOOT, CS_BOOT, 2.5);
		hi[p] = stats_percentile_sorted(boot + p * CS_BOOT, CS_BOOT, 97.5);
	}
	free(boot);
	free(pool);
}

static void check(unsigned int rounds, bool split)
{
	struct run *x = calloc(1, sizeof(*x));
	double lo[CS_NSPEC], hi[CS_NSPEC];
	const struct cell_stats *c;
	struct run_stats rs;
	unsigned int p, bad = 0, badv = 0;

	if (!x)
		return;
	build(x, rounds, split);
	if (run_stats_build(x->c, x->n, &rs) || rs.ncells != 1) {
		tap_result(false, "run_stats_build of %u rounds", rounds);
		free(x);
		return;
	}
	run_stats_bands(&rs);
	c = &rs.cells[0];
	for (p = 0; p < CS_NSPEC; p++)
		badv += c->spec[p].value != stats_percentile_sorted(c->total,
						c->n, cs_spec_value[p]);
	tap_result(c->banded && !badv && c->nrounds == rounds,
		   "%u rounds%s: the spectrum's values are the pooled percentiles (%u differ)",
		   rounds, split ? ", one in two blocks" : "", badv);
	if (rounds < 2) {
		for (p = 0; p < CS_NSPEC; p++)
			bad += !isnan(c->spec[p].lo) || !isnan(c->spec[p].hi);
		tap_result(!bad, "one round: no band");
	} else {
		brute(c, lo, hi);
		for (p = 0; p < CS_NSPEC; p++) {
			bad += fabs(c->spec[p].lo - lo[p]) > 1e-6 * lo[p] ||
			       fabs(c->spec[p].hi - hi[p]) > 1e-6 * hi[p];
			if (p == 2)
				tap_diag("p99 %.0f, band %.0f..%.0f (brute %.0f..%.0f)",
					 c->spec[p].value, c->spec[p].lo,
					 c->spec[p].hi, lo[p], hi[p]);
		}
		tap_result(!bad, "%u rounds%s: the bands are the brute-force bootstrap's over pools of whole rounds (%u of %d differ)",
			   rounds, split ? ", one in two blocks" : "", bad,
			   CS_NSPEC);
		bad = 0;
		for (p = 0; p < CS_NSPEC; p++)
			bad += !(c->spec[p].lo <= c->spec[p].hi) ||
			       (p && c->spec[p].lo < c->spec[p - 1].lo);
		tap_result(!bad, "%u rounds: bands ordered and rising with the percentile",
			   rounds);
	}
	run_stats_free(&rs);
	free(x);
}

/*
 * A tail ratio is shown only where both modes have STATS_TAIL_MIN
 * samples beyond it: destructive with nd samples, inplace with ni, in
 * 2 rounds; the p99 ratio's shown flag and the beyond counts
 */
static bool p99_shown(unsigned int nd, unsigned int ni, size_t *bd, size_t *bi)
{
	static struct conv_sample s[4][3000];
	struct cell_result c[4];
	struct run_stats rs;
	unsigned int k, i;
	bool shown = false;

	memset(c, 0, sizeof(c));
	for (k = 0; k < 4; k++) {
		unsigned int n = (k < 2 ? nd : ni) / 2;

		c[k].p.round = k % 2;
		c[k].p.mode = k < 2 ? MODE_DESTRUCTIVE : MODE_INPLACE;
		c[k].p.size = 4096;
		c[k].p.dir_mask = 1u << DIR_TO_SHARED;
		c[k].tsc_khz = 1000000;
		c[k].samples = s[k];
		c[k].n = n;
		for (i = 0; i < n; i++) {
			s[k][i].dir = DIR_TO_SHARED;
			s[k][i].total = 1000 + (i * 7919) % n;
		}
	}
	if (!run_stats_build(c, 4, &rs) && rs.nratios == 1) {
		shown = rs.ratios[0].pct[CS_P99].shown;
		*bd = rs.ratios[0].pct[CS_P99].beyond_de;
		*bi = rs.ratios[0].pct[CS_P99].beyond_in;
		run_stats_free(&rs);
	}
	return shown;
}

static void test_tail_rule(void)
{
	size_t bd = 0, bi = 0;
	bool a = p99_shown(6000, 3000, &bd, &bi);

	tap_result(!a && bd >= STATS_TAIL_MIN && bi < STATS_TAIL_MIN,
		   "a p99 ratio with %zu samples beyond in destructive and %zu in place: withheld",
		   bd, bi);
	a = p99_shown(3000, 6000, &bd, &bi);
	tap_result(!a && bd < STATS_TAIL_MIN && bi >= STATS_TAIL_MIN,
		   "and with %zu and %zu the other way round: withheld", bd, bi);
	a = p99_shown(6000, 6000, &bd, &bi);
	tap_result(a && bd >= STATS_TAIL_MIN && bi >= STATS_TAIL_MIN,
		   "with %zu and %zu beyond: shown", bd, bi);
}

int main(void)
{
	test_tail_rule();
	check(ROUNDS, false);
	check(ROUNDS, true);
	check(1, false);
	return tap_finish(false);
}
