// SPDX-License-Identifier: GPL-2.0
/*
 * lib/stats/design.c, the design of a make bench run: the default design
 * (10 rounds, two kernels, traced, 3 sizes, ABBA) is balanced, and so
 * is every design of 1..24 rounds, one or two kernels, 2 or 4 blocks,
 * several seeds; every v5 boot runs each size ABBA or BAAB (checked
 * here independently of design_check()); the same seed replays, another
 * differs; and design_check() names the imbalances of broken designs:
 * every boot starting with the same mode, every block starting with the
 * same mode, kernel order tied to mode order, traced order tied to
 * kernel order, boots left out. The JSON reads back.
 *
 * Output: TAP-like lines, then "N passed, N failed". Exit 0 pass, 1 fail.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "design.h"
#include "design_break.h"
#include "jsonr.h"
#include "jsonw.h"
#include "tap.h"

struct lines {
	unsigned int n;
	char text[4096];
};

static void collect(void *arg, const char *line)
{
	struct lines *l = arg;
	size_t at = strlen(l->text);

	l->n++;
	snprintf(l->text + at, sizeof(l->text) - at, "%s\n", line);
}

static unsigned int check(const struct design *d, const bool *valid,
			  struct lines *l)
{
	memset(l, 0, sizeof(*l));
	return design_check(d, valid, collect, l);
}

static void show(const struct lines *l)
{
	char copy[sizeof(l->text)], *line, *save;
	unsigned int shown = 0;

	memcpy(copy, l->text, sizeof(copy));
	for (line = strtok_r(copy, "\n", &save); line && shown < 4;
	     line = strtok_r(NULL, "\n", &save), shown++)
		tap_diag("  %s", line);
}

static struct design_params defaults(void)
{
	return (struct design_params){
		.rounds = 10, .kernel = { true, true }, .traced = true,
		.nsizes = 3, .sizes = { 4096, 65536, 2097152 }, .blocks = 2,
		.seed = 42,
	};
}

/* each v5 boot, phase and size: ABBA or BAAB, independently checked */
static bool all_abba(const struct design *d)
{
	unsigned int i, c, ph, s;

	for (i = 0; i < d->nboots; i++) {
		const struct design_boot *b = &d->boot[i];

		if (b->kernel != DESIGN_K_V5)
			continue;
		for (ph = 0; ph < DESIGN_NPHASES; ph++)
			for (s = 0; s < d->p.nsizes; s++) {
				int seq[4], n = 0;

				for (c = 0; c < b->ncells; c++)
					if (b->cell[c].phase == ph &&
					    b->cell[c].size == s && n < 4)
						seq[n++] = b->cell[c].mode;
				if (n != 4 || seq[0] == seq[1] ||
				    seq[0] != seq[3] || seq[1] != seq[2])
					return false;
			}
	}
	return true;
}

/* swap the two boots of round r in the running order */
static void swap_round(struct design *d, unsigned int r)
{
	unsigned int i;

	for (i = 0; i + 1 < d->nboots; i++) {
		struct design_boot t;

		if (d->boot[i].round != r)
			continue;
		t = d->boot[i];
		d->boot[i] = d->boot[i + 1];
		d->boot[i + 1] = t;
		d->boot[i].id = i;
		d->boot[i].slot = 0;
		d->boot[i + 1].id = i + 1;
		d->boot[i + 1].slot = 1;
		return;
	}
}

/* exchange destructive and inplace in all of b's cells */
static void flip_modes(struct design_boot *b)
{
	unsigned int c;

	for (c = 0; c < b->ncells; c++)
		if (b->cell[c].mode != DESIGN_GMEM)
			b->cell[c].mode = b->cell[c].mode == DESIGN_INPLACE ?
					  DESIGN_DESTRUCTIVE : DESIGN_INPLACE;
	b->mode_first = DESIGN_DESTRUCTIVE;
}

