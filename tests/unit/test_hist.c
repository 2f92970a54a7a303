// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of lib/hist: bucketing (hist_bucket.h, also used by the
 * BPF programs), exact count/min/max/sum, percentiles within the
 * documented bound, merge, and the text/CSV layouts byte for byte.
 *
 * Output: TAP-like lines, then "N passed, N failed". Exit 0 pass, 1 fail.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "rng.h"
#include "tap.h"

static uint64_t rng_state = 0x853c49e6748fea9bULL;

/* splitmix64 (lib/rng.h): a fixed stream, so every run tests the same values */
static uint64_t rnd(void)
{
	return rng_splitmix64(&rng_state);
}

/* heavy-tailed: uniform mantissa times 2^(0..40) */
static uint64_t rnd_latency(void)
{
	return (rnd() >> 44) << (rnd() % 41);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* run fn(h, arg) with output to a string; caller frees */
static char *capture(void (*fn)(FILE *, const void *), const void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return strdup("");
	fn(f, arg);
	fclose(f);
	return buf;
}

static bool expect_str(const char *name, char *got, const char *want)
{
	bool ok = !strcmp(got, want);

	tap_result(ok, "%s", name);
	if (!ok)
		tap_diag("got:\n%s\nwant:\n%s", got, want);
	free(got);
	return ok;
}

/* ------------------------------------------------------------------ */

static void test_known_buckets(void)
{
	static const struct { uint64_t v; unsigned int s, idx; } cases[] = {
		{ 0, 3, 0 }, { 1, 3, 1 }, { 7, 3, 7 }, { 8, 3, 8 },
		{ 15, 3, 15 }, { 16, 3, 16 }, { 17, 3, 16 }, { 18, 3, 17 },
		{ 31, 3, 23 }, { 32, 3, 24 }, { 255, 3, 47 }, { 256, 3, 48 },
		{ 0, 4, 0 }, { 15, 4, 15 }, { 16, 4, 16 }, { 31, 4, 31 },
		{ 32, 4, 32 }, { 33, 4, 32 }, { 34, 4, 33 }, { 1023, 4, 111 },
		{ 1024, 4, 112 }, { 0, 0, 0 }, { 1, 0, 1 }, { 2, 0, 2 },
		{ 3, 0, 2 }, { 4, 0, 3 },
		{ UINT64_MAX, 3, HIST_NR_BUCKETS(3) - 1 },
		{ UINT64_MAX, 4, HIST_NR_BUCKETS(4) - 1 },
		{ 1ULL << 63, 4, HIST_NR_BUCKETS(4) - 16 },
	};
	unsigned int i, bad = 0;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned int idx = hist_bucket_idx(cases[i].v, cases[i].s);

		if (idx != cases[i].idx) {
			tap_diag("v=%llu S=%u: idx %u, want %u",
				 (unsigned long long)cases[i].v, cases[i].s,
				 idx, cases[i].idx);
			bad++;
		}
	}
	tap_result(!bad, "bucket index of known values "
		   "(0, 1, 2^k, 2^k+-1, UINT64_MAX)");
	tap_result(hist_bucket_idx_clamp(UINT64_MAX, 3, 100) == 99 &&
		   hist_bucket_idx_clamp(5, 3, 100) == 5,
		   "hist_bucket_idx_clamp clamps to the last bucket");
}

/* every u64 lands in a bucket whose bounds hold it, within 2^-S */
static bool check_value(uint64_t v, unsigned int s)
{
	unsigned int idx = hist_bucket_idx(v, s);
	uint64_t low = hist_bucket_low(idx, s), high = hist_bucket_high(idx, s);

	if (idx >= HIST_NR_BUCKETS(s) || v < low || v > high)
		return false;
	/* width <= low * 2^-S, or width 1 below 2^S */
	return high - low + 1 <= (low >> s > 1 ? low >> s : 1);
}

