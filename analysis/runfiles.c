// SPDX-License-Identifier: GPL-2.0
/* A convbench run folder for convreport: see runfiles.h */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csvr.h"
#include "runfiles.h"
#include "samples_csv.h"
#include "trace_csv.h"
#include "stats.h"
#include "summary_json.h"
#include "units.h"

const char *const run_pct_name[3] = { "p50", "p90", "p99" };

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

int run_load(struct run *r, const char *dir, char *err, size_t errlen)
{
	const struct jv *cells;
	char path[4096];
	size_t i, j;

	memset(r, 0, sizeof(*r));
	r->dir = dir;
	snprintf(path, sizeof(path), "%s/summary.json", dir);
	r->sum = jsonr_load(path, err, errlen);
	if (!r->sum)
		return -EINVAL;
	r->prov = jv_get(r->sum, "provenance");
	cells = jv_get(r->sum, "cells");
	for (i = 0; i < jv_len(cells); i++) {
		const struct jv *c = jv_at(cells, i);
		uint64_t sz = (uint64_t)jv_num(jv_get(c, "size_bytes"), 0);
		int m = conv_mode_of(jv_str(jv_get(c, "mode"), NULL));

		if (m >= 0)
			r->has_mode[m] = true;
		for (j = 0; j < r->nsizes && r->sizes[j] != sz; j++)
			;
		if (j == r->nsizes && sz && r->nsizes < 64)
			r->sizes[r->nsizes++] = sz;
	}
	qsort(r->sizes, r->nsizes, sizeof(r->sizes[0]), cmp_u64);
	return 0;
}

void run_free(struct run *r)
{
	jsonr_free(r->sum);
	memset(r, 0, sizeof(*r));
}

const struct jv *run_cell(const struct run *r, enum conv_mode m, uint64_t size,
			  enum conv_dir d)
{
	return summary_find(jv_get(r->sum, "cells"), conv_mode_names[m], size,
			    conv_dir_names[d]);
}

const struct jv *run_ratio(const struct run *r, uint64_t size, enum conv_dir d)
{
	return summary_find(jv_get(r->sum, "ratios_inplace_over_destructive"),
			    NULL, size, conv_dir_names[d]);
}

const struct jv *run_cell_of(const struct run *r, const struct run *g,
			     enum conv_mode m, uint64_t size, enum conv_dir d)
{
	return run_cell(m == MODE_GMEM && g ? g : r, m, size, d);
}

const struct jv *run_gmem_ratio(const struct run *r, const char *which,
				uint64_t size, enum conv_dir d)
{
	return summary_find(jv_get(jv_get(r->sum, "ratios_against_gmem"), which),
			    NULL, size, conv_dir_names[d]);
}

const char *const run_ratio_label[3] = { "in/de", "gm/de", "in/gm" };

const struct jv *run_ratio_k(const struct run *r, unsigned int k,
			     uint64_t size, enum conv_dir d)
{
	static const char *const gmem_key[3] = {
		NULL, "gmem_over_destructive", "inplace_over_gmem",
	};

	if (k >= 3)
		return NULL;
	return k ? run_gmem_ratio(r, gmem_key[k], size, d) :
		   run_ratio(r, size, d);
}

const char *run_prov(const struct run *r, const char *key, const char *dflt)
{
	return jv_str(jv_get(r->prov, key), dflt);
}

/* ------------------------------------------------------------------ */
/* trace.csv                                                          */

struct run_trace_hist *run_trace_find(struct run_trace *t, const char *probe,
				      enum conv_mode m, uint64_t size)
{
	size_t i;

	for (i = 0; i < t->nrows; i++)
		if (t->rows[i].mode == m && t->rows[i].size == size &&
		    !strcmp(t->rows[i].probe, probe))
			return &t->rows[i];
	return NULL;
}

static struct run_trace_hist *trace_row(struct run_trace *t, const char *probe,
					enum conv_mode m, uint64_t size)
{
	struct run_trace_hist *h = run_trace_find(t, probe, m, size);

	if (h)
		return h;
	if (t->nrows == t->cap) {
		size_t c = t->cap ? 2 * t->cap : 16;

		h = realloc(t->rows, c * sizeof(*h));
		if (!h)
			return NULL;
		t->rows = h;
		t->cap = c;
	}
	h = &t->rows[t->nrows++];
	memset(h, 0, sizeof(*h));
	snprintf(h->probe, sizeof(h->probe), "%s", probe);
	h->mode = m;
	h->size = size;
	hist_init(&h->h, TRACE_HIST_SUB_BITS);
	return h;
}

