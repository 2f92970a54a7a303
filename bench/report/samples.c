// SPDX-License-Identifier: GPL-2.0
/* samples.csv and hist.csv: see samples.h */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cell.h"
#include "csvw.h"
#include "hist.h"
#include "hist_csv.h"
#include "samples.h"
#include "samples_csv.h"
#include "units.h"

static const char *trigger_name(enum conv_trigger t)
{
	return t == TRIGGER_IMPLICIT ? "implicit" : "explicit";
}

int samples_write_csv(FILE *f, const struct cell_result *res, size_t n)
{
	struct csvw c;
	char sz[32];
	size_t i;
	uint64_t j;

	csvw_init(&c, f);
	csvw_row(&c, samples_col_name, SAMPLES_NR);
	for (i = 0; i < n; i++) {
		const struct cell_result *cr = &res[i];

		size_str(cr->p.size, sz, sizeof(sz));
		for (j = 0; j < cr->n; j++) {
			const struct conv_sample *s = &cr->samples[j];

			csvw_u64(&c, cr->p.round);
			csvw_str(&c, conv_mode_name(cr->p.mode));
			csvw_str(&c, sz);
			csvw_str(&c, conv_dir_name(s->dir));
			csvw_str(&c, trigger_name(cr->p.trigger));
			csvw_u64(&c, cr->p.preserve);
			csvw_u64(&c, s->vcpu);
			csvw_u64(&c, s->iter);
			csvw_double(&c, round(tsc_ns(cr, s->total)));
			csvw_double(&c, round(tsc_ns(cr, s->first)));
			csvw_double(&c, round(tsc_ns(cr, s->copy)));
			csvw_double(&c, round(tsc_ns(cr, s->exit_rt)));
			csvw_double(&c, round(tsc_ns(cr, s->fault_in)));
			csvw_u64(&c, s->exits);
			csvw_double(&c, round(tsc_ns(cr, s->host)));
			csvw_double(&c, round(tsc_ns(cr, s->host_record)));
			csvw_double(&c, round(tsc_ns(cr, s->host_mem)));
			csvw_double(&c, round(tsc_ns(cr, s->host_release)));
			csvw_end_row(&c);
		}
	}
	return csvw_error(&c) || ferror(f) ? -EIO : 0;
}

int hist_write_csv_cells(FILE *f, const struct run_stats *rs)
{
	struct csvw c;
	struct hist h;
	unsigned int b;
	char sz[32];
	size_t i, j;

	csvw_init(&c, f);
	csvw_row(&c, hist_csv_col_name, HIST_CSV_NR);
	for (i = 0; i < rs->ncells; i++) {
		const struct cell_stats *cs = &rs->cells[i];

		hist_init(&h, HIST_SUB_BITS_DEFAULT);
		for (j = 0; j < cs->n; j++)
			hist_add(&h, (uint64_t)llround(cs->total[j]));
		for (b = 0; b < h.nr_buckets; b++) {
			if (!h.buckets[b])
				continue;
			csvw_str(&c, conv_mode_name(cs->mode));
			csvw_str(&c, size_str(cs->size, sz, sizeof(sz)));
			csvw_str(&c, conv_dir_name(cs->dir));
			csvw_u64(&c, hist_bucket_low(b, h.sub_bits));
			csvw_u64(&c, hist_bucket_high(b, h.sub_bits));
			csvw_u64(&c, h.buckets[b]);
			csvw_end_row(&c);
		}
	}
	return csvw_error(&c) || ferror(f) ? -EIO : 0;
}

void samples_free(struct cell_result *res, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		cell_result_free(&res[i]);
	free(res);
}

/* the cell of (round, mode, size) in *res, appended when new */
static struct cell_result *cell_for(struct cell_result **res, size_t *n,
				    size_t *cap, uint32_t round,
				    enum conv_mode m, uint64_t size)
{
	struct cell_result *r;
	size_t i;

	for (i = *n; i-- > 0;)
		if ((*res)[i].p.round == round && (*res)[i].p.mode == m &&
		    (*res)[i].p.size == size)
			return &(*res)[i];
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 16;

