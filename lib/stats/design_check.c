// SPDX-License-Identifier: GPL-2.0
/* A make bench run's design: its balance (design_check()) and its JSON */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "design.h"
#include "design_int.h"
#include "jsonw.h"
#include "units.h"

struct check {
	void (*say)(void *arg, const char *line);
	void *arg;
	unsigned int n;
};

static void __attribute__((format(printf, 2, 3)))
problem(struct check *ck, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	ck->n++;
	if (ck->say)
		ck->say(ck->arg, line);
}

/* a two-level factor over n units, coded -1/+1 (0: not counted) */
struct factor {
	char name[96];
	const char *level[2];	/* -1, +1 */
	signed char v[DESIGN_MAX_ROUNDS * DESIGN_NKERNELS];
};

static void marginal(struct check *ck, const struct factor *a, unsigned int n,
		     const char *over)
{
	unsigned int i, c[2] = { 0, 0 };

	for (i = 0; i < n; i++)
		if (a->v[i])
			c[a->v[i] > 0]++;
	if ((c[0] > c[1] ? c[0] - c[1] : c[1] - c[0]) > (c[0] + c[1]) % 2)
		problem(ck, "%s over %u %s: %s %u, %s %u (they may differ by "
			"%u)", a->name, c[0] + c[1], over, a->level[0], c[0],
			a->level[1], c[1], (c[0] + c[1]) % 2);
}

/* the most |sum of products| n units allow */
static int pair_tolerance(unsigned int n)
{
	return n % 4 == 0 ? 0 : n % 2 ? 1 : 2;
}

static void pair(struct check *ck, const struct factor *a,
		 const struct factor *b, unsigned int n, const char *over)
{
	unsigned int i, c[2][2] = { { 0, 0 }, { 0, 0 } }, m = 0;
	int sum = 0;

	for (i = 0; i < n; i++) {
		if (!a->v[i] || !b->v[i])
			continue;
		c[a->v[i] > 0][b->v[i] > 0]++;
		sum += a->v[i] * b->v[i];
		m++;
	}
	if (abs(sum) > pair_tolerance(m))
		problem(ck, "%s goes with %s over %u %s: %s & %s %u, %s & %s "
			"%u, %s & %s %u, %s & %s %u (association %+d, at most "
			"%d in magnitude)", a->name, b->name, m, over,
			a->level[0], b->level[0], c[0][0],
			a->level[0], b->level[1], c[0][1],
			a->level[1], b->level[0], c[1][0],
			a->level[1], b->level[1], c[1][1], sum,
			pair_tolerance(m));
}

