// SPDX-License-Identifier: GPL-2.0
/* test_effect.c's simulation: see effect_sim.h */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "design.h"
#include "design_break.h"
#include "effect.h"
#include "effect_sim.h"
#include "rng.h"
#include "stats.h"

/* the interval as it is, made 20% narrower, 20% wider */
static const double scale[3] = { 1.0, 0.8, 1.2 };

/* the true log ratios per size (inplace, gmem) over destructive */
static const double true_in[NSIZES] = { -0.357, -0.051, -1.966 };
static const double true_gm[NSIZES] = { 0.0, -0.105, 0.049 };

struct grng {
	struct rng r;
	bool have;
	double spare;
};

static double unif(struct grng *g)
{
	return ((rng_next(&g->r) >> 11) + 0.5) * 0x1p-53;
}

static double gauss(struct grng *g)
{
	double a, b, s;

	if (g->have) {
		g->have = false;
		return g->spare;
	}
	do {
		a = 2 * unif(g) - 1;
		b = 2 * unif(g) - 1;
		s = a * a + b * b;
	} while (s >= 1 || s == 0);
	s = sqrt(-2 * log(s) / s);
	g->spare = b * s;
	g->have = true;
	return a * s;
}

/* a boot effect with sd 1: normal, or t(df) scaled to variance 1 */
static double boot_draw(struct grng *g, double df)
{
	double chi = 0;
	int i;

	if (!df)
		return gauss(g);
	for (i = 0; i < (int)df; i++) {
		double z = gauss(g);

		chi += z * z;
	}
	return gauss(g) / sqrt(chi / df) / sqrt(df / (df - 2));
}


