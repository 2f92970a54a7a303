/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Latency histogram: log2 majors split into 2^sub_bits linear sub-buckets
 * (bucketing in hist_bucket.h, shared with the BPF programs). Fixed size,
 * no allocation: per-CPU or per-thread copies are summed with
 * hist_merge(). count, min, max and sum are exact for hist_add().
 *
 * Percentiles: hist_percentile() returns the upper bound of the bucket
 * holding the nearest-rank sample, clamped to [min, max]. For the true
 * nearest-rank value x it returns y with x <= y < x * (1 + 2^-sub_bits),
 * and y == x below 2^sub_bits (unit-width buckets).
 */
#ifndef CONVBENCH_HIST_H
#define CONVBENCH_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hist_bucket.h"

#define HIST_SUB_BITS_MAX	4
#define HIST_SUB_BITS_DEFAULT	4
#define HIST_NR_BUCKETS_MAX	HIST_NR_BUCKETS(HIST_SUB_BITS_MAX)

struct hist {
	unsigned int sub_bits;
	unsigned int nr_buckets;	/* HIST_NR_BUCKETS(sub_bits) */
	bool approx;		/* from bucket counts: min/max/sum estimated */
	uint64_t count;
	uint64_t min, max;
	uint64_t sum, sum_hi;	/* 128-bit sum, exact */
	uint64_t buckets[HIST_NR_BUCKETS_MAX];
};

/* sub_bits 0..HIST_SUB_BITS_MAX; -EINVAL otherwise */
int hist_init(struct hist *h, unsigned int sub_bits);
void hist_reset(struct hist *h);
void hist_add(struct hist *h, uint64_t v);
/* -EINVAL if sub_bits differ */
int hist_merge(struct hist *dst, const struct hist *src);
/* hist_init + hist_add of every sample */
int hist_from_samples(struct hist *h, unsigned int sub_bits,
		      const uint64_t *v, size_t n);
/*
 * Add raw bucket counts (e.g. a BPF per-CPU map summed over CPUs, same
 * sub_bits, nr <= nr_buckets). min/max become bucket bounds and the sum
 * uses bucket midpoints: h->approx is set.
 */
int hist_add_buckets(struct hist *h, const uint64_t *counts, unsigned int nr);

uint64_t hist_count(const struct hist *h);
double hist_sum(const struct hist *h);
double hist_mean(const struct hist *h);	/* 0 when empty */
/* p in [0, 100]; 0 when empty; error bound above */
uint64_t hist_percentile(const struct hist *h, double p);

/*
 * bcc print_log2_hist() layout, sub-buckets collapsed into power-of-two
 * rows (row 0 is "0 -> 1"); leading and trailing empty rows skipped.
 */
void hist_print_log2(FILE *f, const struct hist *h, const char *val_type);
/* the same rows with columns sized to the data, lines at most cols wide */
void hist_print_log2_cols(FILE *f, const struct hist *h, const char *val_type,
			  int cols);
/*
 * Two histograms side by side in at most 72 columns (while values have
 * at most 12 digits and counts at most 8); each star column is scaled
 * to its own largest row, so the shapes compare even when n differs.
 */
void hist_print_log2_pair(FILE *f, const struct hist *a, const struct hist *b,
			  const char *label_a, const char *label_b,
			  const char *val_type);
/* "n=.. mean=.. p50=.. p90=.. p99=.. max=.." */
void hist_print_summary(FILE *f, const struct hist *h);
/* "low,high,count" then every fine bucket from first to last non-empty */
void hist_write_csv(FILE *f, const struct hist *h);

#endif /* CONVBENCH_HIST_H */