/* one boot's cells: phases, blocks, ABBA, positions */
static void check_boot(struct check *ck, const struct design *d,
		       const struct design_boot *b)
{
	const struct design_params *p = &d->p;
	bool v5 = b->kernel == DESIGN_K_V5;
	unsigned int ph, s, j, i, changes = 0, want;
	char sz[32];

	if (b->ncells != cells_of(p, b->kernel))
		problem(ck, "boot %u (%s): %u cells, expected %u", b->id,
			design_kernel_name(b->kernel), b->ncells,
			cells_of(p, b->kernel));
	for (i = 0; i < b->ncells; i++) {
		const struct design_cell *c = &b->cell[i];

		if (c->phase >= nphases(p) || c->size >= p->nsizes ||
		    c->block >= p->blocks ||
		    (v5 ? c->mode == DESIGN_GMEM || c->mode >= DESIGN_NMODES :
			  c->mode != DESIGN_GMEM)) {
			problem(ck, "boot %u (%s): cell %u is not one of its "
				"phases, sizes, blocks or modes", b->id,
				design_kernel_name(b->kernel), i);
			return;
		}
		changes += i && c->phase != b->cell[i - 1].phase;
	}
	if (!b->ncells)
		return;
	want = p->traced && b->traced_first ? DESIGN_TRACED : DESIGN_UNTRACED;
	if (changes > nphases(p) - 1 || b->cell[0].phase != want)
		problem(ck, "boot %u (%s): the phases are not each together "
			"with the %s phase first", b->id,
			design_kernel_name(b->kernel), design_phase_name(want));
	for (ph = 0; ph < nphases(p); ph++) {
		for (s = 0; s < p->nsizes; s++) {
			unsigned int first[DESIGN_NMODES] = { 0 };
			long possum[DESIGN_NMODES] = { 0 };
			unsigned int q = 0;

			size_str(p->sizes[s], sz, sizeof(sz));
			for (j = 0; j < p->blocks; j++) {
				int at[2] = { -1, -1 }, cnt = 0;

				for (i = 0, q = 0; i < b->ncells; i++) {
					const struct design_cell *c = &b->cell[i];

					if (c->phase != ph)
						continue;
					if (c->size == s && c->block == j) {
						if (cnt < 2)
							at[cnt] = i;
						cnt++;
						possum[c->mode] += q;
					}
					q++;
				}
				if (!v5) {
					if (cnt != 1)
						problem(ck, "boot %u (gmem), %s, "
							"%s: block %u has %d "
							"cells, expected 1",
							b->id,
							design_phase_name(ph),
							sz, j, cnt);
					continue;
				}
				if (cnt != 2 || at[1] != at[0] + 1 ||
				    b->cell[at[0]].mode == b->cell[at[1]].mode) {
					problem(ck, "boot %u (v5), %s, %s: block "
						"%u is not destructive and "
						"inplace back to back", b->id,
						design_phase_name(ph), sz, j);
					continue;
				}
				first[b->cell[at[0]].mode]++;
			}
			if (!v5)
				continue;
			if (first[DESIGN_DESTRUCTIVE] != first[DESIGN_INPLACE])
				problem(ck, "boot %u (v5), %s, %s: %u blocks "
					"start with destructive, %u with "
					"inplace (ABBA: as many)", b->id,
					design_phase_name(ph), sz,
					first[DESIGN_DESTRUCTIVE],
					first[DESIGN_INPLACE]);
			if (possum[DESIGN_DESTRUCTIVE] != possum[DESIGN_INPLACE])
				problem(ck, "boot %u (v5), %s, %s: the modes' "
					"positions in the phase sum to %ld "
					"(destructive) and %ld (inplace): a "
					"drift in time does not cancel",
					b->id, design_phase_name(ph), sz,
					possum[DESIGN_DESTRUCTIVE],
					possum[DESIGN_INPLACE]);
		}
	}
}

/* the mode of the first cell of (phase, size) in b (size < 0: any) */
static signed char first_mode(const struct design_boot *b, unsigned int ph,
			      int size)
{
	unsigned int i;

	for (i = 0; i < b->ncells; i++)
		if (b->cell[i].phase == ph &&
		    (size < 0 || b->cell[i].size == size))
			return b->cell[i].mode == DESIGN_INPLACE ? 1 :
			       b->cell[i].mode == DESIGN_DESTRUCTIVE ? -1 : 0;
	return 0;
}

static void check_rounds(struct check *ck, const struct design *d)
{
	unsigned int r, i, n[DESIGN_NKERNELS];

	for (r = 0; r < d->p.rounds; r++) {
		const struct design_boot *b[DESIGN_NKERNELS] = { NULL, NULL };

		memset(n, 0, sizeof(n));
		for (i = 0; i < d->nboots; i++) {
			if (d->boot[i].round != r || d->boot[i].kernel >=
			    DESIGN_NKERNELS)
				continue;
			n[d->boot[i].kernel]++;
			b[d->boot[i].kernel] = &d->boot[i];
		}
		for (i = 0; i < DESIGN_NKERNELS; i++)
			if (n[i] != d->p.kernel[i])
				problem(ck, "round %u: %u boots of the %s "
					"kernel, expected %u", r, n[i],
					design_kernel_name(i), d->p.kernel[i]);
		if (n[0] != d->p.kernel[0] || n[1] != d->p.kernel[1])
			continue;
		for (i = 0; i < DESIGN_NKERNELS; i++)
			if (b[i] && (b[i]->slot >= nkernels(&d->p) ||
				     (b[!i] && (b[i]->slot == b[!i]->slot ||
				      (b[i]->slot < b[!i]->slot) !=
				      (b[i]->id < b[!i]->id)))))
				problem(ck, "round %u: the %s boot's slot %u "
					"does not follow the running order",
					r, design_kernel_name(i), b[i]->slot);
	}
}

