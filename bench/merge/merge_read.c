// SPDX-License-Identifier: GPL-2.0
/* convbench --merge: reading make bench's boots, see merge.h */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csvr.h"
#include "csvw.h"
#include "merge.h"
#include "samples.h"
#include "units.h"

/* clock.env: KEY=VALUE lines (values without quotes) */
static void read_clock(struct boot *b, const char *path)
{
	char line[512], *eq, *v;
	FILE *f = fopen(path, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = 0;
		v = eq + 1;
		if (!strcmp(line, "valid") && !strcmp(v, "0"))
			b->valid = false;
		else if (!strcmp(line, "checked") && !strcmp(v, "0"))
			b->unchecked = true;
		else if (!strcmp(line, "why"))
			snprintf(b->why, sizeof(b->why), "%s", v);
		else if (!strcmp(line, "tsc_khz"))
			b->tsc_khz = atof(v);
		else if (!strcmp(line, "tsc_khz_measured"))
			b->tsc_khz_measured = atof(v);
		else if (!strcmp(line, "deviation_pct"))
			b->deviation_pct = atof(v);
		else if (!strcmp(line, "clocksource"))
			snprintf(b->clocksource, sizeof(b->clocksource), "%s", v);
		else if (!strcmp(line, "tsc_messages"))
			snprintf(b->tsc_messages, sizeof(b->tsc_messages), "%s",
				 v);
	}
	fclose(f);
}

static struct jv *load_opt(const char *dir, const char *sub)
{
	char path[4096], err[256];

	snprintf(path, sizeof(path), "%s/%s/summary.json", dir, sub);
	return access(path, R_OK) ? NULL : jsonr_load(path, err, sizeof(err));
}

/*
 * What samples.csv does not say about a cell, from the round's
 * summary.json: its wall time, conversions run, warm-up, THP setting
 */
static void cells_from_summary(struct cell_result *res, size_t n,
			       const struct jv *sum)
{
	const struct jv *cells = jv_get(sum, "cells");
	char sz[32];
	size_t i, j;

	for (i = 0; i < n; i++) {
		size_str(res[i].p.size, sz, sizeof(sz));
		for (j = 0; j < jv_len(cells); j++) {
			const struct jv *c = jv_at(cells, j);

			if (strcmp(jv_str(jv_get(c, "mode"), ""),
				   conv_mode_name(res[i].p.mode)) ||
			    strcmp(jv_str(jv_get(c, "size"), ""), sz))
				continue;
			/* both directions of a cell carry the cell's values */
			res[i].wall_s = jv_num(jv_get(c, "wall_s"), 0);
			res[i].conversions = jv_num(jv_get(c, "conversions_run"),
						    res[i].conversions);
			res[i].p.warmup = jv_num(jv_get(c, "warmup"), 0);
			snprintf(res[i].thp, sizeof(res[i].thp), "%s",
				 jv_str(jv_get(c, "shmem_thp"), ""));
			break;
		}
	}
}

static void read_boot(struct boot *b, const char *dir)
{
	char path[4096], err[200];

	b->valid = true;
	snprintf(path, sizeof(path), "%s/clock.env", dir);
	read_clock(b, path);
	snprintf(path, sizeof(path), "%s/plain/samples.csv", dir);
	if (samples_read_csv(path, &b->plain, &b->nplain, err, sizeof(err)) ||
	    !b->nplain) {
		if (b->valid || !b->why[0])
			snprintf(b->why, sizeof(b->why), "no untraced round: %s",
				 b->nplain ? "empty" : err);
		b->valid = false;
	}
	b->plain_sum = load_opt(dir, "plain");
	cells_from_summary(b->plain, b->nplain, b->plain_sum);
	b->traced_sum = load_opt(dir, "traced");
	b->counts_sum = load_opt(dir, "counts");
	snprintf(path, sizeof(path), "%s/traced/samples.csv", dir);
	if (!access(path, R_OK) &&
	    samples_read_csv(path, &b->traced, &b->ntraced, err, sizeof(err)))
		fprintf(stderr, "convbench: --merge: %s\n", err);
}

static int cmp_boot(const void *a, const void *b)
{
	const struct boot *x = a, *y = b;

	return (x->k > y->k) - (x->k < y->k);
}

int merge_read_boots(const char *dir, struct boot **boots, size_t *n,
		     char *err, size_t errlen)
{
	struct dirent *e;
	struct boot *b;
	char path[3072];
	DIR *d = opendir(dir);
	size_t i;

	*boots = NULL;
	*n = 0;
	if (!d) {
		snprintf(err, errlen, "--merge=%s: %s", dir, strerror(errno));
		return -errno;
	}
	b = calloc(MERGE_MAX_BOOTS, sizeof(*b));
	if (!b) {
		closedir(d);
		return -ENOMEM;
	}
	while ((e = readdir(d))) {
		unsigned int k;
		char tail;

		if (sscanf(e->d_name, "boot-%u%c", &k, &tail) != 1)
			continue;
		if (*n == MERGE_MAX_BOOTS) {
			snprintf(err, errlen, "--merge=%s: more than %d boots",
				 dir, MERGE_MAX_BOOTS);
			closedir(d);
			merge_free_boots(b, *n);
			return -E2BIG;
		}
		b[(*n)++].k = k;
	}
	closedir(d);
	qsort(b, *n, sizeof(*b), cmp_boot);
	for (i = 0; i < *n; i++) {
		snprintf(path, sizeof(path), "%s/boot-%u", dir, b[i].k);
		read_boot(&b[i], path);
	}
	if (!*n) {
		snprintf(err, errlen, "--merge=%s: no boot-K folders", dir);
		free(b);
		return -ENOENT;
	}
	*boots = b;
	return 0;
}

