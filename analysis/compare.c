// SPDX-License-Identifier: GPL-2.0
/* convbench compare A B: see compare.h */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "identity.h"
#include "jsonw.h"
#include "stats.h"
#include "text.h"
#include "threeway.h"
#include "units.h"

#define CMP_TAIL_MIN	50	/* samples beyond a percentile to compare it */
#define CMP_MAX_ROUNDS	4096

struct side {
	struct run r, g;	/* the run and its gmem/ (g.sum NULL: none) */
	struct run_ident id;
	bool has_id;
};

/* one field where the runs differ */
struct diff {
	const char *label;
	const char *a, *b;
	bool env;
};

struct cmp_row {
	enum conv_mode mode;
	uint64_t size;
	enum conv_dir dir;
	unsigned int pct;		/* index into row_name[] */
	double a, b;			/* geometric means of the boots, ns */
	double a_pooled, b_pooled;	/* the runs' pooled percentiles */
	size_t na, nb;			/* boots */
	double ratio, lo, hi;
	char mark;			/* + - ~ ? */
};

struct cell_key {
	enum conv_mode mode;
	uint64_t size;
	enum conv_dir dir;
};

struct cmp {
	double conf;
	struct side a, b;
	struct diff diffs[RUN_NID + 8];
	size_t ndiffs;
	bool env_differs, id_known;
	struct cmp_row *rows;
	size_t nrows;
	struct cell_key only[2][3 * 2 * 128];
	size_t nonly[2];
	uint64_t sizes[128];
	size_t nsizes;
};

static int side_load(struct side *s, const char *dir, char *err,
		     size_t errlen)
{
	char e[512];

	if (run_load(&s->r, dir, e, sizeof(e))) {
		snprintf(err, errlen, "%s: not a convbench run: %s", dir, e);
		return 1;
	}
	if (threeway_load(&s->g, dir))
		memset(&s->g, 0, sizeof(s->g));
	s->has_id = !run_ident_load(dir, &s->r, &s->id);
	return 0;
}

static void side_free(struct side *s)
{
	if (s->g.sum)
		threeway_free(&s->g);
	run_free(&s->r);
}

static void add_diff(struct cmp *c, const char *label, const char *a,
		     const char *b, bool env)
{
	if (!strcmp(a, b) || c->ndiffs == sizeof(c->diffs) / sizeof(c->diffs[0]))
		return;
	c->diffs[c->ndiffs++] = (struct diff){ label, a, b, env };
	c->env_differs |= env;
}

/*
 * What differs: every identity field from meta.json when both runs have
 * one; else what the provenance says (the CPU there is the emulated
 * one, read inside the guest: it does not tell hosts apart)
 */
static void compare_identity(struct cmp *c)
{
	static const struct {
		const char *key, *label;
		bool env;
	} prov[] = {
		{ "accel", "accelerator", true },
		{ "qemu_version", "QEMU", true },
		{ "cpu_model", "CPU (as the guest sees it)", true },
		{ "kernel_release", "kernel", false },
		{ "series_sha", "kernel series", false },
		{ "convbench_version", "convbench", false },
	};
	unsigned int i;

	c->id_known = c->a.has_id && c->b.has_id;
	if (c->id_known) {
		for (i = 0; i < RUN_NID; i++)
			add_diff(c, run_ident_label(i), c->a.id.v[i],
				 c->b.id.v[i], run_ident_is_env(i));
		return;
	}
	for (i = 0; i < sizeof(prov) / sizeof(prov[0]); i++)
		add_diff(c, prov[i].label, run_prov(&c->a.r, prov[i].key, "?"),
			 run_prov(&c->b.r, prov[i].key, "?"), prov[i].env);
}

/*
 * The rows of a cell: p50, p90, p99 (run_pct_name), and ROW_P50N: each
 * boot's p50 over the null exit its VMs measured (summary.json's
 * per-round null_exit_ns, issue 22's fixed costs), the emulator's speed
 * in that boot divided out
 */