int run_read_trace(const char *dir, struct run_trace *t, char *err,
		   size_t errlen)
{
	static uint64_t one[HIST_NR_BUCKETS(TRACE_HIST_SUB_BITS)];
	struct trace_csv_row row;
	struct run_trace_hist *h;
	struct csvr_file in;
	char path[4096];
	unsigned int b;
	int ret;

	memset(t, 0, sizeof(*t));
	snprintf(path, sizeof(path), "%s/trace.csv", dir);
	ret = trace_csv_open(&in, path);
	if (ret == -ENODATA)
		snprintf(err, errlen, "%s: empty", path);
	else if (ret == -EINVAL)
		snprintf(err, errlen, "%s: not convbench's trace.csv header",
			 path);
	else if (ret)
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
	if (ret) {
		csvr_close(&in);
		return ret == -ENODATA ? -EINVAL : ret;
	}
	while ((ret = trace_csv_next(&in, &row))) {
		/* the conversions only: not setup, warm-up or teardown */
		if (ret < 0 || row.mode < 0 || row.dir < 0)
			continue;
		h = trace_row(t, row.probe, row.mode, row.size);
		if (!h) {
			ret = -ENOMEM;
			snprintf(err, errlen, "out of memory");
			break;
		}
		b = hist_bucket_idx_clamp((uint64_t)row.low, TRACE_HIST_SUB_BITS,
					  h->h.nr_buckets);
		one[b] = (uint64_t)row.count;
		hist_add_buckets(&h->h, one, b + 1);
		one[b] = 0;
	}
	csvr_close(&in);
	return ret;
}

void run_free_trace(struct run_trace *t)
{
	free(t->rows);
	memset(t, 0, sizeof(*t));
}

/* ------------------------------------------------------------------ */
/* samples.csv for CDFs                                               */

/* the cell of (m, size, d) in c[0..*nc), appended when new; NULL: no memory */
static struct run_cdf *cdf_of(struct run_cdf **c, size_t *nc,
			      enum conv_mode m, uint64_t size, enum conv_dir d)
{
	struct run_cdf *x;
	size_t i;

	for (i = 0; i < *nc; i++)
		if ((*c)[i].mode == m && (*c)[i].size == size &&
		    (*c)[i].dir == d)
			return &(*c)[i];
	x = realloc(*c, (*nc + 1) * sizeof(**c));
	if (!x)
		return NULL;
	*c = x;
	x = &(*c)[(*nc)++];
	memset(x, 0, sizeof(*x));
	x->mode = m;
	x->size = size;
	x->dir = d;
	return x;
}

static int cdf_add(struct run_cdf *c, double v)
{
	if (c->n == c->cap) {
		size_t k = c->cap ? 2 * c->cap : 256;
		double *x = realloc(c->v, k * sizeof(double));

		if (!x)
			return -ENOMEM;
		c->v = x;
		c->cap = k;
	}
	c->v[c->n++] = v;
	return 0;
}

int run_read_cdfs(const char *dir, struct run_cdf **out, size_t *nout,
		  char *err, size_t errlen)
{
	const uint64_t need = SAMPLES_COL(SAMPLES_MODE) |
		SAMPLES_COL(SAMPLES_SIZE) | SAMPLES_COL(SAMPLES_DIR) |
		SAMPLES_COL(SAMPLES_TOTAL);
	struct samples_row row;
	struct run_cdf *c = NULL, *x;
	struct csvr_file in;
	size_t nc = 0, i;
	char path[4096];
	int ret;

	*out = NULL;
	*nout = 0;
	snprintf(path, sizeof(path), "%s/samples.csv", dir);
	ret = samples_csv_open(&in, path);
	if (ret == -ENODATA) {
		ret = 0;	/* no header: no samples */
		goto out;
	}
	if (ret) {
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	if (csvr_missing(&in, need) >= 0) {
		snprintf(err, errlen, "%s: not convbench's header", path);
		ret = -EINVAL;
		goto out;
	}
	while ((ret = samples_csv_next(&in, need, false, &row))) {
		if (ret < 0)
			continue;
		x = cdf_of(&c, &nc, row.mode, row.size, row.dir);
		if (!x || cdf_add(x, row.v[SAMPLES_TOTAL])) {
			ret = -ENOMEM;
			break;
		}
	}
	for (i = 0; i < nc; i++)
		stats_sort(c[i].v, c[i].n);
	if (ret)
		snprintf(err, errlen, "out of memory");
out:
	csvr_close(&in);
	*out = c;
	*nout = nc;
	return ret;
}

void run_free_cdfs(struct run_cdf *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(c[i].v);
	free(c);
}

const char *run_ratio_str(const struct jv *x, char *buf, size_t len)
{
	double v = jv_num(jv_get(x, "ratio"), NAN);
	double lo = jv_num(jv_get(x, "ci95_lo"), NAN);

	if (isnan(v))
		snprintf(buf, len, "-");
	else if (isnan(lo))
		snprintf(buf, len, "%.3f", v);
	else
		snprintf(buf, len, "%.3f (%.3f..%.3f)", v, lo,
			 jv_num(jv_get(x, "ci95_hi"), NAN));
	return buf;
}