static void test_bucket_properties(void)
{
	unsigned int s, i, k, bad = 0, bad_log2 = 0;

	for (s = 0; s <= HIST_SUB_BITS_MAX; s++) {
		unsigned int nr = HIST_NR_BUCKETS(s);

		/* contiguous, covering exactly 0..UINT64_MAX */
		if (hist_bucket_low(0, s) || hist_bucket_high(nr - 1, s) != UINT64_MAX)
			bad++;
		for (i = 0; i + 1 < nr; i++)
			if (hist_bucket_high(i, s) + 1 != hist_bucket_low(i + 1, s))
				bad++;
		for (k = 0; k < 64; k++) {
			uint64_t p = 1ULL << k;

			bad += !check_value(p, s) + !check_value(p - 1, s) +
			       !check_value(p + 1, s);
			if (hist_bucket_idx(p, s) < hist_bucket_idx(p - 1, s))
				bad++;
		}
		for (i = 0; i < 100000; i++)
			bad += !check_value(rnd() >> (rnd() % 64), s);
	}
	tap_result(!bad, "buckets contiguous, hold their values, width <= low*2^-S");

	for (k = 0; k < 64; k++) {
		uint64_t p = 1ULL << k;

		bad_log2 += hist_log2_steps(p) != k || hist_log2(p) != k ||
			    hist_log2_steps(p + 1) != hist_log2(p + 1) ||
			    hist_log2_steps(p - 1) != hist_log2(p - 1);
	}
	for (i = 0; i < 100000; i++) {
		uint64_t v = rnd() >> (rnd() % 64);

		bad_log2 += hist_log2_steps(v) != hist_log2(v);
	}
	bad_log2 += hist_log2_steps(0) != 0 || hist_log2(0) != 0;
	tap_result(!bad_log2, "BPF fixed-step log2 == __builtin_clzll log2");
}

static void test_exact_fields(void)
{
	static const uint64_t v[] = { 5, 1000, 3, 77777, 0, 12 };
	struct hist h;
	bool ok;

	tap_result(hist_init(&h, 5) == -EINVAL && hist_init(&h, 3) == 0,
		   "hist_init accepts sub_bits 0..4 only");
	hist_from_samples(&h, 4, v, 6);
	ok = hist_count(&h) == 6 && h.min == 0 && h.max == 77777 &&
	     h.sum == 78797 && hist_mean(&h) == 78797.0 / 6 && !h.approx;
	tap_result(ok, "count/min/max/sum/mean exact");

	hist_init(&h, 4);
	hist_add(&h, UINT64_MAX);
	hist_add(&h, UINT64_MAX);
	hist_add(&h, 2);
	ok = h.sum_hi == 2 && h.sum == 0 && hist_sum(&h) == 0x1p65 &&
	     h.buckets[HIST_NR_BUCKETS(4) - 1] == 2;
	tap_result(ok, "sum past 2^64 kept exact, UINT64_MAX in the last bucket");

	hist_init(&h, 3);
	tap_result(hist_percentile(&h, 50) == 0 && hist_mean(&h) == 0,
		   "empty histogram: percentile and mean 0");
}

/* nearest rank of sorted x, the definition hist_percentile() bounds */
static uint64_t nearest_rank(const uint64_t *x, size_t n, double p)
{
	size_t rank = (size_t)ceil(p * (double)n / 100.0);

	if (rank < 1)
		rank = 1;
	return x[(rank > n ? n : rank) - 1];
}

