/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The project's one PRNG: xoshiro256** (Blackman, Vigna) seeded through
 * splitmix64, so that a 64-bit seed gives the same sequence everywhere
 * (the shuffled cell order of convbench's rounds is replayed from the
 * seed recorded in summary.json). Not for cryptography.
 */
#ifndef CONVBENCH_RNG_H
#define CONVBENCH_RNG_H

#include <stddef.h>
#include <stdint.h>

struct rng {
	uint64_t s[4];
};

/* splitmix64's increment: its state n steps later is x + n * this */
#define RNG_SPLITMIX64_GAMMA	0x9e3779b97f4a7c15ULL

/*
 * splitmix64 step: also a good 64-bit mixer of *x on its own. Inline, so
 * that guest code can draw from it too: define RNG_CODE (as GUEST_CODE,
 * say) before including this header to compile it as the caller's code.
 */
#ifndef RNG_CODE
#define RNG_CODE
#endif
static inline RNG_CODE uint64_t rng_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += RNG_SPLITMIX64_GAMMA);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void rng_seed(struct rng *r, uint64_t seed);
uint64_t rng_next(struct rng *r);
/* unbiased uniform in [0, n), n >= 1 (Lemire's multiply-and-reject) */
uint32_t rng_below(struct rng *r, uint32_t n);
/* Fisher-Yates shuffle of n elements of size sz (sz <= 64) */
void rng_shuffle(struct rng *r, void *base, size_t n, size_t sz);

#endif /* CONVBENCH_RNG_H */
