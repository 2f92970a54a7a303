/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The design of a make bench run (issue 22, item 1): which boots run,
 * in which order, and inside each boot which runs of which mode and
 * size, in which order. Declared before the run from a seed, balanced
 * (design_check() says so, or names every imbalance), written into
 * summary.json (design_json()) so that any order can be checked and
 * replayed, and read by the intervals (lib/stats/effect.h) for the
 * covariates they need.
 *
 * Vocabulary (bench/cell/plan.h's, extended):
 *   round  R rounds; a round boots each kernel asked for once: the v5
 *          kernel (6.1 with the series: modes destructive and inplace)
 *          and the gmem kernel (6.12: mode gmem).
 *   boot   a fresh VM of one kernel. Boots are numbered in running
 *          order over the whole run (boot[i].id == i): the time axis
 *          along which a run drifts.
 *   phase  each boot runs its matrix untraced (the numbers reported)
 *          and, when asked, traced (--trace); traced_first says which
 *          ran first.
 *   block  in a v5 boot, one size's two modes back to back (AB or BA);
 *          in a gmem boot, one gmem run. Each (boot, phase, size) has
 *          `blocks` blocks (even; 2 gives ABBA).
 *   cell   one run: (boot, phase, size, block, mode); the driver gives
 *          it iterations / blocks conversions.
 *
 * Inside a phase the order is a palindrome. The first half visits the
 * sizes in a shuffled order (per boot and phase, from the boot's seed)
 * and gives each of its blocks the boot's mode order M (destructive or
 * inplace first; for blocks > 2 reversed from one pass over the sizes
 * to the next); the second half is the first one backwards. So every
 * size runs ABBA or BAAB in every boot: each mode first in half of the
 * size's blocks, and both modes at the same mean position, so that a
 * drift linear in time inside the phase cancels from each size's
 * ratio, as does an effect of running first in a block.
 *
 * Across boots three factors are counterbalanced, independently of one
 * another:
 *   K  the round's kernel order (v5 first or gmem first);
 *   T  traced phase first, the same in both boots of a round (an
 *      effect of T on both kernels then cancels inside the round);
 *   M  the v5 boot's mode order (destructive or inplace first): the
 *      first mode of each size in the first half, and of the boot.
 * Rounds come in groups of 4 holding the rows (a, b, a^b) of the
 * 2^(3-1) fraction, shuffled, each column flipped at random, as
 * (K, T, M): in each group every factor takes each level twice and each
 * pair of factors each of its four combinations once (the main effects
 * are orthogonal; K x T is aliased with M, whose own effect the ABBA
 * inside each boot cancels). 1, 2 or 3 rounds left over take one row,
 * two complementary rows, or three rows of a group: each factor stays
 * within one of balance and each pair as near orthogonal as that count
 * of rounds allows (see design_check()). Rounds in multiples of 4 are
 * balanced exactly. With one kernel, T and M form a full 2^2 in each
 * group; with gmem alone only T is balanced.
 *
 * Replay: design_build() of the same parameters and seed gives the same
 * design; design_json() also lists every boot's cells.
 *
 * Integration (after the reorganisation of bench/): plan_build()
 * (bench/cell/plan.c) keeps serving one-boot convbench runs; make bench asks
 * for the design once on the host (convbench --design=JSON or its
 * parameters and seed), passes each boot its id, and vm-bench.sh runs
 * that boot's cells in order: the untraced and traced phases (no more
 * round parity: T), each phase's cells as listed, gmem boots likewise,
 * kernel order from K (run-bench.sh's "k % 2"). summary.json gets the
 * design under "design" (replacing method.order_seed and method.order;
 * rounds[].order becomes the boot's cell list), with "balance" filled
 * by design_check() over the valid boots, so that a boot left out is
 * seen to unbalance the run.
 */
#ifndef CONVBENCH_DESIGN_H
#define CONVBENCH_DESIGN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DESIGN_MAX_ROUNDS	64
#define DESIGN_MAX_SIZES	16
#define DESIGN_MAX_BLOCKS	16

/* the numbering of lib/vocab.h's enum conv_mode */
enum design_mode { DESIGN_DESTRUCTIVE, DESIGN_INPLACE, DESIGN_GMEM,
		   DESIGN_NMODES };
enum design_kernel { DESIGN_K_V5, DESIGN_K_GMEM, DESIGN_NKERNELS };
enum design_phase { DESIGN_UNTRACED, DESIGN_TRACED, DESIGN_NPHASES };

struct design_params {
	unsigned int rounds;		/* 1..DESIGN_MAX_ROUNDS */
	bool kernel[DESIGN_NKERNELS];	/* which kernels boot in a round */
	bool traced;			/* a traced phase in every boot */
	unsigned int nsizes;		/* 1..DESIGN_MAX_SIZES, distinct */
	uint64_t sizes[DESIGN_MAX_SIZES];
	unsigned int blocks;		/* per (boot, phase, size): even */
	uint64_t seed;
};

struct design_cell {
	uint8_t phase;		/* enum design_phase */
	uint8_t mode;		/* enum design_mode */
	uint8_t size;		/* index into params.sizes[] */
	uint8_t block;		/* 0 .. blocks - 1 within (phase, size) */
};

struct design_boot {
	unsigned int id;		/* running order over the run, 0.. */
	unsigned int round;
	enum design_kernel kernel;
	unsigned int slot;		/* 0: first boot of its round, 1 */
	bool traced_first;		/* T */
	enum design_mode mode_first;	/* M (v5), DESIGN_GMEM (gmem) */
	uint64_t seed;			/* its shuffles, from (seed, id) */
	unsigned int ncells;
	struct design_cell *cell;	/* running order, both phases */
};

struct design {
	struct design_params p;
	unsigned int nboots;
	struct design_boot *boot;	/* running order */
	struct design_cell *cells;	/* the storage of every boot's */
};

const char *design_mode_name(enum design_mode m);
const char *design_kernel_name(enum design_kernel k);
const char *design_phase_name(enum design_phase ph);

/*
 * The design of p: 0, -EINVAL (no rounds or too many, no kernel, no
 * size or too many, a size twice, blocks odd, 0 or too many) or -ENOMEM.
 * Free with design_free().
 */
int design_build(const struct design_params *p, struct design *d);
void design_free(struct design *d);

/* the boot of kernel k in round r, or NULL */
const struct design_boot *design_round_boot(const struct design *d,
					    unsigned int round,
					    enum design_kernel k);

/*
 * Covariates for lib/stats/effect.h, each 0 at the point the intervals are
 * for: a boot's time, its id less the run's middle ((nboots - 1) / 2),
 * in boots; a round's, the mean of its boots' (so an effect drifting
 * linearly is taken at the middle of the run); a round's kernel order,
 * +1/2 when gmem booted first, -1/2 when v5 did (0 for one kernel), so
 * that the interval is for the average of both orders.
 */
double design_boot_time(const struct design *d, const struct design_boot *b);
double design_round_time(const struct design *d, unsigned int round);
double design_kernel_code(const struct design *d, unsigned int round);

/*
 * The ratios of a run that are estimated (and whose intervals a joint
 * level is spread over): inplace/destructive and gmem/destructive per
 * size and direction, as far as the kernels ran. inplace/gmem is their
 * quotient and is not counted.
 */
unsigned int design_family(const struct design *d, unsigned int ndirs);

/*
 * The balance of the boots of d that valid[] marks (NULL: all), each
 * imbalance said in one line to say(arg, line) (which may be NULL);
 * returns their number. Checked:
 * - structure: each round has one boot per kernel, slots 0 and 1 in
 *   running order; each phase's cells together, the traced phase where
 *   asked and first iff traced_first; each (boot, phase, size) has
 *   `blocks` blocks, a v5 block one destructive and one inplace cell
 *   back to back, a gmem block one gmem cell;
 * - within each v5 boot, phase and size: as many blocks start with
 *   destructive as with inplace, and both modes have the same mean
 *   position in the phase (linear drift cancels);
 * - across boots: K over the rounds, T over each kernel's boots, and
 *   over the v5 boots, per phase, the mode each phase starts with and,
 *   per size, the mode of its first block: the two levels of each may
 *   differ in count by at most n mod 2 (n the boots or rounds counted);
 * - independence: over each kernel's boots K with T; over the v5 boots,
 *   per phase, K and T each with the starting mode and with each size's
 *   first mode. With levels coded -1/+1, the sum of the products of two
 *   factors over n boots may be at most 0 (n a multiple of 4), 2
 *   (n = 4k + 2), 1 (n odd) in magnitude: as orthogonal as n allows.
 */
unsigned int design_check(const struct design *d, const bool *valid,
			  void (*say)(void *arg, const char *line), void *arg);

struct jsonw;
/*
 * summary.json's "design": parameters, scheme, every boot (round,
 * kernel, slot, T, M, seed_hex, valid, its cells per phase as strings
 * "size mode block", e.g. "4K inplace 1") and "balance" (design_check()
 * over valid[]: the count and the lines).
 */
void design_json(struct jsonw *w, const struct design *d, const bool *valid);

#endif /* CONVBENCH_DESIGN_H */