static void test_percentiles(void)
{
	static const double ps[] = { 0, 0.1, 1, 10, 25, 50, 75, 90, 99,
				     99.9, 99.99, 100 };
	enum { N = 100000 };
	uint64_t *x = malloc(N * sizeof(*x));
	unsigned int s, i, bad = 0, bad_small = 0;
	struct hist h;

	for (i = 0; i < N; i++)
		x[i] = rnd_latency();
	qsort(x, N, sizeof(*x), cmp_u64);
	for (s = 3; s <= 4; s++) {
		hist_from_samples(&h, s, x, N);
		for (i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
			uint64_t want = nearest_rank(x, N, ps[i]);
			uint64_t got = hist_percentile(&h, ps[i]);

			/* exact below 2^S, else want <= got < want(1+2^-S) */
			bool in = want < (1u << s) ? got == want :
				  got >= want && (double)got <
				  (double)want * (1 + 1.0 / (1 << s));

			if (!in) {
				tap_diag("S=%u p%g: got %llu want %llu", s,
					 ps[i], (unsigned long long)got,
					 (unsigned long long)want);
				bad++;
			}
		}
	}
	tap_result(!bad, "percentiles of 1e5 samples within the 2^-S bound");

	/* below 2^S buckets have width 1: exact */
	for (i = 0; i < 16; i++)
		x[i] = i;
	hist_from_samples(&h, 4, x, 16);
	for (i = 1; i <= 100; i++)
		bad_small += hist_percentile(&h, i) != nearest_rank(x, 16, i);
	tap_result(!bad_small && hist_percentile(&h, 0) == 0,
		   "percentiles exact below 2^S");

	/* 1..1000: p50 is 500 exactly by rank, hist says 500..531 */
	for (i = 0; i < 1000; i++)
		x[i] = i + 1;
	hist_from_samples(&h, 4, x, 1000);
	tap_result(hist_percentile(&h, 50) == 511 &&
		   hist_percentile(&h, 100) == 1000 &&
		   hist_percentile(&h, 99.95) == 1000,
		   "1..1000: p50 511 (bucket 496..511), p100 = max, clamped to max");
	free(x);
}

static void test_merge(void)
{
	struct hist all, a, b, c;
	unsigned int i;
	bool ok;

	hist_init(&all, 4);
	hist_init(&a, 4);
	hist_init(&b, 4);
	for (i = 0; i < 50000; i++) {
		uint64_t v = rnd_latency();

		hist_add(&all, v);
		hist_add(i % 3 ? &a : &b, v);
	}
	ok = hist_merge(&a, &b) == 0 && a.count == all.count &&
	     a.min == all.min && a.max == all.max && a.sum == all.sum &&
	     a.sum_hi == all.sum_hi &&
	     !memcmp(a.buckets, all.buckets, sizeof(a.buckets));
	hist_init(&c, 4);
	ok = ok && hist_merge(&a, &c) == 0 && a.count == all.count;
	tap_result(ok, "merge of two halves == one histogram of all");
	hist_init(&c, 3);
	tap_result(hist_merge(&a, &c) == -EINVAL, "merge refuses other sub_bits");
}

static void test_add_buckets(void)
{
	uint64_t counts[HIST_NR_BUCKETS(3)] = { 0 };
	struct hist h, ref;
	unsigned int i;
	bool ok;

	hist_init(&ref, 3);
	for (i = 0; i < 1000; i++)
		hist_add(&ref, 100 + i);
	memcpy(counts, ref.buckets, sizeof(counts));
	hist_init(&h, 3);
	ok = hist_add_buckets(&h, counts, HIST_NR_BUCKETS(3)) == 0 &&
	     h.approx && h.count == 1000 && h.min == 96 && h.max == 1151 &&
	     hist_percentile(&h, 50) == hist_percentile(&ref, 50) &&
	     fabs(hist_mean(&h) - hist_mean(&ref)) < 0.07 * hist_mean(&ref);
	tap_result(ok, "hist_add_buckets (BPF map counts): approx min/max/mean");
	tap_result(hist_add_buckets(&h, counts, HIST_NR_BUCKETS(3) + 1) == -EINVAL,
		   "hist_add_buckets refuses too many buckets");
}

/* ------------------------------------------------------------------ */
/* layouts                                                             */

static void print_nsecs(FILE *f, const void *h)
{
	hist_print_log2(f, h, "nsecs");
}

static void print_summary(FILE *f, const void *h)
{
	hist_print_summary(f, h);
}

static void print_csv(FILE *f, const void *h)
{
	hist_write_csv(f, h);
}

static const struct hist *pair[2];

