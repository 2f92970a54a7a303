// SPDX-License-Identifier: GPL-2.0
/* The design of a make bench run (its balance and JSON: design_check.c) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "design.h"
#include "design_int.h"
#include "rng.h"
#include "units.h"
#include "vocab.h"

static const char *const kernel_names[DESIGN_NKERNELS] = { "v5", "gmem" };
static const char *const phase_names[DESIGN_NPHASES] = { "untraced", "traced" };

const char *design_mode_name(enum design_mode m)
{
	return m < DESIGN_NMODES ? conv_mode_names[m] : "?";
}

const char *design_kernel_name(enum design_kernel k)
{
	return k < DESIGN_NKERNELS ? kernel_names[k] : "?";
}

const char *design_phase_name(enum design_phase ph)
{
	return ph < DESIGN_NPHASES ? phase_names[ph] : "?";
}

static enum design_mode other(enum design_mode m)
{
	return m == DESIGN_DESTRUCTIVE ? DESIGN_INPLACE : DESIGN_DESTRUCTIVE;
}

/*
 * The factors of each round, f[r][0..2], from groups of 4 rounds: the
 * rows (a, b, a^b) of a 2^(3-1) fraction, shuffled, each column flipped
 * at random. Left over: 1 row; 2 complementary rows; 3 rows of a group.
 */
static void round_factors(struct rng *g, unsigned int rounds, uint8_t f[][3])
{
	static const uint8_t rows[4][3] = {
		{ 0, 0, 0 }, { 0, 1, 1 }, { 1, 0, 1 }, { 1, 1, 0 },
	};
	unsigned int r = 0, i, c;

	while (r < rounds) {
		unsigned int take = rounds - r < 4 ? rounds - r : 4;
		uint8_t perm[4] = { 0, 1, 2, 3 }, flip[3];

		rng_shuffle(g, perm, 4, 1);
		for (c = 0; c < 3; c++)
			flip[c] = rng_below(g, 2);
		for (i = 0; i < take; i++)
			for (c = 0; c < 3; c++)
				f[r + i][c] = take == 2 && i == 1 ? !f[r][c] :
					      rows[perm[i]][c] ^ flip[c];
		r += take;
	}
}

/*
 * One phase of a boot: the first half passes blocks / 2 times over the
 * sizes (shuffled each pass), a v5 block running M's order in even
 * passes and the other in odd ones; the second half mirrors the first.
 */
static unsigned int fill_phase(struct rng *g, const struct design_params *p,
			       enum design_kernel k, enum design_phase ph,
			       enum design_mode m, struct design_cell *c)
{
	uint8_t order[DESIGN_MAX_SIZES];
	unsigned int h, i, n = 0;

	for (h = 0; h < p->blocks / 2; h++) {
		for (i = 0; i < p->nsizes; i++)
			order[i] = i;
		rng_shuffle(g, order, p->nsizes, 1);
		for (i = 0; i < p->nsizes; i++) {
			enum design_mode a = h % 2 ? other(m) : m;

			if (k == DESIGN_K_GMEM) {
				c[n++] = (struct design_cell){ ph, DESIGN_GMEM,
							       order[i], h };
				continue;
			}
			c[n++] = (struct design_cell){ ph, a, order[i], h };
			c[n++] = (struct design_cell){ ph, other(a), order[i], h };
		}
	}
	for (i = 0; i < n; i++) {
		c[n + i] = c[n - 1 - i];
		c[n + i].block = p->blocks - 1 - c[n - 1 - i].block;
	}
	return 2 * n;
}

static bool params_ok(const struct design_params *p)
{
	unsigned int i, j;

	if (!p->rounds || p->rounds > DESIGN_MAX_ROUNDS || !nkernels(p) ||
	    !p->nsizes || p->nsizes > DESIGN_MAX_SIZES || !p->blocks ||
	    p->blocks % 2 || p->blocks > DESIGN_MAX_BLOCKS)
		return false;
	for (i = 0; i < p->nsizes; i++)
		for (j = 0; j < i; j++)
			if (p->sizes[i] == p->sizes[j])
				return false;
	return true;
}

