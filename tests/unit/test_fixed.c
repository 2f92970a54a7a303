// SPDX-License-Identifier: GPL-2.0
/*
 * The emulator's fixed costs (issue 22, item 4) through the path a run
 * takes: cells with a calibration (struct cell_result.cal_ns) and fault
 * counts into cs_fixed_cost() and run_stats_build()
 * (bench/report/cellstats.c). Every expected figure is computed here
 * from the synthetic inputs, independently of cellstats.c:
 *
 * - a conversion's fixed cost: userspace exits x null exit + (NPT
 *   faults - the exits that were faults) x NPT fault, for the explicit
 *   trigger (the hypercall is not a fault) and the implicit one (every
 *   userspace exit is a fault), from the merge's counts (npf[]) or a
 *   --counts run's own work, NaN without a calibration or a count;
 * - a round's fixed cost over its blocks, weighted by their samples;
 * - the normalized p50 ratio: per round (in p50 - in fixed) / (de p50 -
 *   de fixed), paired by round number (cells in any order), and no
 *   normalized ratio at all when one round lacks its fixed costs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cellstats.h"
#include "tap.h"

#define ITER	9	/* odd: the p50 is a sample */

static bool near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(1, fabs(b));
}

/*
 * a cell of round r: totals base + i * step (p50: base + 4 * step),
 * exits userspace exits each, calibration e and f (NaN: none)
 */
static void fill(struct cell_result *c, struct conv_sample *s, uint32_t round,
		 enum conv_mode m, enum conv_trigger t, uint64_t base,
		 uint64_t step, uint32_t exits, double e, double f)
{
	unsigned int i;

	memset(c, 0, sizeof(*c));
	c->p.round = round;
	c->p.mode = m;
	c->p.size = 4096;
	c->p.trigger = t;
	c->p.dir_mask = 1u << DIR_TO_SHARED;
	c->p.vcpus = 1;
	c->tsc_khz = 1000000;	/* a cycle is a ns */
	c->samples = s;
	c->n = ITER;
	for (i = 0; i < ITER; i++) {
		memset(&s[i], 0, sizeof(s[i]));
		s[i].iter = i;
		s[i].dir = DIR_TO_SHARED;
		s[i].exits = exits;
		s[i].total = base + i * step;
	}
	if (!isnan(e)) {
		c->cal_ns[CAL_NULL_EXIT] = e;
		c->cal_n[CAL_NULL_EXIT] = 32;
	}
	if (!isnan(f)) {
		c->cal_ns[CAL_NPT_FAULT] = f;
		c->cal_n[CAL_NPT_FAULT] = 32;
	}
}

static void set_npf(struct cell_result *c, double npf)
{
	c->npf[DIR_TO_SHARED] = npf;
	c->npf_known = 1u << DIR_TO_SHARED;
}