static void print_pair(FILE *f, const void *labels)
{
	const char *const *l = labels;

	hist_print_log2_pair(f, pair[0], pair[1], l[0], l[1], "usecs");
}

static void test_print_log2(void)
{
	static const uint64_t v[] = { 0, 1, 3, 300, 300, 300, 511, 512, 1000 };
	static const uint64_t late[] = { 300, 300, 700 };
	struct hist h;

	hist_from_samples(&h, 3, v, 9);
	expect_str("print_log2: bcc layout", capture(print_nsecs, &h),
"     nsecs               : count    distribution\n"
"         0 -> 1          : 2        |********************                    |\n"
"         2 -> 3          : 1        |**********                              |\n"
"         4 -> 7          : 0        |                                        |\n"
"         8 -> 15         : 0        |                                        |\n"
"        16 -> 31         : 0        |                                        |\n"
"        32 -> 63         : 0        |                                        |\n"
"        64 -> 127        : 0        |                                        |\n"
"       128 -> 255        : 0        |                                        |\n"
"       256 -> 511        : 4        |****************************************|\n"
"       512 -> 1023       : 2        |********************                    |\n");

	hist_from_samples(&h, 4, late, 3);
	expect_str("print_log2: leading and trailing empty rows skipped",
		   capture(print_nsecs, &h),
"     nsecs               : count    distribution\n"
"       256 -> 511        : 2        |****************************************|\n"
"       512 -> 1023       : 1        |********************                    |\n");

	hist_init(&h, 4);
	expect_str("print_log2: empty histogram prints nothing",
		   capture(print_nsecs, &h), "");

	hist_from_samples(&h, 4, v, 9);
	expect_str("print_summary line", capture(print_summary, &h),
		   "n=9 mean=325.2 p50=303 p90=1000 p99=1000 max=1000\n");
	hist_from_samples(&h, 3, late, 3);
	expect_str("CSV of the fine buckets", capture(print_csv, &h),
		   "low,high,count\n288,319,2\n320,351,0\n352,383,0\n"
		   "384,415,0\n416,447,0\n448,479,0\n480,511,0\n512,575,0\n"
		   "576,639,0\n640,703,1\n");
}

static void test_print_pair(void)
{
	static const char *const labels[] = { "destructive", "in-place" };
	static const uint64_t va[] = { 3, 5, 5, 6, 9, 17 };
	static const uint64_t vb[] = { 1, 1, 1, 2, 3 };
	struct hist a, b;
	unsigned int i, too_wide = 0;
	char *out, *line;

	hist_from_samples(&a, 4, va, 6);
	hist_from_samples(&b, 4, vb, 5);
	pair[0] = &a;
	pair[1] = &b;
	expect_str("print_log2_pair layout", capture(print_pair, labels),
"usecs    : destructive                  in-place\n"
" 0 -> 1  : 0     |                    | 3     |********************|\n"
" 2 -> 3  : 1     |******              | 2     |*************       |\n"
" 4 -> 7  : 3     |********************| 0     |                    |\n"
" 8 -> 15 : 1     |******              | 0     |                    |\n"
"16 -> 31 : 1     |******              | 0     |                    |\n");

	/* wide values and counts still fit a 72-column mail */
	hist_init(&a, 4);
	hist_init(&b, 4);
	for (i = 0; i < 3000000; i++) {
		hist_add(&a, rnd() % 5000000000ULL);
		hist_add(&b, 100 + rnd() % 1000);
	}
	out = capture(print_pair, labels);
	for (line = strtok(out, "\n"); line; line = strtok(NULL, "\n"))
		too_wide += strlen(line) > 72;
	free(out);
	tap_result(!too_wide,
		   "print_log2_pair: lines <= 72 columns (1e10 ns, 3e6 counts)");
}

int main(void)
{
	test_known_buckets();
	test_bucket_properties();
	test_exact_fields();
	test_percentiles();
	test_merge();
	test_add_buckets();
	test_print_log2();
	test_print_pair();
	return tap_finish(false);
}