int design_build(const struct design_params *p, struct design *d)
{
	uint8_t f[DESIGN_MAX_ROUNDS][3];
	unsigned int r, s, nk, ncells = 0, id = 0;
	uint64_t x;
	struct rng g;

	memset(d, 0, sizeof(*d));
	if (!params_ok(p))
		return -EINVAL;
	d->p = *p;
	nk = nkernels(p);
	d->nboots = p->rounds * nk;
	d->boot = calloc(d->nboots, sizeof(*d->boot));
	d->cells = calloc((size_t)p->rounds * (cells_of(p, DESIGN_K_V5) +
			  cells_of(p, DESIGN_K_GMEM)), sizeof(*d->cells));
	if (!d->boot || !d->cells) {
		design_free(d);
		return -ENOMEM;
	}
	x = p->seed;
	rng_seed(&g, rng_splitmix64(&x));
	round_factors(&g, p->rounds, f);
	for (r = 0; r < p->rounds; r++) {
		/* K, T, M, or T, M with v5 alone, or T with gmem alone */
		bool both = nk == 2, gmem_first = both && f[r][0];
		bool tf = f[r][both], m_in = f[r][both + 1];

		for (s = 0; s < nk; s++, id++) {
			struct design_boot *b = &d->boot[id];
			enum design_kernel k;
			unsigned int n;
			struct rng bg;

			if (both)
				k = (s == 0) == gmem_first ? DESIGN_K_GMEM :
							     DESIGN_K_V5;
			else
				k = p->kernel[DESIGN_K_V5] ? DESIGN_K_V5 :
							     DESIGN_K_GMEM;
			x = p->seed ^ ((uint64_t)(id + 1) * 0xd1342543de82ef95ULL);
			*b = (struct design_boot){
				.id = id, .round = r, .kernel = k, .slot = s,
				.traced_first = p->traced && tf,
				.mode_first = k == DESIGN_K_GMEM ? DESIGN_GMEM :
					      m_in ? DESIGN_INPLACE :
						     DESIGN_DESTRUCTIVE,
				.seed = rng_splitmix64(&x),
				.cell = d->cells + ncells,
			};
			rng_seed(&bg, b->seed);
			n = fill_phase(&bg, p, k, b->traced_first ? DESIGN_TRACED :
				       DESIGN_UNTRACED, b->mode_first, b->cell);
			if (p->traced)
				n += fill_phase(&bg, p, k, b->traced_first ?
						DESIGN_UNTRACED : DESIGN_TRACED,
						b->mode_first, b->cell + n);
			b->ncells = n;
			ncells += n;
		}
	}
	return 0;
}

void design_free(struct design *d)
{
	free(d->boot);
	free(d->cells);
	memset(d, 0, sizeof(*d));
}

const struct design_boot *design_round_boot(const struct design *d,
					    unsigned int round,
					    enum design_kernel k)
{
	unsigned int i;

	for (i = 0; i < d->nboots; i++)
		if (d->boot[i].round == round && d->boot[i].kernel == k)
			return &d->boot[i];
	return NULL;
}

double design_boot_time(const struct design *d, const struct design_boot *b)
{
	return b->id - (d->nboots - 1) / 2.0;
}

double design_round_time(const struct design *d, unsigned int round)
{
	double sum = 0;
	unsigned int i, n = 0;

	for (i = 0; i < d->nboots; i++)
		if (d->boot[i].round == round) {
			sum += design_boot_time(d, &d->boot[i]);
			n++;
		}
	return n ? sum / n : 0;
}

double design_kernel_code(const struct design *d, unsigned int round)
{
	const struct design_boot *b = design_round_boot(d, round, DESIGN_K_V5);

	if (nkernels(&d->p) < 2 || !b)
		return 0;
	return b->slot ? 0.5 : -0.5;
}

unsigned int design_family(const struct design *d, unsigned int ndirs)
{
	unsigned int per = d->p.nsizes * ndirs;

	if (!d->p.kernel[DESIGN_K_V5])
		return 0;
	return d->p.kernel[DESIGN_K_GMEM] ? 2 * per : per;
}
