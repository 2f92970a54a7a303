// SPDX-License-Identifier: GPL-2.0
/*
 * Latency histogram (see hist.h): accumulation, merge, percentiles and
 * the text/CSV views. The text view is bcc libbpf-tools'
 * print_log2_hist() layout so that it reads like what kernel people
 * already paste on mailing lists.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "hist.h"

#define LOG2_ROWS	64
#define PAIR_COLS	72

int hist_init(struct hist *h, unsigned int sub_bits)
{
	if (sub_bits > HIST_SUB_BITS_MAX)
		return -EINVAL;
	memset(h, 0, sizeof(*h));
	h->sub_bits = sub_bits;
	h->nr_buckets = HIST_NR_BUCKETS(sub_bits);
	h->min = UINT64_MAX;
	return 0;
}

void hist_reset(struct hist *h)
{
	hist_init(h, h->sub_bits);
}

static void sum_add(struct hist *h, uint64_t lo, uint64_t hi)
{
	h->sum += lo;
	h->sum_hi += hi + (h->sum < lo);
}

void hist_add(struct hist *h, uint64_t v)
{
	h->buckets[hist_bucket_idx(v, h->sub_bits)]++;
	h->count++;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	sum_add(h, v, 0);
}

int hist_merge(struct hist *dst, const struct hist *src)
{
	unsigned int i;

	if (dst->sub_bits != src->sub_bits)
		return -EINVAL;
	if (!src->count)
		return 0;
	for (i = 0; i < src->nr_buckets; i++)
		dst->buckets[i] += src->buckets[i];
	dst->count += src->count;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	sum_add(dst, src->sum, src->sum_hi);
	dst->approx |= src->approx;
	return 0;
}

int hist_from_samples(struct hist *h, unsigned int sub_bits,
		      const uint64_t *v, size_t n)
{
	size_t i;
	int err;

	err = hist_init(h, sub_bits);
	if (err)
		return err;
	for (i = 0; i < n; i++)
		hist_add(h, v[i]);
	return 0;
}

/* 64 x 64 -> 128 bit product in 32-bit halves (no __int128 in C11) */
static void mul_64(uint64_t a, uint64_t b, uint64_t *lo, uint64_t *hi)
{
	uint64_t a0 = (uint32_t)a, a1 = a >> 32;
	uint64_t b0 = (uint32_t)b, b1 = b >> 32;
	uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
	uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;

	*lo = (mid << 32) | (uint32_t)p00;
	*hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

int hist_add_buckets(struct hist *h, const uint64_t *counts, unsigned int nr)
{
	unsigned int i;

	if (nr > h->nr_buckets)
		return -EINVAL;
	for (i = 0; i < nr; i++) {
		uint64_t low, high, lo, hi;

		if (!counts[i])
			continue;
		low = hist_bucket_low(i, h->sub_bits);
		high = hist_bucket_high(i, h->sub_bits);
		h->buckets[i] += counts[i];
		h->count += counts[i];
		if (low < h->min)
			h->min = low;
		if (high > h->max)
			h->max = high;
		mul_64(counts[i], low + (high - low) / 2, &lo, &hi);
		sum_add(h, lo, hi);
		h->approx = true;
	}
	return 0;
}

uint64_t hist_count(const struct hist *h)
{
	return h->count;
}

double hist_sum(const struct hist *h)
{
	return ldexp((double)h->sum_hi, 64) + (double)h->sum;
}

double hist_mean(const struct hist *h)
{
	return h->count ? hist_sum(h) / (double)h->count : 0.0;
}

uint64_t hist_percentile(const struct hist *h, double p)
{
	uint64_t rank, cum = 0, v;
	unsigned int i;

	if (!h->count)
		return 0;
	if (!(p > 0))		/* also NaN */
		return h->min;
	if (p >= 100)
		return h->max;
	/* nearest rank: the smallest sample with rank/count >= p/100 */
	/* p * count first: exact for integer p, so ceil() does not round up */
	rank = (uint64_t)ceil(p * (double)h->count / 100.0);
	if (rank < 1)
		rank = 1;
	for (i = 0; i < h->nr_buckets; i++) {
		cum += h->buckets[i];
		if (cum >= rank)
			break;
	}
	if (i == h->nr_buckets)	/* rounding of rank past count */
		return h->max;
	v = hist_bucket_high(i, h->sub_bits);
	if (v > h->max)
		v = h->max;
	return v < h->min ? h->min : v;
}

/* ------------------------------------------------------------------ */
/* power-of-two rows: row 0 is 0..1, row r is 2^r..2^(r+1)-1 (bcc)     */

static void log2_rows(const struct hist *h, uint64_t rows[LOG2_ROWS])
{
	unsigned int i;

	memset(rows, 0, LOG2_ROWS * sizeof(rows[0]));
	for (i = 0; i < h->nr_buckets; i++)
		rows[hist_log2(hist_bucket_low(i, h->sub_bits))] +=
			h->buckets[i];
}

static uint64_t row_low(int r)
{
	return r ? 1ULL << r : 0;
}

static uint64_t row_high(int r)
{
	return r == LOG2_ROWS - 1 ? UINT64_MAX : (2ULL << r) - 1;
}

/* first and last non-empty row; false when all are empty */
static bool row_span(const uint64_t *rows, int *first, int *last)
{
	int r;

	*first = -1;
	*last = -1;
	for (r = 0; r < LOG2_ROWS; r++) {
		if (!rows[r])
			continue;
		if (*first < 0)
			*first = r;
		*last = r;
	}
	return *first >= 0;
}

static uint64_t rows_max(const uint64_t *rows)
{
	uint64_t m = 0;
	int r;

	for (r = 0; r < LOG2_ROWS; r++)
		if (rows[r] > m)
			m = rows[r];
	return m;
}

static void print_stars(FILE *f, uint64_t val, uint64_t val_max, int width)
{
	int n = 0, i;

	/* val * width must not overflow: drop low bits of both */
	while (val_max >= (1ULL << 57)) {
		val >>= 1;
		val_max >>= 1;
	}
	if (val_max)
		n = (int)(val * (uint64_t)width / val_max);
	for (i = 0; i < width; i++)
		fputc(i < n ? '*' : ' ', f);
}

static int digits(uint64_t v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

void hist_print_log2(FILE *f, const struct hist *h, const char *val_type)
{
	uint64_t rows[LOG2_ROWS], val_max;
	int first, last, r, width, stars;
	bool wide;

	log2_rows(h, rows);
	if (!row_span(rows, &first, &last))
		return;
	val_max = rows_max(rows);
	/* same switch as bcc: values past 2^32 need wider columns */
	wide = last > 32;
	width = wide ? 20 : 10;
	stars = wide ? 20 : 40;
	fprintf(f, "%*s%-*s : count    distribution\n", wide ? 15 : 5, "",
		wide ? 29 : 19, val_type);
	for (r = first; r <= last; r++) {
		fprintf(f, "%*llu -> %-*llu : %-8llu |", width,
			(unsigned long long)row_low(r), width,
			(unsigned long long)row_high(r),
			(unsigned long long)rows[r]);
		print_stars(f, rows[r], val_max, stars);
		fputs("|\n", f);
	}
}

void hist_print_log2_cols(FILE *f, const struct hist *h, const char *val_type,
			  int cols)
{
	uint64_t rows[LOG2_ROWS];
	int first, last, r, w, stars;

	log2_rows(h, rows);
	if (!row_span(rows, &first, &last))
		return;
	/* value columns as wide as the largest bound, stars take the rest */
	w = digits(row_high(last));
	stars = cols - (2 * w + 4 + 3 + 8 + 2 + 1);
	if (stars > 40)
		stars = 40;
	if (stars < 10)
		stars = 10;
	fprintf(f, "%*s : count    distribution\n", 2 * w + 4, val_type);
	for (r = first; r <= last; r++) {
		fprintf(f, "%*llu -> %-*llu : %-8llu |", w,
			(unsigned long long)row_low(r), w,
			(unsigned long long)row_high(r),
			(unsigned long long)rows[r]);
		print_stars(f, rows[r], rows_max(rows), stars);
		fputs("|\n", f);
	}
}

void hist_print_log2_pair(FILE *f, const struct hist *a, const struct hist *b,
			  const char *label_a, const char *label_b,
			  const char *val_type)
{
	uint64_t ra[LOG2_ROWS], rb[LOG2_ROWS], max_a, max_b;
	int fa, la, fb, lb, first, last, r, w, cw, stars, col, pad;
	bool has_a, has_b;

	log2_rows(a, ra);
	log2_rows(b, rb);
	has_a = row_span(ra, &fa, &la);
	has_b = row_span(rb, &fb, &lb);
	if (!has_a && !has_b)
		return;
	first = !has_a ? fb : !has_b ? fa : fa < fb ? fa : fb;
	last = !has_a ? lb : !has_b ? la : la > lb ? la : lb;
	max_a = rows_max(ra);
	max_b = rows_max(rb);

	/* size the columns to the data, then give the rest to the stars */
	w = digits(row_high(last));
	cw = digits(max_a > max_b ? max_a : max_b);
	if (cw < 5)
		cw = 5;
	stars = (PAIR_COLS - 2 * w - 2 * cw - 14) / 2;
	if (stars > 20)
		stars = 20;
	if (stars < 8)
		stars = 8;
	col = cw + 3 + stars;	/* "count |stars|" */

	/* val_type ends under the low column when it fits, like bcc's */
	pad = w - (int)strlen(val_type);
	if (pad < 0)
		pad = 0;
	fprintf(f, "%*s%-*.*s : %-*.*s %.*s\n", pad, "", 2 * w + 4 - pad,
		2 * w + 4 - pad, val_type, col, col, label_a, col, label_b);
	for (r = first; r <= last; r++) {
		fprintf(f, "%*llu -> %-*llu : %-*llu |", w,
			(unsigned long long)row_low(r), w,
			(unsigned long long)row_high(r), cw,
			(unsigned long long)ra[r]);
		print_stars(f, ra[r], max_a, stars);
		fprintf(f, "| %-*llu |", cw, (unsigned long long)rb[r]);
		print_stars(f, rb[r], max_b, stars);
		fputs("|\n", f);
	}
}

void hist_print_summary(FILE *f, const struct hist *h)
{
	fprintf(f, "n=%llu mean=%.1f p50=%llu p90=%llu p99=%llu max=%llu%s\n",
		(unsigned long long)h->count, hist_mean(h),
		(unsigned long long)hist_percentile(h, 50),
		(unsigned long long)hist_percentile(h, 90),
		(unsigned long long)hist_percentile(h, 99),
		(unsigned long long)(h->count ? h->max : 0),
		h->approx ? " (from buckets)" : "");
}

void hist_write_csv(FILE *f, const struct hist *h)
{
	unsigned int i, first = h->nr_buckets, last = 0;

	fputs("low,high,count\n", f);
	for (i = 0; i < h->nr_buckets; i++) {
		if (!h->buckets[i])
			continue;
		if (first == h->nr_buckets)
			first = i;
		last = i;
	}
	for (i = first; i <= last && i < h->nr_buckets; i++)
		fprintf(f, "%llu,%llu,%llu\n",
			(unsigned long long)hist_bucket_low(i, h->sub_bits),
			(unsigned long long)hist_bucket_high(i, h->sub_bits),
			(unsigned long long)h->buckets[i]);
}