static void test_cost(void)
{
	struct conv_sample s[ITER];
	struct conv_work w[ITER];
	struct cell_result c;
	unsigned int i;
	double v;

	/* explicit: one hypercall exit, one fault */
	fill(&c, s, 0, MODE_INPLACE, TRIGGER_EXPLICIT, 1000, 1, 1, 40000, 9000);
	set_npf(&c, 1);
	v = cs_fixed_cost(&c, DIR_TO_SHARED);
	tap_result(near(v, 40000 + 9000), "explicit, 1 exit, 1 fault: %.0f, expected 49000", v);
	/* 64K: the hypercall and 16 faults */
	set_npf(&c, 16);
	v = cs_fixed_cost(&c, DIR_TO_SHARED);
	tap_result(near(v, 40000 + 16 * 9000), "explicit, 1 exit, 16 faults: %.0f, expected 184000", v);
	/* implicit: each of 3 userspace exits was a fault of the 5 counted */
	fill(&c, s, 0, MODE_INPLACE, TRIGGER_IMPLICIT, 1000, 1, 3, 40000, 9000);
	set_npf(&c, 5);
	v = cs_fixed_cost(&c, DIR_TO_SHARED);
	tap_result(near(v, 3 * 40000 + 2 * 9000),
		   "implicit, 3 exits of 5 faults: %.0f, expected 138000", v);
	/* no count from the merge: the --counts work of the samples */
	fill(&c, s, 0, MODE_DESTRUCTIVE, TRIGGER_EXPLICIT, 1000, 1, 1, 40000, 9000);
	for (i = 0; i < ITER; i++)
		w[i] = (struct conv_work) { .npt_faults = i % 2 ? 2 : 1 };
	c.work = w;
	v = cs_fixed_cost(&c, DIR_TO_SHARED);
	tap_result(near(v, 40000 + (13.0 / 9) * 9000),
		   "faults from the samples' own counts (mean 13/9): %.1f", v);
	/* the merge's count wins over the samples' */
	set_npf(&c, 3);
	v = cs_fixed_cost(&c, DIR_TO_SHARED);
	tap_result(near(v, 40000 + 3 * 9000), "the boot's count first: %.0f, expected 67000", v);
	c.work = NULL;
	c.npf_known = 0;
	tap_result(isnan(cs_fixed_cost(&c, DIR_TO_SHARED)),
		   "no fault count: no fixed cost");
	fill(&c, s, 0, MODE_DESTRUCTIVE, TRIGGER_EXPLICIT, 1000, 1, 1, 40000, NAN);
	set_npf(&c, 1);
	tap_result(isnan(cs_fixed_cost(&c, DIR_TO_SHARED)),
		   "no NPT fault calibration: no fixed cost");
	fill(&c, s, 0, MODE_DESTRUCTIVE, TRIGGER_EXPLICIT, 1000, 1, 1, NAN, 9000);
	set_npf(&c, 1);
	tap_result(isnan(cs_fixed_cost(&c, DIR_TO_SHARED)),
		   "no null exit calibration: no fixed cost");
	tap_result(isnan(cs_fixed_cost(&c, DIR_TO_PRIVATE)),
		   "a direction without samples: no fixed cost");
}

#define ROUNDS	6

struct run {
	struct cell_result c[2 * ROUNDS + 1];
	struct conv_sample s[2 * ROUNDS + 1][ITER];
	size_t n;
	double want[ROUNDS];	/* the normalized per-round ratios */
	double fixed_de[ROUNDS], fixed_in[ROUNDS];
};

/*
 * ROUNDS rounds: de p50 100000 + 1000 r, in p50 70000 + 500 r; null
 * exit 40000 + 100 r, fault 9000 (de) and 8000 (in) + 10 r; de takes 1
 * exit and 1 fault, in 1 exit and 2 faults. reverse: cells in reverse
 * order; round 5's inplace in two blocks with other calibrations.
 */
static void build(struct run *x, bool reverse)
{
	unsigned int k;

	memset(x, 0, sizeof(*x));
	for (k = 0; k < ROUNDS; k++) {
		double e = 40000 + 100 * k, fd = 9000 + 10 * k, fi = 8000 + 10 * k;
		uint64_t pd = 100000 + 1000 * k, pi = 70000 + 500 * k;
		size_t a = x->n++, b = x->n++;

		fill(&x->c[a], x->s[a], k, MODE_DESTRUCTIVE, TRIGGER_EXPLICIT,
		     pd - 4 * 10, 10, 1, e, fd);
		set_npf(&x->c[a], 1);
		x->fixed_de[k] = e + fd;
		if (k != 5) {
			fill(&x->c[b], x->s[b], k, MODE_INPLACE,
			     TRIGGER_EXPLICIT, pi - 4 * 10, 10, 1, e, fi);
			set_npf(&x->c[b], 2);
			x->fixed_in[k] = e + 2 * fi;
		} else {
			/* two blocks: 9 samples each, calibrations apart */
			size_t b2 = x->n++;

			fill(&x->c[b], x->s[b], k, MODE_INPLACE,
			     TRIGGER_EXPLICIT, pi - 4 * 10, 10, 1, e, fi);
			fill(&x->c[b2], x->s[b2], k, MODE_INPLACE,
			     TRIGGER_EXPLICIT, pi - 4 * 10, 10, 1, e + 2000,
			     fi + 1000);
			set_npf(&x->c[b], 2);
			set_npf(&x->c[b2], 2);
			x->fixed_in[k] = ((e + 2 * fi) + (e + 2000 +
					  2 * (fi + 1000))) / 2;
		}
		x->want[k] = (pi - x->fixed_in[k]) / (pd - x->fixed_de[k]);
	}
	if (reverse)
		for (k = 0; k < x->n / 2; k++) {
			struct cell_result t = x->c[k];

			x->c[k] = x->c[x->n - 1 - k];
			x->c[x->n - 1 - k] = t;
		}
}