static void test_default(void)
{
	struct design_params p = defaults();
	struct design d, e;
	struct lines l;
	unsigned int n, i, r, tf = 0, gf = 0, mi = 0;
	double tsum = 0, ksum = 0;

	tap_result(!design_build(&p, &d) && d.nboots == 20,
		   "the default run: 10 rounds, 20 boots");
	n = check(&d, NULL, &l);
	tap_result(n == 0, "the default design is balanced (%u imbalances)", n);
	show(&l);
	tap_result(all_abba(&d), "every v5 boot runs each size ABBA or BAAB, "
		   "in both phases");
	for (i = 0; i < d.nboots; i++) {
		const struct design_boot *b = &d.boot[i];

		tsum += design_boot_time(&d, b);
		if (b->kernel != DESIGN_K_V5)
			continue;
		tf += b->traced_first;
		gf += b->slot;
		mi += b->mode_first == DESIGN_INPLACE;
	}
	for (r = 0; r < p.rounds; r++)
		ksum += design_kernel_code(&d, r);
	tap_result(tf == 5 && gf == 5 && mi == 5 && tsum == 0 && ksum == 0,
		   "traced first, gmem first and inplace first in 5 of the 10 "
		   "v5 boots; times and kernel codes centred (%u %u %u %g %g)",
		   tf, gf, mi, tsum, ksum);
	tap_result(design_round_time(&d, 0) == -9 &&
		   design_round_time(&d, 9) == 9 &&
		   design_round_boot(&d, 3, DESIGN_K_GMEM)->round == 3,
		   "round times: -9 .. 9 boots from the middle of the run");
	tap_result(design_family(&d, 2) == 12,
		   "the family: in/de and gm/de, 3 sizes, 2 directions = 12 "
		   "(in/gm derived, not counted)");
	p.kernel[DESIGN_K_GMEM] = false;
	design_build(&p, &e);
	tap_result(design_family(&e, 2) == 6 && e.nboots == 10 &&
		   !check(&e, NULL, &l),
		   "v5 alone: 10 boots, balanced, a family of 6");
	design_free(&e);
	p = defaults();
	design_build(&p, &e);
	tap_result(e.nboots == d.nboots &&
		   !memcmp(e.cells, d.cells, 360 * sizeof(*d.cells)),
		   "the same seed replays the same design");
	design_free(&e);
	p.seed = 43;
	design_build(&p, &e);
	tap_result(memcmp(e.cells, d.cells, 360 * sizeof(*d.cells)) != 0,
		   "another seed, another design");
	design_free(&e);
	design_free(&d);
}

static void test_all_sizes(void)
{
	static const uint64_t seeds[] = { 1, 42, 0xdeadbeef, 7777777 };
	unsigned int r, k, b, s, bad = 0, built = 0;
	struct design d;
	struct lines l;

	for (r = 1; r <= 24; r++)
		for (k = 1; k <= 3; k++)	/* v5, gmem, both */
			for (b = 2; b <= 4; b += 2)
				for (s = 0; s < 4; s++) {
					struct design_params p = defaults();

					p.rounds = r;
					p.kernel[DESIGN_K_V5] = k & 1;
					p.kernel[DESIGN_K_GMEM] = k & 2;
					p.blocks = b;
					p.traced = s % 2;
					p.seed = seeds[s];
					if (design_build(&p, &d))
						continue;
					built++;
					if (check(&d, NULL, &l)) {
						if (!bad)
							tap_diag("%u rounds, "
								 "kernels %u, "
								 "%u blocks:",
								 r, k, b);
						if (!bad)
							show(&l);
						bad++;
					}
					design_free(&d);
				}
	tap_result(built == 24 * 3 * 2 * 4 && !bad,
		   "1..24 rounds, v5 / gmem / both, 2 or 4 blocks, traced or "
		   "not: all %u designs balanced (%u not)", built, bad);
}

static void test_invalid(void)
{
	struct design_params p = defaults();
	struct design d;
	int e1, e2, e3, e4;

	p.blocks = 3;
	e1 = design_build(&p, &d);
	p = defaults();
	p.rounds = 0;
	e2 = design_build(&p, &d);
	p = defaults();
	p.sizes[2] = 4096;
	e3 = design_build(&p, &d);
	p = defaults();
	p.kernel[0] = p.kernel[1] = false;
	e4 = design_build(&p, &d);
	tap_result(e1 == -EINVAL && e2 == -EINVAL && e3 == -EINVAL &&
		   e4 == -EINVAL,
		   "odd blocks, no round, a size twice, no kernel: -EINVAL");
}

/* the traced phase first iff gmem first (today's round parity) */
static void traced_with_kernel(struct design *d)
{
	unsigned int i;

	for (i = 0; i < d->nboots; i++) {
		struct design_boot *b = &d->boot[i];
		bool gmem_first = (b->kernel == DESIGN_K_GMEM) == (b->slot == 0);

		if (b->traced_first != gmem_first) {
			unsigned int half = b->ncells / 2;
			struct design_cell t[256];

			memcpy(t, b->cell, half * sizeof(*t));
			memmove(b->cell, b->cell + half, half * sizeof(*t));
			memcpy(b->cell + half, t, half * sizeof(*t));
			b->traced_first = gmem_first;
		}
	}
}