static void count(struct tally *t, enum fam fm, unsigned int s,
		  const struct effect_fit *f, double truth)
{
	unsigned int k;

	if (!(f->df > 0))
		return;
	for (k = 0; k < 3; k++)
		t->cover[fm][k] += fabs(f->est - truth) <= scale[k] * f->t * f->se;
	t->n[fm]++;
	t->cover_size[fm][s] += fabs(f->est - truth) <= f->t * f->se;
	t->n_size[fm][s]++;
	t->width[fm] += 2 * f->t * f->se;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* the alternatives, on the in/de units of one size */
static void alternatives(struct tally *t, struct grng *g,
			 const struct effect_unit *u, size_t n, double truth,
			 const struct effect_fit *ours)
{
	static double mb[NBOOT], tb[NBOOT];
	struct effect_fit f0;
	double m = 0, sd, w;
	unsigned int b, k, nt = 0;
	size_t i;

	effect_fit(u, n, 0, 0.95, &f0);
	t->alt_cover[0] += fabs(f0.est - truth) <= f0.t * f0.se;
	w = 2 * f0.t * f0.se;
	t->alt_width[0] += w;
	t->alt_width2[0] += w * w;
	w = 2 * ours->t * ours->se;
	t->our_width += w;
	t->our_width2 += w * w;
	for (i = 0; i < n; i++)
		m += u[i].d;
	m /= n;
	sd = f0.unit_sd;
	for (b = 0; b < NBOOT; b++) {
		double s = 0, ss = 0, sb;

		for (k = 0; k < n; k++) {
			double x = u[rng_below(&g->r, n)].d;

			s += x;
			ss += x * x;
		}
		mb[b] = s / n;
		sb = sqrt(fmax(0, (ss - n * mb[b] * mb[b]) / (n - 1)));
		if (sb > 0)
			tb[nt++] = (mb[b] - m) / (sb / sqrt(n));
	}
	qsort(mb, NBOOT, sizeof(*mb), cmp_d);
	qsort(tb, nt, sizeof(*tb), cmp_d);
	{
		double lo = stats_percentile_sorted(mb, NBOOT, 2.5);
		double hi = stats_percentile_sorted(mb, NBOOT, 97.5);
		double tl = stats_percentile_sorted(tb, nt, 2.5);
		double th = stats_percentile_sorted(tb, nt, 97.5);
		double se = sd / sqrt(n);

		t->alt_cover[1] += truth >= lo && truth <= hi;
		t->alt_width[1] += hi - lo;
		t->alt_width2[1] += (hi - lo) * (hi - lo);
		t->alt_cover[2] += truth >= m - th * se && truth <= m - tl * se;
		t->alt_width[2] += (th - tl) * se;
		t->alt_width2[2] += (th - tl) * se * (th - tl) * se;
	}
	t->alt_n++;
}

/* the untraced runs of a simulated run, per family and size */
struct sim_runs {
	struct effect_run r[F_NR][NSIZES][8 * DESIGN_MAX_ROUNDS *
					  DESIGN_MAX_BLOCKS];
	size_t n[F_NR][NSIZES];
};

/* the run of cell x (a p50, log y) into the families it belongs to */
static void sim_add(struct sim_runs *rs, const struct design_boot *b,
		    const struct design_cell *x, double y)
{
	struct effect_run run = { .block = x->block, .value = exp(y) };
	unsigned int s = x->size;

	if (x->mode != DESIGN_GMEM) {
		run.unit = b->id;
		run.num = x->mode == DESIGN_INPLACE;
		rs->r[F_IN_DE][s][rs->n[F_IN_DE][s]++] = run;
	}
	run.unit = b->round;
	if (x->mode != DESIGN_INPLACE) {
		run.num = x->mode == DESIGN_GMEM;
		rs->r[F_GM_DE][s][rs->n[F_GM_DE][s]++] = run;
	}
	if (x->mode != DESIGN_DESTRUCTIVE) {
		run.num = x->mode == DESIGN_INPLACE;
		rs->r[F_IN_GM][s][rs->n[F_IN_GM][s]++] = run;
	}
}

/* boot b's untraced runs (mid: the run's middle boot) into rs */
static void sim_boot(const struct scenario *sc, const struct design_boot *b,
		     double mid, struct grng *g, double *buf,
		     struct sim_runs *rs)
{
	double ub = sc->sd_boot * boot_draw(g, sc->tail_df);
	double v[DESIGN_NMODES][NSIZES];
	unsigned int m, s, c, k;

	for (m = 0; m < DESIGN_NMODES; m++)
		for (s = 0; s < NSIZES; s++)
			v[m][s] = sc->sd_bootmode * boot_draw(g, sc->tail_df);
	for (c = 0; c < b->ncells; c++) {
		const struct design_cell *x = &b->cell[c];
		const struct design_cell *prev = c ? x - 1 : NULL;
		bool first = !prev || prev->phase != x->phase ||
			     prev->size != x->size || prev->block != x->block;
		double y, frac = (c + 0.5) / b->ncells - 0.5;

		if (x->phase != DESIGN_UNTRACED)
			continue;
		s = x->size;
		y = x->mode == DESIGN_INPLACE ? true_in[s] :
		    x->mode == DESIGN_GMEM ? true_gm[s] : 0;
		y += ub + v[x->mode][s] + sc->drift_common * b->id +
		     sc->drift_within * frac;
		if (x->mode != DESIGN_DESTRUCTIVE)
			y += sc->drift_ratio * (b->id - mid);
		if (b->kernel == DESIGN_K_V5 && first)
			y += sc->first;
		if (x->mode == DESIGN_DESTRUCTIVE && b->traced_first)
			y += sc->traced;
		if (b->slot == 1)
			y += sc->second;
		y += sc->sd_block * gauss(g);
		for (k = 0; k < sc->nsamp; k++)
			buf[k] = sc->sd_sample * gauss(g);
		y += stats_select_percentile(buf, sc->nsamp, 50);
		sim_add(rs, b, x, y);
	}
}

/* every family's and size's interval from the runs, counted in t */
static void sim_fit(const struct scenario *sc, unsigned int sim,
		    struct tally *t, const struct design *d, struct grng *g,
		    struct sim_runs *rs)
{
	double truth[F_NR][NSIZES], est[F_NR][NSIZES];
	unsigned int s, fm;

	for (s = 0; s < NSIZES; s++) {
		truth[F_IN_DE][s] = true_in[s] - sc->traced / 2;
		truth[F_GM_DE][s] = true_gm[s] - (sc->first + sc->traced) / 2;
		truth[F_IN_GM][s] = truth[F_IN_DE][s] - truth[F_GM_DE][s];
	}
	for (fm = 0; fm < F_NR; fm++) {
		for (s = 0; s < NSIZES; s++) {
			struct effect_unit *u;
			struct effect_fit f;
			size_t n, k;

			if (effect_units(rs->r[fm][s], rs->n[fm][s],
					 fm == F_IN_DE, &u, &n))
				continue;
			for (k = 0; k < n; k++) {
				if (fm == F_IN_DE) {
					u[k].x[0] = design_boot_time(d,
							&d->boot[u[k].id]);
				} else {
					u[k].x[0] = design_round_time(d, u[k].id);
					u[k].x[1] = design_kernel_code(d, u[k].id);
				}
			}
			est[fm][s] = NAN;
			if (!effect_fit(u, n, fm == F_IN_DE ? 1 : 2, 0.95, &f)) {
				est[fm][s] = f.est;
				count(t, fm, s, &f, truth[fm][s]);
				if (sc->compare && fm == F_IN_DE &&
				    sim < NCOMPARE)
					alternatives(t, g, u, n, truth[fm][s],
						     &f);
			}
			free(u);
		}
	}
	for (s = 0; s < NSIZES; s++)
		t->quotient_dev = fmax(t->quotient_dev,
				       fabs(est[F_IN_GM][s] - est[F_IN_DE][s] +
					    est[F_GM_DE][s]));
}

void sim_run(const struct scenario *sc, unsigned int sim, struct tally *t,
	     double *buf)
{
	static struct sim_runs rs;
	struct design_params p = {
		.rounds = sc->rounds, .kernel = { true, true }, .traced = true,
		.nsizes = NSIZES, .sizes = { 4096, 65536, 2097152 },
		.blocks = 2, .seed = 0x5eed0000ULL + sim,
	};
	struct grng g = { .have = false };
	struct design d;
	unsigned int i;

	if (design_build(&p, &d))
		return;
	rng_seed(&g.r, 0xc0ffee0000ULL ^ ((uint64_t)sim << 20) ^
		 (uint64_t)sc->rounds);
	if (sc->broken)
		design_break_abab(&d);
	memset(rs.n, 0, sizeof(rs.n));
	for (i = 0; i < d.nboots; i++)
		sim_boot(sc, &d.boot[i], (d.nboots - 1) / 2.0, &g, buf, &rs);
	sim_fit(sc, sim, t, &d, &g, &rs);
	design_free(&d);
}
