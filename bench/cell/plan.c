// SPDX-License-Identifier: GPL-2.0
/* The running order of the cells: see plan.h */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "design.h"
#include "plan.h"
#include "rng.h"

int plan_build(const bool modes[MODE_NR], const uint64_t *sizes,
	       unsigned int nsizes, uint32_t first_round, uint32_t rounds,
	       uint64_t seed, struct plan_cell **out, size_t *n)
{
	enum conv_mode order[MODE_NR];
	unsigned int nm = 0, m, i, k;
	uint64_t shuffled[64];
	struct plan_cell *c;
	uint32_t r;
	size_t at = 0;

	*out = NULL;
	*n = 0;
	for (m = 0; m < MODE_NR; m++)
		if (modes[m])
			order[nm++] = m;
	if (!nsizes || nsizes > 64 || !rounds)
		return -EINVAL;
	if (!nm)
		return 0;
	c = calloc((size_t)rounds * nsizes * nm, sizeof(*c));
	if (!c)
		return -ENOMEM;
	for (r = first_round; r < first_round + rounds; r++) {
		uint64_t x = seed ^ ((uint64_t)r * 0xd1342543de82ef95ULL);
		struct rng rng;

		rng_seed(&rng, rng_splitmix64(&x));
		memcpy(shuffled, sizes, nsizes * sizeof(*sizes));
		rng_shuffle(&rng, shuffled, nsizes, sizeof(*shuffled));
		for (i = 0; i < nsizes; i++) {
			/* the pair's number across rounds: first_round's too */
			uint64_t pair = (uint64_t)r * nsizes + i;

			for (k = 0; k < nm; k++) {
				unsigned int j = pair % 2 ? nm - 1 - k : k;

				c[at].round = r;
				c[at].mode = order[j];
				c[at].size = shuffled[i];
				at++;
			}
		}
	}
	*out = c;
	*n = at;
	return 0;
}

int plan_from_design(const struct design_boot *b, unsigned int phase,
		     const uint64_t *sizes, unsigned int blocks,
		     const uint32_t *iters, struct plan_cell **out, size_t *n)
{
	struct plan_cell *c;
	unsigned int i;
	size_t at = 0;

	*out = NULL;
	*n = 0;
	if (!blocks)
		return -EINVAL;
	for (i = 0; i < b->ncells; i++)
		if (iters[b->cell[i].size] < blocks)
			return -EINVAL;
	c = calloc(b->ncells ? b->ncells : 1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	for (i = 0; i < b->ncells; i++) {
		const struct design_cell *d = &b->cell[i];

		if (d->phase != phase)
			continue;
		c[at++] = (struct plan_cell) {
			.round = b->round,
			/* lib/vocab.h's numbering: design.h says so */
			.mode = (enum conv_mode)d->mode,
			.size = sizes[d->size],
			.block = d->block,
			.boot_slot = b->slot + 1,
			.iterations = iters[d->size] / blocks +
				      (d->block < iters[d->size] % blocks),
		};
	}
	*out = c;
	*n = at;
	return 0;
}