#define ROW_P50N	3
static const char *const row_name[4] = { "p50", "p90", "p99", "p50n" };
static const char *const row_json[4] = { "p50", "p90", "p99",
					 "p50_per_null_exit" };

/* the values of row p of every boot of a cell; their number */
static size_t boot_values(const struct jv *cell, unsigned int p, double *v)
{
	const struct jv *pr = jv_get(jv_get(cell, "total_ns"), "per_round");
	size_t i, n = 0;

	for (i = 0; i < jv_len(pr) && n < CMP_MAX_ROUNDS; i++) {
		const struct jv *x = jv_at(pr, i);
		double y = jv_num(jv_get(x, run_pct_name[p % 3]), NAN);

		if (p == ROW_P50N)
			y /= jv_num(jv_get(x, "null_exit_ns"), NAN);
		if (y > 0 && !isinf(y))
			v[n++] = y;
	}
	return n;
}

static double geomean(const double *v, size_t n)
{
	double s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += log(v[i]);
	return n ? exp(s / n) : NAN;
}

static bool tail_shown(const struct jv *cell, unsigned int p)
{
	char key[32];

	snprintf(key, sizeof(key), "%s_beyond", run_pct_name[p]);
	return jv_num(jv_get(jv_get(cell, "total_ns"), key), 0) >=
	       CMP_TAIL_MIN;
}

static int add_row(struct cmp *c, const struct jv *ca, const struct jv *cb,
		   const struct cell_key *k, unsigned int p, double *va,
		   double *vb)
{
	struct cmp_row *row, *n;

	n = realloc(c->rows, (c->nrows + 1) * sizeof(*c->rows));
	if (!n)
		return -ENOMEM;
	c->rows = n;
	row = &c->rows[c->nrows++];
	memset(row, 0, sizeof(*row));
	row->mode = k->mode;
	row->size = k->size;
	row->dir = k->dir;
	row->pct = p;
	row->a_pooled = p == ROW_P50N ? NAN :
			jv_num(jv_get(jv_get(ca, "total_ns"), run_pct_name[p]),
			       NAN);
	row->b_pooled = p == ROW_P50N ? NAN :
			jv_num(jv_get(jv_get(cb, "total_ns"), run_pct_name[p]),
			       NAN);
	row->na = boot_values(ca, p, va);
	row->nb = boot_values(cb, p, vb);
	row->a = geomean(va, row->na);
	row->b = geomean(vb, row->nb);
	row->ratio = row->lo = row->hi = NAN;
	row->mark = '?';
	if (!row->na || !row->nb ||
	    stats_ratio_welch(va, row->na, vb, row->nb, c->conf, &row->ratio,
			      &row->lo, &row->hi))
		return 0;
	if (isnan(row->lo))
		return 0;
	row->mark = row->lo > 1 ? '+' : row->hi < 1 ? '-' : '~';
	return 0;
}

static void add_size(struct cmp *c, const struct run *r)
{
	size_t i, j;

	for (i = 0; i < r->nsizes; i++) {
		for (j = 0; j < c->nsizes && c->sizes[j] != r->sizes[i]; j++)
			;
		if (j == c->nsizes && c->nsizes < 128)
			c->sizes[c->nsizes++] = r->sizes[i];
	}
}

/* a cell of a run (gmem's from its gmem/, if any) */
static const struct jv *side_cell(const struct side *s, enum conv_mode m,
				  uint64_t size, enum conv_dir d)
{
	return run_cell_of(&s->r, s->g.sum ? &s->g : NULL, m, size, d);
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return (a > b) - (a < b);
}