static void test_ratio(bool reverse)
{
	struct run *x = calloc(1, sizeof(*x));
	const struct cell_stats *de, *in;
	const struct ratio_pct *q;
	struct run_stats rs;
	unsigned int k, bad = 0, badf = 0;
	double glog = 0;

	if (x)
		build(x, reverse);
	if (!x || run_stats_build(x->c, x->n, &rs) || rs.nratios != 1) {
		tap_result(false, "run_stats_build of the synthetic run");
		free(x);
		return;
	}
	q = &rs.ratios[0].norm;
	de = rs.ratios[0].de;
	in = rs.ratios[0].in;
	for (k = 0; k < de->nrounds; k++) {
		badf += !near(de->round[k].fixed_ns,
			      x->fixed_de[de->round[k].round]);
		badf += !near(in->round[k].fixed_ns,
			      x->fixed_in[in->round[k].round]);
	}
	tap_result(de->nrounds == ROUNDS && in->nrounds == ROUNDS && !badf,
		   "%s: each round's fixed cost, blocks weighted by samples (%u differ)",
		   reverse ? "cells reversed" : "in order", badf);
	for (k = 0; k < q->nrounds; k++) {
		bad += !near(q->per_round[k], x->want[q->round_id[k]]);
		glog += log(x->want[q->round_id[k]]) / ROUNDS;
	}
	tap_result(q->nrounds == ROUNDS && !bad,
		   "%s: per round (in p50 - in fixed) / (de p50 - de fixed), paired by round (%u of %u differ)",
		   reverse ? "cells reversed" : "in order", bad, q->nrounds);
	tap_result(q->df > 0 && q->lo < q->ratio && q->ratio < q->hi &&
		   fabs(log(q->ratio) - glog) < 0.02,
		   "%s: the normalized ratio %.4f (%.4f..%.4f) near the per-round ratios' geometric mean %.4f",
		   reverse ? "cells reversed" : "in order", q->ratio, q->lo,
		   q->hi, exp(glog));
	tap_result(near(de->cal_ns[CAL_NULL_EXIT], 40250) &&
		   de->cal_n[CAL_NULL_EXIT] == 32 * ROUNDS,
		   "%s: the cell's null exit, the median over its VMs (%.0f, n %u)",
		   reverse ? "cells reversed" : "in order",
		   de->cal_ns[CAL_NULL_EXIT], de->cal_n[CAL_NULL_EXIT]);
	run_stats_free(&rs);
	free(x);
}

/* one round without a calibration: no normalized ratio, not a partial one */
static void test_missing(void)
{
	struct run *x = calloc(1, sizeof(*x));
	struct run_stats rs;

	if (!x)
		return;
	build(x, false);
	x->c[2].cal_n[CAL_NPT_FAULT] = 0;	/* round 1's destructive */
	if (run_stats_build(x->c, x->n, &rs) || rs.nratios != 1) {
		tap_result(false, "run_stats_build of the synthetic run");
		free(x);
		return;
	}
	tap_result(rs.ratios[0].norm.nrounds == 0 &&
		   isnan(rs.ratios[0].norm.lo) &&
		   rs.ratios[0].pct[CS_P50].nrounds == ROUNDS &&
		   isnan(rs.ratios[0].de->fixed_ns),
		   "a round without its fault calibration: no normalized ratio (%u rounds), the raw one intact",
		   rs.ratios[0].norm.nrounds);
	run_stats_free(&rs);
	free(x);
}

int main(void)
{
	test_cost();
	test_ratio(false);
	test_ratio(true);
	test_missing();
	return tap_finish(false);
}