unsigned int design_check(const struct design *d, const bool *valid,
			  void (*say)(void *arg, const char *line), void *arg)
{
	struct factor K, T, M, KR;
	struct check ck = { say, arg, 0 };
	const struct design_params *p = &d->p;
	bool both = nkernels(p) == 2;
	unsigned int i, k, ph, s, n;
	char sz[32], over[64];

	for (i = 0; i < d->nboots; i++)
		if (in_use(valid, i))
			check_boot(&ck, d, &d->boot[i]);
	check_rounds(&ck, d);

	/* K over the rounds, from either of its boots in use */
	memset(&KR, 0, sizeof(KR));
	snprintf(KR.name, sizeof(KR.name), "the kernel order");
	KR.level[0] = "v5 first";
	KR.level[1] = "gmem first";
	for (i = 0; both && i < d->nboots; i++) {
		const struct design_boot *b = &d->boot[i];

		if (in_use(valid, i) && b->round < DESIGN_MAX_ROUNDS &&
		    !KR.v[b->round])
			KR.v[b->round] = (b->kernel == DESIGN_K_GMEM) ==
					 (b->slot == 0) ? 1 : -1;
	}
	if (both)
		marginal(&ck, &KR, p->rounds, "rounds");

	for (k = 0; k < DESIGN_NKERNELS; k++) {
		if (!p->kernel[k])
			continue;
		memset(&K, 0, sizeof(K));
		memset(&T, 0, sizeof(T));
		snprintf(K.name, sizeof(K.name), "the kernel order");
		K.level[0] = "v5 first";
		K.level[1] = "gmem first";
		snprintf(T.name, sizeof(T.name), "the phase order");
		T.level[0] = "untraced first";
		T.level[1] = "traced first";
		for (i = 0, n = 0; i < d->nboots; i++) {
			const struct design_boot *b = &d->boot[i];

			if (!in_use(valid, i) || b->kernel != k)
				continue;
			K.v[n] = (k == DESIGN_K_GMEM) == (b->slot == 0) ? 1 : -1;
			T.v[n] = b->traced_first ? 1 : -1;
			n++;
		}
		snprintf(over, sizeof(over), "%s boots", design_kernel_name(k));
		if (p->traced)
			marginal(&ck, &T, n, over);
		if (p->traced && both)
			pair(&ck, &K, &T, n, over);
		if (k != DESIGN_K_V5)
			continue;
		for (ph = 0; ph < nphases(p); ph++) {
			for (s = 0; s <= p->nsizes; s++) {
				/* s == nsizes: the phase's first cell */
				memset(&M, 0, sizeof(M));
				if (s < p->nsizes)
					snprintf(M.name, sizeof(M.name),
						 "the %s phase's first mode at %s",
						 design_phase_name(ph),
						 size_str(p->sizes[s], sz,
							  sizeof(sz)));
				else
					snprintf(M.name, sizeof(M.name),
						 "the mode the %s phase starts "
						 "with", design_phase_name(ph));
				M.level[0] = "destructive";
				M.level[1] = "inplace";
				for (i = 0, n = 0; i < d->nboots; i++) {
					const struct design_boot *b = &d->boot[i];

					if (!in_use(valid, i) || b->kernel != k)
						continue;
					M.v[n++] = first_mode(b, ph, s < p->nsizes ?
							      (int)s : -1);
				}
				marginal(&ck, &M, n, over);
				if (both)
					pair(&ck, &K, &M, n, over);
				if (p->traced)
					pair(&ck, &T, &M, n, over);
			}
		}
	}
	return ck.n;
}