		r = realloc(*res, c * sizeof(*r));
		if (!r)
			return NULL;
		*res = r;
		*cap = c;
	}
	r = &(*res)[(*n)++];
	memset(r, 0, sizeof(*r));
	r->p.round = round;
	r->p.mode = m;
	r->p.size = size;
	r->p.vcpus = 1;
	r->tsc_khz = 1000000;	/* samples in ns: a cycle is a ns */
	return r;
}

static int add_sample(struct cell_result *r, const struct conv_sample *s)
{
	if (!(r->n & (r->n + 1)) || !r->samples) {
		/* capacity: the next power of two minus one */
		struct conv_sample *p = realloc(r->samples,
					2 * (r->n + 1) * sizeof(*p));

		if (!p)
			return -ENOMEM;
		r->samples = p;
	}
	r->samples[r->n++] = *s;
	r->conversions++;
	return 0;
}

static int parse_row(const struct samples_row *row, struct cell_result **res,
		     size_t *n, size_t *cap)
{
	const double *v = row->v;
	struct conv_sample s = { 0 };
	struct cell_result *r;
	int i;

	for (i = 0; i < SAMPLES_NR; i++)
		if (v[i] < 0 || v[i] > 1e15)
			return -EINVAL;
	r = cell_for(res, n, cap, (uint32_t)v[SAMPLES_ROUND], row->mode,
		     row->size);
	if (!r)
		return -ENOMEM;
	r->p.dir_mask |= 1u << row->dir;
	r->p.trigger = row->implicit ? TRIGGER_IMPLICIT : TRIGGER_EXPLICIT;
	r->p.preserve = v[SAMPLES_PRESERVE] != 0;
	if (v[SAMPLES_VCPU] + 1 > r->p.vcpus)
		r->p.vcpus = (uint32_t)v[SAMPLES_VCPU] + 1;
	s.vcpu = (uint32_t)v[SAMPLES_VCPU];
	s.iter = (uint32_t)v[SAMPLES_ITER];
	s.dir = row->dir;
	s.exits = (uint32_t)v[SAMPLES_EXITS];
	s.total = (uint64_t)v[SAMPLES_TOTAL];
	s.first = (uint64_t)v[SAMPLES_FIRST];
	s.copy = (uint64_t)v[SAMPLES_COPY];
	s.exit_rt = (uint64_t)v[SAMPLES_EXIT_RT];
	s.fault_in = (uint64_t)v[SAMPLES_AFTER];
	s.host = (uint64_t)v[SAMPLES_HOST];
	s.host_record = (uint64_t)v[SAMPLES_RECORD];
	s.host_mem = (uint64_t)v[SAMPLES_MEM];
	s.host_release = (uint64_t)v[SAMPLES_RELEASE];
	return add_sample(r, &s);
}

int samples_read_csv(const char *path, struct cell_result **res, size_t *n,
		     char *err, size_t errlen)
{
	struct samples_row row;
	struct csvr_file c;
	size_t cap = 0;
	int r, i;

	*res = NULL;
	*n = 0;
	r = samples_csv_open(&c, path);
	i = r ? -1 : csvr_missing(&c, SAMPLES_ALL);
	if (r == -ENODATA)
		snprintf(err, errlen, "%s: empty file", path);
	else if (r)
		snprintf(err, errlen, "%s: %s", path, strerror(-r));
	else if (i >= 0)
		snprintf(err, errlen, "%s: no column %s in the header", path,
			 samples_col_name[i]);
	if (r || i >= 0) {
		csvr_close(&c);
		return r ? r : -EINVAL;
	}
	while ((r = samples_csv_next(&c, SAMPLES_ALL, true, &row)) > 0) {
		r = parse_row(&row, res, n, &cap);
		if (r)
			break;
	}
	if (r)
		snprintf(err, errlen, "%s:%zu: %s", path, c.lineno,
			 r == -ENOMEM ? "out of memory" :
			 "not a convbench sample row");
	csvr_close(&c);
	if (r) {
		samples_free(*res, *n);
		*res = NULL;
		*n = 0;
	}
	return r;
}
