/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The simulation of test_effect.c (see there): whole runs laid out by
 * lib/stats/design.c, their p50s drawn from known terms, every ratio's
 * interval from lib/stats/effect.c counted against the truth. No TAP
 * here (tap.h's counters are per file): test_effect.c prints and asserts.
 */
#ifndef CONVBENCH_EFFECT_SIM_H
#define CONVBENCH_EFFECT_SIM_H

#include <stdbool.h>

#define NSIZES		3
#define NBOOT		499	/* bootstrap resamples */
#define NCOMPARE	1000	/* runs of a scenario that compare */

enum fam { F_IN_DE, F_GM_DE, F_IN_GM, F_NR };

struct scenario {
	const char *name;
	unsigned int rounds, nsims, nsamp;
	double sd_boot, sd_bootmode, sd_block, sd_sample;
	double drift_common, drift_ratio, drift_within;
	double first, traced, second;
	double tail_df;		/* boot effects t(df) distributed; 0 normal */
	bool broken;		/* every block starts with destructive */
	bool compare;		/* run the alternatives too */
};

struct tally {
	unsigned long cover[F_NR][3], n[F_NR];
	unsigned long cover_size[F_NR][NSIZES], n_size[F_NR][NSIZES];
	double width[F_NR];
	/* alternatives on in/de: t without covariates, pct boot, boot-t */
	unsigned long alt_cover[3], alt_n;
	double alt_width[3], alt_width2[3], our_width, our_width2;
	/* in/gm against in/de / gm/de, log: 0 when every boot is there */
	double quotient_dev;
};

/* one simulated run (number sim) of scenario sc, its intervals counted in
 * t; buf holds sc->nsamp doubles */
void sim_run(const struct scenario *sc, unsigned int sim, struct tally *t,
	     double *buf);

#endif /* CONVBENCH_EFFECT_SIM_H */