static int compare_cells(struct cmp *c)
{
	double *va = malloc(CMP_MAX_ROUNDS * sizeof(*va));
	double *vb = malloc(CMP_MAX_ROUNDS * sizeof(*vb));
	unsigned int m, d, p;
	size_t s;
	int e = 0;

	if (!va || !vb) {
		free(va);
		free(vb);
		return -ENOMEM;
	}
	add_size(c, &c->a.r);
	add_size(c, &c->b.r);
	if (c->a.g.sum)
		add_size(c, &c->a.g);
	if (c->b.g.sum)
		add_size(c, &c->b.g);
	qsort(c->sizes, c->nsizes, sizeof(c->sizes[0]), cmp_u64);
	for (m = 0; m < MODE_NR && !e; m++)
		for (s = 0; s < c->nsizes && !e; s++)
			for (d = 0; d < DIR_NR && !e; d++) {
				struct cell_key k = { m, c->sizes[s], d };
				const struct jv *ca, *cb;

				ca = side_cell(&c->a, m, k.size, d);
				cb = side_cell(&c->b, m, k.size, d);
				if (!ca != !cb) {
					unsigned int w = !ca;

					if (c->nonly[w] < sizeof(c->only[0]) /
							  sizeof(c->only[0][0]))
						c->only[w][c->nonly[w]++] = k;
					continue;
				}
				if (!ca)
					continue;
				for (p = 0; p < 3 && !e; p++) {
					if (!p || (tail_shown(ca, p) &&
						   tail_shown(cb, p)))
						e = add_row(c, ca, cb, &k, p,
							    va, vb);
					/* p50 in null exits, where both have them */
					if (!p && !e &&
					    boot_values(ca, ROW_P50N, va) &&
					    boot_values(cb, ROW_P50N, vb))
						e = add_row(c, ca, cb, &k,
							    ROW_P50N, va, vb);
				}
			}
	free(va);
	free(vb);
	return e;
}

static const char *cell_name(enum conv_mode m, uint64_t size,
			     enum conv_dir d, char *buf, size_t len)
{
	char sz[32];

	snprintf(buf, len, "%s %s %s", conv_mode_names[m],
		 size_str(size, sz, sizeof(sz)), conv_dir_names[d]);
	return buf;
}

static const char *change_name(char mark)
{
	switch (mark) {
	case '+': return "slower";
	case '-': return "faster";
	case '~': return "none";
	default: return "unknown";
	}
}

static const char *method(const struct cmp *c, char *buf, size_t len)
{
	snprintf(buf, len, "A and B: the geometric mean of the run's boots' "
		 "values (each boot's p50, p90 or p99); B/A their ratio, with "
		 "a %g%% Welch t interval over both runs' boots (log scale, df "
		 "by Welch-Satterthwaite): beyond noise when the interval "
		 "leaves out 1. p90 and p99 where both runs have at least 50 "
		 "samples beyond them.", 100 * c->conf);
	return buf;
}

