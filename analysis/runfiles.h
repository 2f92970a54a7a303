/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A convbench run folder as convreport reads it. Every statistic comes
 * from summary.json (written by bench/: convbench, or convbench --merge
 * for make bench); the other files give what is not a statistic: the
 * histogram buckets of trace.csv and hist.csv, the samples of
 * samples.csv for CDF plots, hyperfine.json's whole-run timings.
 */
#ifndef CONVBENCH_RUNFILES_H
#define CONVBENCH_RUNFILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"
#include "jsonr.h"
#include "vocab.h"	/* modes and directions (gmem: a make bench run's gmem/) */

extern const char *const run_pct_name[3];	/* p50, p90, p99 */

struct run {
	const char *dir;
	struct jv *sum;			/* summary.json */
	const struct jv *prov;		/* its provenance */
	uint64_t sizes[64];		/* of the cells, ascending */
	size_t nsizes;
	bool has_mode[MODE_NR];
};

/* 0, or -errno with err[] saying why (no summary.json, not JSON) */
int run_load(struct run *r, const char *dir, char *err, size_t errlen);
void run_free(struct run *r);

/* summary.json's cell / ratio of (mode, size, dir), or NULL */
const struct jv *run_cell(const struct run *r, enum conv_mode m, uint64_t size,
			  enum conv_dir d);
const struct jv *run_ratio(const struct run *r, uint64_t size, enum conv_dir d);
/*
 * the same, gmem's cells from the gmem run g; without one (NULL), from r
 * (a gmem run alone: make bench's <run>/gmem, convbench --mode=gmem)
 */
const struct jv *run_cell_of(const struct run *r, const struct run *g,
			     enum conv_mode m, uint64_t size, enum conv_dir d);
/*
 * a ratio of ratios_against_gmem (convbench --merge --gmem-run):
 * which is "gmem_over_destructive" or "inplace_over_gmem"; or NULL
 */
const struct jv *run_gmem_ratio(const struct run *r, const char *which,
				uint64_t size, enum conv_dir d);
/*
 * the three ratios of a run: k 0 in/de (run_ratio), 1 gm/de and 2 in/gm
 * (run_gmem_ratio), labelled run_ratio_label[k]; NULL when r lacks it
 */
extern const char *const run_ratio_label[3];
const struct jv *run_ratio_k(const struct run *r, unsigned int k,
			     uint64_t size, enum conv_dir d);
/*
 * a ratio object of summary.json (a percentile's, or p50_exit_normalized)
 * as "0.863 (0.716..1.039)", "0.863" without a CI, "-" without a ratio
 */
const char *run_ratio_str(const struct jv *x, char *buf, size_t len);
/* a string of the provenance, or dflt */
const char *run_prov(const struct run *r, const char *key, const char *dflt);

/*
 * trace.csv's buckets of one probe and (mode, size), over the
 * conversion phases (to-shared and to-private): exclusive times.
 */
struct run_trace_hist {
	char probe[64];
	enum conv_mode mode;
	uint64_t size;
	struct hist h;
};

struct run_trace {
	struct run_trace_hist *rows;
	size_t nrows, cap;
};

/* 0, -ENOENT without trace.csv, other -errno with err[] */
int run_read_trace(const char *dir, struct run_trace *t, char *err,
		   size_t errlen);
struct run_trace_hist *run_trace_find(struct run_trace *t, const char *probe,
				      enum conv_mode m, uint64_t size);
void run_free_trace(struct run_trace *t);

/* total_ns of every sample of one cell of samples.csv, sorted */
struct run_cdf {
	enum conv_mode mode;
	uint64_t size;
	enum conv_dir dir;
	double *v;
	size_t n, cap;
};

/* every cell's samples: 0, or -errno (err[]) */
int run_read_cdfs(const char *dir, struct run_cdf **c, size_t *n, char *err,
		  size_t errlen);
void run_free_cdfs(struct run_cdf *c, size_t n);

#endif /* CONVBENCH_RUNFILES_H */
