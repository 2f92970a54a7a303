/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bucket index of the latency histogram: log2 major buckets, each split
 * into 2^sub_bits linear sub-buckets (HdrHistogram-like). Header only,
 * no libc: the BPF programs include it so that kernel-side and user-side
 * histograms bucket identically (lib/hist.c sums them).
 *
 * Layout for S = sub_bits:
 *   v < 2^S:  idx = v                           (exact, width 1)
 *   v >= 2^S: m = log2(v), idx = (m - S + 1) * 2^S + ((v >> (m - S)) - 2^S)
 *             bucket width 2^(m - S), so (width / low) <= 2^-S
 * which is idx = ((m' - S) << S) + (v >> (m' - S)) with m' = log2(v | 2^S),
 * one formula without a branch. UINT64_MAX lands in the last bucket,
 * HIST_NR_BUCKETS(S) - 1; a smaller table clamps with
 * hist_bucket_idx_clamp().
 *
 * u64 is hist_u64: define HIST_U64 before including to override
 * (e.g. "__u64" in a BPF program that has vmlinux.h).
 */
#ifndef CONVBENCH_HIST_BUCKET_H
#define CONVBENCH_HIST_BUCKET_H

#ifndef HIST_U64
#define HIST_U64 unsigned long long
#endif
typedef HIST_U64 hist_u64;

/* buckets needed to cover all of u64 with sub_bits S */
#define HIST_NR_BUCKETS(s)	((65u - (s)) << (s))

/*
 * The sub_bits of the kernel functions' histograms: convtrace's maps,
 * trace.csv and whoever reads them (12.5 % wide buckets)
 */
#define TRACE_HIST_SUB_BITS	3

/* not __always_inline: glibc's cdefs.h redefines that without a guard */
#define HIST_INLINE static inline __attribute__((__always_inline__))

/*
 * floor(log2(v)), 0 for v = 0, in six fixed steps (after bcc's bits.bpf.h
 * log2l). The BPF target needs it: clang 14 -target bpf crashes on
 * __builtin_clzll (no ctlz instruction, the expansion crashes isel).
 */
HIST_INLINE unsigned int hist_log2_steps(hist_u64 v)
{
	unsigned int r, shift;

	r = (v > 0xffffffffULL) << 5;
	v >>= r;
	shift = (v > 0xffff) << 4;
	v >>= shift;
	r |= shift;
	shift = (v > 0xff) << 3;
	v >>= shift;
	r |= shift;
	shift = (v > 0xf) << 2;
	v >>= shift;
	r |= shift;
	shift = (v > 0x3) << 1;
	v >>= shift;
	r |= shift;
	r |= (unsigned int)(v >> 1);
	return r;
}

/* floor(log2(v)), 0 for v = 0 */
HIST_INLINE unsigned int hist_log2(hist_u64 v)
{
#if defined(__bpf__) || defined(HIST_BUCKET_NO_CLZ)
	return hist_log2_steps(v);
#else
	return 63u - (unsigned int)__builtin_clzll(v | 1);
#endif
}

HIST_INLINE unsigned int hist_bucket_idx(hist_u64 v,
						    unsigned int sub_bits)
{
	unsigned int m = hist_log2(v | (1ULL << sub_bits));
	unsigned int shift = m - sub_bits;

	return (shift << sub_bits) + (unsigned int)(v >> shift);
}

/* for tables smaller than HIST_NR_BUCKETS(sub_bits); nr_buckets >= 1 */
HIST_INLINE unsigned int
hist_bucket_idx_clamp(hist_u64 v, unsigned int sub_bits,
		      unsigned int nr_buckets)
{
	unsigned int idx = hist_bucket_idx(v, sub_bits);

	return idx < nr_buckets ? idx : nr_buckets - 1;
}

/* smallest value of bucket idx */
HIST_INLINE hist_u64 hist_bucket_low(unsigned int idx,
						unsigned int sub_bits)
{
	unsigned int q = idx >> sub_bits;
	hist_u64 r = idx & ((1u << sub_bits) - 1);

	if (!q)
		return r;
	return ((1ULL << sub_bits) + r) << (q - 1);
}

/* largest value of bucket idx (no overflow: the last one is UINT64_MAX) */
HIST_INLINE hist_u64 hist_bucket_high(unsigned int idx,
						 unsigned int sub_bits)
{
	unsigned int q = idx >> sub_bits;

	if (!q)
		return hist_bucket_low(idx, sub_bits);
	return hist_bucket_low(idx, sub_bits) + ((1ULL << (q - 1)) - 1);
}

#endif /* CONVBENCH_HIST_BUCKET_H */