void merge_free_boots(struct boot *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		jsonr_free(b[i].plain_sum);
		jsonr_free(b[i].traced_sum);
		jsonr_free(b[i].counts_sum);
		samples_free(b[i].plain, b[i].nplain);
		samples_free(b[i].traced, b[i].ntraced);
	}
	free(b);
}

/* ------------------------------------------------------------------ */
/* summing CSV tables                                                  */

static char *dup_or_empty(const char *s)
{
	return strdup(s ? s : "");
}

static int find_row(const struct csv_sum *t, char **f, const int *kc)
{
	size_t r;
	int i;

	for (r = 0; r < t->nrows; r++) {
		for (i = 0; i < t->nkeys; i++)
			if (strcmp(t->keys[r][i], f[kc[i]]))
				break;
		if (i == t->nkeys)
			return (int)r;
	}
	return -1;
}

static int add_row(struct csv_sum *t, char **f, const int *kc)
{
	int i;

	if (t->nrows == t->cap) {
		size_t c = t->cap ? 2 * t->cap : 64;
		char ***k = realloc(t->keys, c * sizeof(*k));
		double **s;

		if (!k)
			return -ENOMEM;
		t->keys = k;
		s = realloc(t->sums, c * sizeof(*s));
		if (!s)
			return -ENOMEM;
		t->sums = s;
		t->cap = c;
	}
	t->keys[t->nrows] = calloc(t->nkeys, sizeof(char *));
	t->sums[t->nrows] = calloc(t->nsums ? t->nsums : 1, sizeof(double));
	if (!t->keys[t->nrows] || !t->sums[t->nrows])
		return -ENOMEM;
	for (i = 0; i < t->nkeys; i++)
		t->keys[t->nrows][i] = dup_or_empty(f[kc[i]]);
	return (int)t->nrows++;
}

int csv_sum_add(struct csv_sum *t, const char *path,
		const char *const *keys, int nkeys,
		const char *const *sums, int nsums, char *err, size_t errlen)
{
	char *line = NULL, *f[64];
	int kc[32], sc[32], nf, i, r = 0, row;
	size_t len = 0, lineno = 1;
	FILE *in = fopen(path, "r");

	if (!in) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	if (!t->head) {
		t->nkeys = nkeys;
		t->nsums = nsums;
		t->head = calloc(nkeys + nsums, sizeof(char *));
		for (i = 0; t->head && i < nkeys + nsums; i++)
			t->head[i] = strdup(i < nkeys ? keys[i] : sums[i - nkeys]);
	}
	if (!t->head || nkeys > 32 || nsums > 32 ||
	    getline(&line, &len, in) < 0) {
		snprintf(err, errlen, "%s: empty or unreadable", path);
		r = -EINVAL;
		goto out;
	}
	nf = csvr_split(line, f, 64);
	for (i = 0; i < nkeys + nsums; i++) {
		int c = csvr_col(f, nf, i < nkeys ? keys[i] : sums[i - nkeys]);

		if (c < 0) {
			snprintf(err, errlen, "%s: no column %s", path,
				 i < nkeys ? keys[i] : sums[i - nkeys]);
			r = -EINVAL;
			goto out;
		}
		if (i < nkeys)
			kc[i] = c;
		else
			sc[i - nkeys] = c;
	}
	while (!r && getline(&line, &len, in) >= 0) {
		lineno++;
		if (csvr_split(line, f, 64) < nf) {
			snprintf(err, errlen, "%s:%zu: short row", path, lineno);
			r = -EINVAL;
			break;
		}
		row = find_row(t, f, kc);
		if (row < 0)
			row = add_row(t, f, kc);
		if (row < 0) {
			r = row;
			snprintf(err, errlen, "out of memory");
			break;
		}
		for (i = 0; i < nsums; i++) {
			double v;

			if (!csvr_num(f[sc[i]], &v))
				t->sums[row][i] += v;
		}
	}
out:
	free(line);
	fclose(in);
	return r;
}

int csv_sum_write(const struct csv_sum *t, FILE *f)
{
	struct csvw c;
	size_t r;
	int i;

	csvw_init(&c, f);
	csvw_row(&c, (const char *const *)t->head, t->nkeys + t->nsums);
	for (r = 0; r < t->nrows; r++) {
		for (i = 0; i < t->nkeys; i++)
			csvw_str(&c, t->keys[r][i][0] ? t->keys[r][i] : NULL);
		for (i = 0; i < t->nsums; i++)
			csvw_u64(&c, (uint64_t)t->sums[r][i]);
		csvw_end_row(&c);
	}
	return csvw_error(&c) || ferror(f) ? -EIO : 0;
}

void csv_sum_free(struct csv_sum *t)
{
	size_t r;
	int i;

	for (r = 0; r < t->nrows; r++) {
		for (i = 0; i < t->nkeys; i++)
			free(t->keys[r][i]);
		free(t->keys[r]);
		free(t->sums[r]);
	}
	for (i = 0; t->head && i < t->nkeys + t->nsums; i++)
		free(t->head[i]);
	free(t->head);
	free(t->keys);
	free(t->sums);
	memset(t, 0, sizeof(*t));
}
