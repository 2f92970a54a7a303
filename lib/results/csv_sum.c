// SPDX-License-Identifier: GPL-2.0
/* CSV tables summed: see csv_sum.h */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "csv_sum.h"
#include "csvr.h"
#include "csvw.h"

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

/* t's head (the first table's), nkeys + nsums column names */
static int set_head(struct csv_sum *t, const char *const *names, int nkeys,
		    int nsums)
{
	int i;

	if (t->head)
		return 0;
	t->nkeys = nkeys;
	t->nsums = nsums;
	t->head = calloc(nkeys + nsums, sizeof(char *));
	for (i = 0; t->head && i < nkeys + nsums; i++)
		t->head[i] = strdup(names[i]);
	return t->head ? 0 : -ENOMEM;
}

int csv_sum_add(struct csv_sum *t, const char *path,
		const char *const *keys, int nkeys,
		const char *const *sums, int nsums, char *err, size_t errlen)
{
	const char *names[CSVR_MAX_COLS];
	int kc[32], sc[32], i, r, row;
	struct csvr_file in;

	for (i = 0; i < nkeys + nsums && i < CSVR_MAX_COLS; i++)
		names[i] = i < nkeys ? keys[i] : sums[i - nkeys];
	r = csvr_open(&in, path, names, i);
	if (r && r != -ENODATA) {
		snprintf(err, errlen, "%s: %s", path, strerror(-r));
		return r;
	}
	if (set_head(t, names, nkeys, nsums) || nkeys > 32 || nsums > 32 ||
	    r) {
		snprintf(err, errlen, "%s: empty or unreadable", path);
		r = -EINVAL;
		goto out;
	}
	i = csvr_missing(&in, (1ull << (nkeys + nsums)) - 1);
	if (i >= 0) {
		snprintf(err, errlen, "%s: no column %s", path, names[i]);
		r = -EINVAL;
		goto out;
	}
	for (i = 0; i < nkeys + nsums; i++)
		if (i < nkeys)
			kc[i] = in.col[i];
		else
			sc[i - nkeys] = in.col[i];
	while ((r = csvr_next(&in)) > 0) {
		row = find_row(t, in.f, kc);
		if (row < 0)
			row = add_row(t, in.f, kc);
		if (row < 0) {
			r = row;
			break;
		}
		for (i = 0; i < nsums; i++) {
			double v;

			if (!csvr_num(in.f[sc[i]], &v))
				t->sums[row][i] += v;
		}
	}
	if (r == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	else if (r)
		snprintf(err, errlen, "%s:%zu: short row", path, in.lineno);
out:
	csvr_close(&in);
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
