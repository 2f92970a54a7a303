// SPDX-License-Identifier: GPL-2.0
/*
 * bench/cell/plan.c, the running order of convbench's cells: every round
 * runs every (mode, size) once, a size's two modes back to back, the
 * first mode alternating across the run (also across --first-round
 * boots), the sizes shuffled by the seed and the round: the same seed
 * gives the same order, another seed another one.
 */
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "tap.h"

static const uint64_t sizes[] = { 4096, 65536, 2097152, 8192 };
static const bool both[MODE_NR] = { true, true };

int main(void)
{
	struct plan_cell *a, *b, *c;
	size_t na, nb, nc, i, bad = 0, moved = 0;
	int prev = -1;

	tap_result(!plan_build(both, sizes, 4, 0, 6, 42, &a, &na) && na == 48,
		   "6 rounds x 4 sizes x 2 modes: 48 cells");
	for (i = 0; i < na; i += 2) {
		bad += a[i].size != a[i + 1].size ||
		       a[i].mode == a[i + 1].mode ||
		       a[i].round != a[i + 1].round ||
		       (int)a[i].mode == prev;
		prev = a[i].mode;
	}
	tap_result(!bad, "a size's modes run back to back, which first alternates (ABBA)");
	for (i = 0, bad = 0; i < na; i++) {
		size_t j, seen = 0;

		for (j = i - i % 8; j < i - i % 8 + 8; j++)
			seen += a[j].size == a[i].size && a[j].mode == a[i].mode;
		bad += seen != 1 || a[i].round != i / 8;
	}
	tap_result(!bad, "each round runs each (mode, size) once, rounds in order");
	for (i = 8; i < na; i += 8)
		moved += memcmp(&a[i], &a[i - 8], sizeof(*a)) != 0 ||
			 a[i + 2].size != a[i - 6].size;
	tap_result(moved > 0, "the sizes' order changes between rounds");
	plan_build(both, sizes, 4, 0, 6, 42, &b, &nb);
	plan_build(both, sizes, 4, 0, 6, 43, &c, &nc);
	tap_result(nb == na && !memcmp(a, b, na * sizeof(*a)),
		   "the same seed, the same order");
	tap_result(nc == na && memcmp(a, c, na * sizeof(*a)),
		   "another seed, another order");
	free(b);
	/* make bench: one round per boot, numbered by --first-round */
	plan_build(both, sizes, 4, 3, 1, 42, &b, &nb);
	tap_result(nb == 8 && !memcmp(b, &a[24], 8 * sizeof(*a)),
		   "round 3 alone (--first-round=3) is round 3 of the whole run");
	free(b);
	plan_build((const bool[MODE_NR]){ false, true }, sizes, 4, 0, 2, 1,
		   &b, &nb);
	tap_result(nb == 8 && b[0].mode == MODE_INPLACE,
		   "one mode: 2 rounds x 4 sizes");
	free(a);
	free(b);
	free(c);
	return tap_finish(false);
}
