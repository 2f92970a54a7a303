/* SPDX-License-Identifier: GPL-2.0 */
/*
 * HdrHistogram interval logs (".hlog"), the format HdrHistogram's own
 * tools (HistogramLogProcessor, HistogramLogReader in Java, C, JS, ...)
 * and the common latency plotters read. Our own writer: libc and zlib.
 *
 * The histogram (struct hdr_hist) is HdrHistogram's: values from 0 to
 * `highest`, `sigfigs` significant decimal digits, log2 buckets of
 * 2^(sub_half_mag + 1) linear sub-buckets of which the upper half is
 * used above bucket 0, so that every counts[] index is the one
 * HdrHistogram computes for the same value (readers rebuild the
 * histogram from its parameters and these counts alone). Values are
 * meant to be nanoseconds; lowest = 1, sigfigs = 3 is the usual choice
 * (resolution 1 ns below 2048 ns, then within 0.05 %).
 *
 * The log (hdr_log_open, hdr_log_write):
 *
 *   #[convbench latencies, ns]                      (optional comment)
 *   #[Histogram log format version 1.3]
 *   #[StartTime: 1759999999.123 (seconds since epoch), Thu Oct 09 ...]
 *   #[BaseTime: 1759999999.123 (seconds since epoch)]
 *   "StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"
 *   Tag=gmem-2M-to_private,0.000,12.500,0.084,HISTFAAAACl4nJNpmSzMwMDA...
 *
 * one line per interval: start (seconds after BaseTime), length (s),
 * the interval's max in ms (the highest value equivalent to the largest
 * sample, / 10^6, as Java's writer reports it), and the histogram in
 * HdrHistogram's V2 compressed encoding, base64:
 *
 *   compressed: be32 cookie 0x1c849314, be32 length, zlib stream of
 *   encoded:    be32 cookie 0x1c849313, be32 payload length,
 *               be32 normalizing index offset (0), be32 sigfigs,
 *               be64 lowest, be64 highest, be64 bits of 1.0 (the
 *               integer-to-double ratio), then the payload: counts[0 ..
 *               index(max)] as ZigZag LEB128-64b9B, a run of k > 1 zero
 *               counts written as -k.
 *
 * Every function returns 0 or -errno and never aborts: -EINVAL for bad
 * parameters or a tag that is empty or holds a comma, space or line
 * break, -ERANGE for a value above `highest`, -ENOMEM, -EIO when the
 * stream has failed or zlib did.
 */
#ifndef CONVBENCH_HDRLOG_H
#define CONVBENCH_HDRLOG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#define HDR_SIGFIGS_DEFAULT	3
#define HDR_SIGFIGS_MAX		5
/* what Java's writer divides the interval max by: ns to ms */
#define HDR_LOG_MAX_RATIO	1e6

struct hdr_hist {
	/* parameters, as encoded */
	uint64_t lowest;		/* lowest discernible value, >= 1 */
	uint64_t highest;		/* highest trackable value */
	int sigfigs;			/* 0..HDR_SIGFIGS_MAX */
	/* layout, from the parameters */
	unsigned int unit_mag;		/* floor(log2(lowest)) */
	unsigned int sub_half_mag;	/* log2(sub-buckets per bucket) - 1 */
	uint32_t sub_half;		/* 2^sub_half_mag */
	uint64_t sub_mask;		/* (2 * sub_half - 1) << unit_mag */
	uint32_t bucket_count;
	uint32_t counts_len;		/* (bucket_count + 1) * sub_half */
	/* contents: min and max are the exact samples (0 when empty) */
	uint64_t total;
	uint64_t min, max;
	uint64_t *counts;		/* counts_len entries */
};

/* allocate an empty histogram; *out is NULL on error */
int hdr_new(uint64_t lowest, uint64_t highest, int sigfigs,
	    struct hdr_hist **out);
void hdr_free(struct hdr_hist *h);	/* NULL is fine */
void hdr_reset(struct hdr_hist *h);
/* -ERANGE above h->highest (nothing recorded), -EOVERFLOW past 2^63 */
int hdr_record(struct hdr_hist *h, uint64_t value);
int hdr_record_n(struct hdr_hist *h, uint64_t value, uint64_t count);

/* counts[] index of a value <= h->highest */
uint32_t hdr_index_of(const struct hdr_hist *h, uint64_t value);
/* the range of values sharing value's count: [lowest_equiv, highest_equiv] */
uint64_t hdr_lowest_equiv(const struct hdr_hist *h, uint64_t value);
uint64_t hdr_highest_equiv(const struct hdr_hist *h, uint64_t value);

/*
 * The compressed V2 encoding, base64 (NUL-terminated, malloc'd, *out is
 * NULL on error): the last field of an interval line.
 */
int hdr_encode_base64(const struct hdr_hist *h, char **out);
/* ZigZag LEB128-64b9B: 1 to 9 bytes written to buf, their number returned */
size_t hdr_zigzag_put(uint8_t *buf, int64_t value);

struct hdr_log {
	FILE *f;
};

/*
 * Write the header to f (comment may be NULL: a "#[...]" line first when
 * not); start is the run's start, StartTime and BaseTime both.
 */
int hdr_log_open(struct hdr_log *log, FILE *f, const struct timespec *start,
		 const char *comment);
/*
 * One interval line: start_s seconds after the log's start, length_s
 * long, tagged (NULL: no tag). The caller closes or commits the FILE.
 */
int hdr_log_write(struct hdr_log *log, const char *tag, double start_s,
		  double length_s, const struct hdr_hist *h);

#endif /* CONVBENCH_HDRLOG_H */