/* d checked: an imbalance whose description holds want, said as what */
static void broken(struct design *d, const char *want, const char *what)
{
	struct lines l;
	unsigned int n = check(d, NULL, &l);

	tap_result(n > 0 && strstr(l.text, want), "%s: %u imbalances", what,
		   n);
	show(&l);
	design_free(d);
}

static void test_broken(void)
{
	struct design_params p = defaults();
	struct design d;
	unsigned int i, n, r;
	struct lines l;

	/* every v5 boot starts with destructive (ABBA kept inside) */
	p.rounds = 12;
	design_build(&p, &d);
	for (i = 0; i < d.nboots; i++)
		if (d.boot[i].mode_first == DESIGN_INPLACE)
			flip_modes(&d.boot[i]);
	broken(&d, "the mode the untraced phase starts with over 12 v5 "
	       "boots: destructive 12",
	       "every boot starting with the same mode");

	/* every block starts with destructive: AB AB */
	design_build(&p, &d);
	design_break_abab(&d);
	broken(&d, "2 blocks start with destructive, 0 with inplace",
	       "every block starting with the same mode");

	/* the kernel order tied to the mode order (gmem first iff inplace) */
	design_build(&p, &d);
	for (r = 0; r < p.rounds; r++) {
		const struct design_boot *v = design_round_boot(&d, r, DESIGN_K_V5);

		if ((v->mode_first == DESIGN_INPLACE) != (v->slot == 1))
			swap_round(&d, r);
	}
	broken(&d, "the kernel order goes with the mode the untraced phase "
	       "starts with", "kernel order tied to mode order");

	design_build(&p, &d);
	traced_with_kernel(&d);
	broken(&d, "the kernel order goes with the phase order",
	       "traced order tied to kernel order");

	/* a phase out of place: traced_first says one thing, cells another */
	design_build(&p, &d);
	d.boot[0].traced_first = !d.boot[0].traced_first;
	n = check(&d, NULL, &l);
	tap_result(n > 0 && strstr(l.text, "boot 0"),
		   "a boot whose phases do not run in its stated order: "
		   "%u imbalances", n);
	design_free(&d);
}

/* boots left out: one is as balanced as 11 allow, two alike not */
static void test_left_out(void)
{
	struct design_params p = defaults();
	bool valid[64];
	struct design d;
	unsigned int n, r;
	struct lines l;

	p.rounds = 12;
	design_build(&p, &d);
	memset(valid, 1, sizeof(valid));
	valid[design_round_boot(&d, 0, DESIGN_K_V5)->id] = false;
	n = check(&d, valid, &l);
	tap_result(n == 0, "one v5 boot of 12 left out: still as balanced as "
		   "11 allow (%u)", n);
	for (r = 1; r < p.rounds; r++) {
		const struct design_boot *v = design_round_boot(&d, r, DESIGN_K_V5);

		if (v->traced_first == design_round_boot(&d, 0, DESIGN_K_V5)->traced_first) {
			valid[v->id] = false;
			break;
		}
	}
	n = check(&d, valid, &l);
	tap_result(n > 0 && strstr(l.text, "the phase order over 10 v5 boots"),
		   "two v5 boots alike left out: the imbalance is named (%u)", n);
	show(&l);
	design_free(&d);
}

static void test_json(void)
{
	struct design_params p = defaults();
	const struct jv *boots, *b0;
	char *buf = NULL, err[256];
	struct design d;
	struct jsonw w;
	size_t len = 0;
	struct jv *root;
	FILE *f;

	design_build(&p, &d);
	f = open_memstream(&buf, &len);
	jsonw_init(&w, f);
	design_json(&w, &d, NULL);
	tap_result(!jsonw_finish(&w), "design_json() writes a document");
	fclose(f);
	root = jsonr_parse(buf, err, sizeof(err));
	boots = jv_get(root, "boots");
	b0 = jv_at(boots, 0);
	tap_result(root && jv_len(boots) == 20 &&
		   jv_len(jv_get(b0, "untraced")) == (d.boot[0].kernel ==
						      DESIGN_K_V5 ? 12 : 6) &&
		   jv_num(jv_get(jv_get(root, "balance"), "imbalances"), -1) == 0 &&
		   jv_num(jv_get(root, "ratio_family"), 0) == 12 &&
		   jv_num(jv_get(root, "seed"), 0) == 42 &&
		   strlen(jv_str(jv_get(b0, "seed_hex"), "")) == 16,
		   "the JSON reads back: 20 boots, their cells, seeds, balance");
	jsonr_free(root);
	free(buf);
	design_free(&d);
}

int main(void)
{
	test_default();
	test_all_sizes();
	test_invalid();
	test_broken();
	test_left_out();
	test_json();
	return tap_finish(false);
}
