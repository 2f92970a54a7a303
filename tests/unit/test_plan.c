// SPDX-License-Identifier: GPL-2.0
/*
 * bench/cell/plan.c, the running order of convbench's cells: every round
 * runs every (mode, size) once, a size's two modes back to back, the
 * first mode alternating across the run (also across --first-round
 * boots), the sizes shuffled by the seed and the round: the same seed
 * gives the same order, another seed another one. make bench's boots
 * (plan_from_design()): each boot's phase as lib/stats/design.h declares
 * it, every size's modes ABBA or BAAB, the iterations split over the
 * blocks.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "design.h"
#include "plan.h"
#include "tap.h"

static const uint64_t sizes[] = { 4096, 65536, 2097152, 8192 };
static const bool both[MODE_NR] = { true, true };

/* make bench's design: 8 rounds of both kernels, 3 sizes, 2 blocks */
static void test_design_plan(void)
{
	struct design_params p = {
		.rounds = 8, .kernel = { true, true }, .traced = true,
		.nsizes = 3, .sizes = { 4096, 65536, 2097152 }, .blocks = 2,
		.seed = 77,
	};
	unsigned int i, ph, bad_order = 0, bad_iter = 0, bad_count = 0;
	unsigned int bad_meta = 0, first_in = 0, first_de = 0, v5_boots = 0;
	/* per size (--iterations-at): 4K and 2M 301, 64K 601 */
	static const uint32_t iters[3] = { 301, 601, 301 };
	static const uint32_t one[3] = { 1, 601, 301 };
	struct plan_cell *c;
	struct design d;
	size_t n, k, j;

	if (design_build(&p, &d)) {
		tap_result(false, "a design of 8 rounds x 2 kernels");
		return;
	}
	for (i = 0; i < d.nboots; i++) {
		const struct design_boot *b = &d.boot[i];
		bool v5 = b->kernel == DESIGN_K_V5;

		for (ph = 0; ph < DESIGN_NPHASES; ph++) {
			if (plan_from_design(b, ph, p.sizes, 2, iters, &c, &n)) {
				bad_count++;
				continue;
			}
			/* v5: 3 sizes x 2 blocks x 2 modes; gmem: x 1 mode */
			bad_count += n != (v5 ? 12u : 6u);
			for (k = 0; k < 3; k++) {
				enum conv_mode seq[4];
				unsigned int m = 0, sum = 0;

				for (j = 0; j < n; j++) {
					if (c[j].size != p.sizes[k])
						continue;
					if (m < 4)
						seq[m] = c[j].mode;
					m++;
					sum += c[j].iterations;
					bad_meta += c[j].round != b->round ||
						    c[j].boot_slot != b->slot + 1;
				}
				/* each mode's two blocks: 151 + 150, 301 + 300 */
				bad_iter += sum != (v5 ? 2 : 1) * iters[k];
				if (!v5)
					continue;
				/* ABBA or BAAB, and each block one of each */
				bad_order += m != 4 || seq[0] == seq[1] ||
					     seq[0] != seq[3] || seq[1] != seq[2];
			}
			if (v5 && ph == DESIGN_UNTRACED && n) {
				v5_boots++;
				first_in += c[0].mode == MODE_INPLACE;
				first_de += c[0].mode == MODE_DESTRUCTIVE;
			}
			free(c);
		}
	}
	tap_result(!bad_count, "design: each boot's phase has its kernel's cells (v5 12, gmem 6)");
	tap_result(!bad_order, "design: in every v5 boot and phase each size runs ABBA or BAAB");
	tap_result(!bad_iter, "design: each size's iterations (301, 601, 301) split over 2 blocks per mode");
	tap_result(!bad_meta, "design: each cell carries its boot's round and slot");
	tap_result(v5_boots == 8 && first_in == 4 && first_de == 4,
		   "design: over 8 v5 boots each mode starts the untraced phase 4 times (%u, %u)",
		   first_de, first_in);
	tap_result(plan_from_design(&d.boot[0], 0, p.sizes, 2, one, &c, &n) == -EINVAL,
		   "design: fewer iterations than blocks, for one size, is refused");
	design_free(&d);
}

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
	test_design_plan();
	return tap_finish(false);
}
