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
#include "csvr.h"
#include "csvw.h"
#include "hist.h"
#include "samples.h"
#include "units.h"

enum col {
	C_ROUND, C_MODE, C_SIZE, C_DIR, C_TRIGGER, C_PRESERVE, C_VCPU, C_ITER,
	C_TOTAL, C_FIRST, C_COPY, C_EXIT_RT, C_AFTER, C_EXITS, C_HOST,
	C_RECORD, C_MEM, C_RELEASE, C_NR
};

static const char *const col_name[C_NR] = {
	"round", "mode", "size", "direction", "trigger", "preserve", "vcpu",
	"iter", "total_ns", "first_ns", "copy_ns", "exit_rt_ns",
	"after_exit_ns", "exits", "host_ns", "host_record_ns", "host_mem_ns",
	"host_release_ns",
};

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
	csvw_row(&c, col_name, C_NR);
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
	static const char *const head[] = {
		"mode", "size", "direction", "low_ns", "high_ns", "count",
	};
	struct csvw c;
	struct hist h;
	unsigned int b;
	char sz[32];
	size_t i, j;

	csvw_init(&c, f);
	csvw_row(&c, head, 6);
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

static int parse_row(char **f, const int *col, struct cell_result **res,
		     size_t *n, size_t *cap)
{
	double v[C_NR];
	struct conv_sample s = { 0 };
	struct cell_result *r;
	uint64_t size;
	int mode, dir, i;

	for (i = 0; i < C_NR; i++)
		if (i != C_MODE && i != C_SIZE && i != C_DIR &&
		    i != C_TRIGGER && (csvr_num(f[col[i]], &v[i]) ||
				       v[i] < 0 || v[i] > 1e15))
			return -EINVAL;
	mode = conv_mode_of(f[col[C_MODE]]);
	dir = conv_dir_of(f[col[C_DIR]]);
	size = size_parse(f[col[C_SIZE]]);
	if (mode < 0 || dir < 0 || !size)
		return -EINVAL;
	r = cell_for(res, n, cap, (uint32_t)v[C_ROUND], mode, size);
	if (!r)
		return -ENOMEM;
	r->p.dir_mask |= 1u << dir;
	r->p.trigger = !strcmp(f[col[C_TRIGGER]], "implicit") ?
		       TRIGGER_IMPLICIT : TRIGGER_EXPLICIT;
	r->p.preserve = v[C_PRESERVE] != 0;
	if (v[C_VCPU] + 1 > r->p.vcpus)
		r->p.vcpus = (uint32_t)v[C_VCPU] + 1;
	s.vcpu = (uint32_t)v[C_VCPU];
	s.iter = (uint32_t)v[C_ITER];
	s.dir = dir;
	s.exits = (uint32_t)v[C_EXITS];
	s.total = (uint64_t)v[C_TOTAL];
	s.first = (uint64_t)v[C_FIRST];
	s.copy = (uint64_t)v[C_COPY];
	s.exit_rt = (uint64_t)v[C_EXIT_RT];
	s.fault_in = (uint64_t)v[C_AFTER];
	s.host = (uint64_t)v[C_HOST];
	s.host_record = (uint64_t)v[C_RECORD];
	s.host_mem = (uint64_t)v[C_MEM];
	s.host_release = (uint64_t)v[C_RELEASE];
	return add_sample(r, &s);
}

int samples_read_csv(const char *path, struct cell_result **res, size_t *n,
		     char *err, size_t errlen)
{
	char *line = NULL, *f[C_NR + 8];
	size_t len = 0, cap = 0, lineno = 1;
	int col[C_NR], nf, i, r = 0;
	FILE *in = fopen(path, "r");

	*res = NULL;
	*n = 0;
	if (!in) {
		r = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return r;
	}
	if (getline(&line, &len, in) < 0) {
		snprintf(err, errlen, "%s: empty file", path);
		r = -EINVAL;
		goto out;
	}
	nf = csvr_split(line, f, C_NR + 8);
	for (i = 0; i < C_NR; i++) {
		col[i] = csvr_col(f, nf, col_name[i]);
		if (col[i] < 0) {
			snprintf(err, errlen, "%s: no column %s in the header",
				 path, col_name[i]);
			r = -EINVAL;
			goto out;
		}
	}
	while (!r && getline(&line, &len, in) >= 0) {
		lineno++;
		if (!line[strspn(line, " \r\n")])
			continue;
		if (csvr_split(line, f, C_NR + 8) < nf)
			r = -EINVAL;
		else
			r = parse_row(f, col, res, n, &cap);
		if (r)
			snprintf(err, errlen, "%s:%zu: %s", path, lineno,
				 r == -ENOMEM ? "out of memory" :
				 "not a convbench sample row");
	}
out:
	free(line);
	fclose(in);
	if (r) {
		samples_free(*res, *n);
		*res = NULL;
		*n = 0;
	}
	return r;
}
