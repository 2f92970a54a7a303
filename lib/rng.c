// SPDX-License-Identifier: GPL-2.0
/* xoshiro256** seeded by splitmix64: see rng.h */
#include <string.h>

#include "rng.h"

void rng_seed(struct rng *r, uint64_t seed)
{
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = rng_splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s, res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return res;
}

uint32_t rng_below(struct rng *r, uint32_t n)
{
	uint64_t m = (rng_next(r) >> 32) * n;

	if ((uint32_t)m < n) {
		uint32_t thresh = -n % n;

		while ((uint32_t)m < thresh)
			m = (rng_next(r) >> 32) * n;
	}
	return (uint32_t)(m >> 32);
}

void rng_shuffle(struct rng *r, void *base, size_t n, size_t sz)
{
	unsigned char tmp[64], *b = base;
	size_t i, j;

	if (sz > sizeof(tmp))
		return;
	for (i = n; i > 1; i--) {
		j = rng_below(r, (uint32_t)i);
		memcpy(tmp, b + (i - 1) * sz, sz);
		memcpy(b + (i - 1) * sz, b + j * sz, sz);
		memcpy(b + j * sz, tmp, sz);
	}
}