/* ---- JSON ---- */

static void say_json(void *arg, const char *line)
{
	jsonw_str(arg, line);
}

void design_json(struct jsonw *w, const struct design *d, const bool *valid)
{
	const struct design_params *p = &d->p;
	char sz[32], cell[96];
	unsigned int i, k, ph, n;

	jsonw_obj_open(w);
	jsonw_kv_str(w, "scheme", "convbench design 1 (lib/stats/design.h): per "
		     "round a boot of each kernel; in each boot and phase a "
		     "palindrome of blocks, every size ABBA or BAAB; kernel "
		     "order K, traced first T and v5 mode order M "
		     "counterbalanced in groups of 4 rounds (a 2^(3-1) "
		     "fraction: main effects orthogonal)");
	jsonw_kv_u64(w, "seed", p->seed);
	jsonw_kv_u64(w, "rounds", p->rounds);
	jsonw_key(w, "kernels");
	jsonw_arr_open(w);
	for (k = 0; k < DESIGN_NKERNELS; k++)
		if (p->kernel[k])
			jsonw_str(w, design_kernel_name(k));
	jsonw_arr_close(w);
	jsonw_key(w, "sizes");
	jsonw_arr_open(w);
	for (i = 0; i < p->nsizes; i++)
		jsonw_str(w, size_str(p->sizes[i], sz, sizeof(sz)));
	jsonw_arr_close(w);
	jsonw_kv_bool(w, "traced", p->traced);
	jsonw_kv_u64(w, "blocks_per_size", p->blocks);
	jsonw_kv_u64(w, "ratio_family", design_family(d, 2));
	jsonw_key(w, "boots");
	jsonw_arr_open(w);
	for (i = 0; i < d->nboots; i++) {
		const struct design_boot *b = &d->boot[i];

		jsonw_obj_open(w);
		jsonw_kv_u64(w, "boot", b->id);
		jsonw_kv_u64(w, "round", b->round);
		jsonw_kv_str(w, "kernel", design_kernel_name(b->kernel));
		jsonw_kv_u64(w, "slot", b->slot);
		jsonw_kv_bool(w, "traced_first", b->traced_first);
		jsonw_kv_str(w, "mode_first", design_mode_name(b->mode_first));
		/* full 64 bits: a JSON number would lose them */
		snprintf(cell, sizeof(cell), "%016llx",
			 (unsigned long long)b->seed);
		jsonw_kv_str(w, "seed_hex", cell);
		jsonw_kv_bool(w, "valid", in_use(valid, i));
		for (ph = 0; ph < nphases(p); ph++) {
			jsonw_key(w, design_phase_name(ph));
			jsonw_arr_open(w);
			for (n = 0; n < b->ncells; n++) {
				const struct design_cell *c = &b->cell[n];

				if (c->phase != ph)
					continue;
				snprintf(cell, sizeof(cell), "%s %s %u",
					 c->size < p->nsizes ?
					 size_str(p->sizes[c->size], sz,
						  sizeof(sz)) : "?",
					 design_mode_name(c->mode), c->block);
				jsonw_str(w, cell);
			}
			jsonw_arr_close(w);
		}
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
	jsonw_key(w, "balance");
	jsonw_obj_open(w);
	jsonw_key(w, "problems");
	jsonw_arr_open(w);
	n = design_check(d, valid, say_json, w);
	jsonw_arr_close(w);
	jsonw_kv_u64(w, "imbalances", n);
	jsonw_obj_close(w);
	jsonw_obj_close(w);
}
