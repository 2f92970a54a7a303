/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The order in which convbench runs its cells. Each round runs every
 * (mode, size) once. Per round the sizes are shuffled with a PRNG seeded
 * from (order seed, round number); each size runs both modes back to
 * back, and which mode goes first alternates from one size to the next
 * across the whole run (A B, B A, A B, ...: ABBA), so neither mode
 * always runs first, later or next to the same neighbour. Drift in the
 * machine then falls on both modes alike, and the between-round spread
 * of the ratios (what the CIs are made of) contains it. The seed is
 * recorded: the order of any round can be replayed.
 */
#ifndef CONVBENCH_PLAN_H
#define CONVBENCH_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cell_types.h"

struct plan_cell {
	uint32_t round;
	enum conv_mode mode;
	uint64_t size;
	uint32_t block;		/* of (round, size) in a design's boot, else 0 */
	uint32_t iterations;	/* this cell's share; 0: the run's */
	uint8_t boot_slot;	/* 1 + the boot's slot in its round; 0: no design */
};

/*
 * Rounds first_round .. first_round + rounds - 1 of the modes that are
 * true in modes[] over sizes[]: *out (malloc'd) gets rounds x nsizes x
 * modes cells in running order. 0 or -ENOMEM / -EINVAL.
 */
int plan_build(const bool modes[MODE_NR], const uint64_t *sizes,
	       unsigned int nsizes, uint32_t first_round, uint32_t rounds,
	       uint64_t seed, struct plan_cell **out, size_t *n);

struct design_boot;

/*
 * make bench's boots (--design): the cells of one boot's phase (traced
 * or untraced) as lib/stats/design.h declared them, in that order, each
 * (round, size, mode)'s iterations (iters[], by the index of its size
 * in sizes[]) split over its blocks (the first blocks take the
 * remainder). *out (malloc'd) gets them. 0, -EINVAL (a block of no
 * iteration) or -ENOMEM.
 */
int plan_from_design(const struct design_boot *b, unsigned int phase,
		     const uint64_t *sizes, unsigned int blocks,
		     const uint32_t *iters, struct plan_cell **out, size_t *n);

#endif /* CONVBENCH_PLAN_H */