static void print_text(FILE *f, const struct cmp *c)
{
	unsigned int nmark[4] = { 0 };
	char name[96], buf[1024], ua[32], ub[32], ci[40];
	size_t i, w;

	text_line(f, "convbench compare: B against A");
	text_wrap(f, "A  ", "   ", c->a.r.dir);
	text_wrap(f, "B  ", "   ", c->b.r.dir);
	if (!c->id_known)
		text_wrap(f, "", "  ", "identity: one run has no meta.json "
			  "(make bench writes it), so the host is unknown; "
			  "compared by what the runs' provenance says");
	if (c->env_differs) {
		text_wrap(f, "", "  ", "NOT THE SAME MACHINE OR EMULATOR: "
			  "under TCG a ratio belongs to the host it ran on, "
			  "so a change below may be the machine's, not the "
			  "kernel's:");
	} else if (c->id_known) {
		snprintf(buf, sizeof(buf), "same machine and emulator: "
			 "host %s x %s, host kernel %s, QEMU %s, %s",
			 c->a.id.v[RUN_ID_HOST_CPU], c->a.id.v[RUN_ID_HOST_CPUS],
			 c->a.id.v[RUN_ID_HOST_KERNEL], c->a.id.v[RUN_ID_QEMU],
			 c->a.id.v[RUN_ID_ACCEL]);
		text_wrap(f, "", "  ", buf);
	}
	for (i = 0; i < c->ndiffs; i++)
		if (c->diffs[i].env) {
			snprintf(buf, sizeof(buf), "%s: A %s, B %s",
				 c->diffs[i].label, c->diffs[i].a,
				 c->diffs[i].b);
			text_wrap(f, "  ", "    ", buf);
		}
	for (i = w = 0; i < c->ndiffs; i++)
		if (!c->diffs[i].env) {
			if (!w++)
				text_line(f, "what differs (the A/B):");
			snprintf(buf, sizeof(buf), "%s: A %s, B %s",
				 c->diffs[i].label, c->diffs[i].a,
				 c->diffs[i].b);
			text_wrap(f, "  ", "    ", buf);
		}
	if (!w)
		text_line(f, "what differs (the A/B): nothing named in the "
			  "runs' identities");
	fputc('\n', f);
	text_wrap(f, "", "", method(c, buf, sizeof(buf)));
	text_wrap(f, "", "", "p50n: each boot's p50 over the null exit its "
		  "VMs measured (the conversion hypercall answered without "
		  "work), in null exits: the emulator's speed in that boot "
		  "divided out, which under TCG varies from boot to boot by "
		  "more than most changes. It also divides out a change to "
		  "the exit path itself: read it beside p50.");
	text_wrap(f, "", "", "'+' B slower beyond noise, '-' B faster, "
		  "'~' within noise, '?' no interval (a run with one boot)");
	fputc('\n', f);
	snprintf(ci, sizeof(ci), "(%g%% CI)", 100 * c->conf);
	text_line(f, "%-26s %-4s %8s %8s %5s %s", "cell", "", "A us",
		  "B us", "B/A", ci);
	for (i = 0; i < c->nrows; i++) {
		const struct cmp_row *r = &c->rows[i];

		cell_name(r->mode, r->size, r->dir, name, sizeof(name));
		if (isnan(r->lo))
			snprintf(ci, sizeof(ci), "(n/a)");
		else
			snprintf(ci, sizeof(ci), "(%.3f..%.3f)", r->lo, r->hi);
		if (r->pct == ROW_P50N) {	/* null exits, not us */
			snprintf(ua, sizeof(ua), "%.2fx", r->a);
			snprintf(ub, sizeof(ub), "%.2fx", r->b);
		} else {
			snprintf(ua, sizeof(ua), "%.1f", r->a / 1000);
			snprintf(ub, sizeof(ub), "%.1f", r->b / 1000);
		}
		text_line(f, "%-26s %-4s %8s %8s %5.3f %-14s %c",
			  r->pct ? "" : name, row_name[r->pct], ua, ub,
			  r->ratio, ci, r->mark);
		nmark[r->mark == '+' ? 0 : r->mark == '-' ? 1 :
		      r->mark == '~' ? 2 : 3]++;
	}
	fputc('\n', f);
	text_line(f, "%zu rows: %u B slower, %u B faster, %u within noise, "
		  "%u without an interval", c->nrows, nmark[0], nmark[1],
		  nmark[2], nmark[3]);
	for (w = 0; w < 2; w++) {
		if (!c->nonly[w])
			continue;
		text_line(f, "only in %c (not compared):", w ? 'B' : 'A');
		for (i = 0; i < c->nonly[w]; i++)
			text_line(f, "  %s",
				  cell_name(c->only[w][i].mode,
					    c->only[w][i].size,
					    c->only[w][i].dir, name,
					    sizeof(name)));
	}
}

static void json_cells(struct jsonw *w, const struct cell_key *k, size_t n)
{
	char sz[32];
	size_t i;

	jsonw_arr_open(w);
	for (i = 0; i < n; i++) {
		jsonw_obj_open(w);
		jsonw_kv_str(w, "mode", conv_mode_names[k[i].mode]);
		jsonw_kv_str(w, "size", size_str(k[i].size, sz, sizeof(sz)));
		jsonw_kv_str(w, "direction", conv_dir_names[k[i].dir]);
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
}

static int print_json(FILE *f, const struct cmp *c)
{
	struct jsonw w;
	char sz[32], buf[1024];
	size_t i;

	jsonw_init(&w, f);
	jsonw_obj_open(&w);
	jsonw_kv_str(&w, "a", c->a.r.dir);
	jsonw_kv_str(&w, "b", c->b.r.dir);
	jsonw_kv_str(&w, "method", method(c, buf, sizeof(buf)));
	jsonw_kv_double(&w, "confidence", c->conf);
	jsonw_kv_bool(&w, "identity_known", c->id_known);
	/* unknown (null) when a run has no meta.json and agrees elsewhere */
	if (c->id_known || c->env_differs)
		jsonw_kv_bool(&w, "same_machine_and_emulator", !c->env_differs);
	else
		jsonw_kv_str(&w, "same_machine_and_emulator", NULL);
	jsonw_key(&w, "differences");
	jsonw_arr_open(&w);
	for (i = 0; i < c->ndiffs; i++) {
		jsonw_obj_open(&w);
		jsonw_kv_str(&w, "field", c->diffs[i].label);
		jsonw_kv_str(&w, "a", c->diffs[i].a);
		jsonw_kv_str(&w, "b", c->diffs[i].b);
		jsonw_kv_bool(&w, "machine_or_emulator", c->diffs[i].env);
		jsonw_obj_close(&w);
	}
	jsonw_arr_close(&w);
	jsonw_key(&w, "cells");
	jsonw_arr_open(&w);
	for (i = 0; i < c->nrows; i++) {
		const struct cmp_row *r = &c->rows[i];

		jsonw_obj_open(&w);
		jsonw_kv_str(&w, "mode", conv_mode_names[r->mode]);
		jsonw_kv_str(&w, "size", size_str(r->size, sz, sizeof(sz)));
		jsonw_kv_str(&w, "direction", conv_dir_names[r->dir]);
		jsonw_kv_str(&w, "percentile", row_json[r->pct]);
		jsonw_kv_double(&w, "a_ns", r->a);
		jsonw_kv_double(&w, "b_ns", r->b);
		jsonw_kv_double(&w, "a_pooled_ns", r->a_pooled);
		jsonw_kv_double(&w, "b_pooled_ns", r->b_pooled);
		jsonw_kv_u64(&w, "a_boots", r->na);
		jsonw_kv_u64(&w, "b_boots", r->nb);
		jsonw_kv_double(&w, "ratio", r->ratio);
		jsonw_kv_double(&w, "ci_lo", r->lo);
		jsonw_kv_double(&w, "ci_hi", r->hi);
		jsonw_kv_str(&w, "change", change_name(r->mark));
		jsonw_obj_close(&w);
	}
	jsonw_arr_close(&w);
	jsonw_key(&w, "only_in_a");
	json_cells(&w, c->only[0], c->nonly[0]);
	jsonw_key(&w, "only_in_b");
	json_cells(&w, c->only[1], c->nonly[1]);
	jsonw_obj_close(&w);
	return jsonw_finish(&w);
}

int compare_runs(FILE *f, const char *a, const char *b, bool json,
		 double conf, char *err, size_t errlen)
{
	struct cmp *c = calloc(1, sizeof(*c));
	int r = 1;

	if (!c)
		return -ENOMEM;
	c->conf = conf;
	if (side_load(&c->a, a, err, errlen))
		goto out;
	if (side_load(&c->b, b, err, errlen)) {
		side_free(&c->a);
		goto out;
	}
	compare_identity(c);
	r = compare_cells(c);
	if (!r && !c->nrows) {
		snprintf(err, errlen, "%s and %s have no cell in common", a, b);
		r = 1;
	}
	if (!r && json)
		r = print_json(f, c) ? 1 : 0;
	else if (!r)
		print_text(f, c);
	side_free(&c->b);
	side_free(&c->a);
out:
	free(c->rows);
	free(c);
	return r;
}
