// SPDX-License-Identifier: GPL-2.0
/*
 * HdrHistogram interval logs (see hdrlog.h): the histogram's layout as
 * HdrHistogram defines it (AbstractHistogram in Java, hdr_histogram.c
 * in C), its V2 compressed encoding and the log's text lines (Java's
 * HistogramLogWriter). Written from the format's description; no code
 * of those projects is used.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "hdrlog.h"

#define HDR_V2_ENCODING_COOKIE		0x1c849303u
#define HDR_V2_COMPRESSED_COOKIE	0x1c849304u
/* word size 1 in the cookie's second nibble: ZigZag LEB128 counts */
#define HDR_COOKIE_ZIGZAG		0x10u
#define HDR_ENCODING_HEADER		40	/* bytes before the payload */
#define HDR_ZIGZAG_MAX			9	/* bytes of one count */
#define HDR_DOUBLE_ONE_BITS		0x3ff0000000000000ull

static unsigned int log2_floor(uint64_t v)
{
	return 63 - __builtin_clzll(v);
}

static uint32_t buckets_needed(const struct hdr_hist *h, uint64_t value)
{
	uint64_t untrackable = ((uint64_t)h->sub_half << 1) << h->unit_mag;
	uint32_t n = 1;

	while (untrackable <= value) {
		if (untrackable > (uint64_t)INT64_MAX / 2)
			return n + 1;
		untrackable <<= 1;
		n++;
	}
	return n;
}

int hdr_new(uint64_t lowest, uint64_t highest, int sigfigs,
	    struct hdr_hist **out)
{
	struct hdr_hist *h;
	uint64_t single_unit = 2;
	unsigned int sub_mag = 0;
	int i;

	*out = NULL;
	if (lowest < 1 || highest > (uint64_t)INT64_MAX ||
	    highest / 2 < lowest || sigfigs < 0 || sigfigs > HDR_SIGFIGS_MAX)
		return -EINVAL;
	/* unit resolution up to 2 * 10^sigfigs: sub-buckets per bucket */
	for (i = 0; i < sigfigs; i++)
		single_unit *= 10;
	while ((1ull << sub_mag) < single_unit)
		sub_mag++;

	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->lowest = lowest;
	h->highest = highest;
	h->sigfigs = sigfigs;
	h->unit_mag = log2_floor(lowest);
	h->sub_half_mag = (sub_mag > 1 ? sub_mag : 1) - 1;
	if (h->unit_mag + h->sub_half_mag > 61) {
		free(h);
		return -EINVAL;
	}
	h->sub_half = 1u << h->sub_half_mag;
	h->sub_mask = ((uint64_t)2 * h->sub_half - 1) << h->unit_mag;
	h->bucket_count = buckets_needed(h, highest);
	h->counts_len = (h->bucket_count + 1) * h->sub_half;
	h->counts = calloc(h->counts_len, sizeof(*h->counts));
	if (!h->counts) {
		free(h);
		return -ENOMEM;
	}
	*out = h;
	return 0;
}

void hdr_free(struct hdr_hist *h)
{
	if (!h)
		return;
	free(h->counts);
	free(h);
}

void hdr_reset(struct hdr_hist *h)
{
	memset(h->counts, 0, h->counts_len * sizeof(*h->counts));
	h->total = 0;
	h->min = 0;
	h->max = 0;
}

/* the log2 bucket: the one whose sub-buckets' upper half holds value */
static unsigned int bucket_of(const struct hdr_hist *h, uint64_t value)
{
	unsigned int base = 64 - h->unit_mag - h->sub_half_mag - 1;

	return base - __builtin_clzll(value | h->sub_mask);
}

uint32_t hdr_index_of(const struct hdr_hist *h, uint64_t value)
{
	unsigned int b = bucket_of(h, value);
	uint64_t sub = value >> (b + h->unit_mag);

	return ((uint32_t)(b + 1) << h->sub_half_mag) + (uint32_t)sub -
		h->sub_half;
}

uint64_t hdr_lowest_equiv(const struct hdr_hist *h, uint64_t value)
{
	unsigned int shift = bucket_of(h, value) + h->unit_mag;

	return (value >> shift) << shift;
}

uint64_t hdr_highest_equiv(const struct hdr_hist *h, uint64_t value)
{
	unsigned int shift = bucket_of(h, value) + h->unit_mag;

	return hdr_lowest_equiv(h, value) + ((uint64_t)1 << shift) - 1;
}

int hdr_record_n(struct hdr_hist *h, uint64_t value, uint64_t count)
{
	uint64_t *c;
	uint32_t i;

	if (value > h->highest)
		return -ERANGE;
	/* cannot be past the end: a guard against a layout bug */
	i = hdr_index_of(h, value);
	if (i >= h->counts_len)
		return -ERANGE;
	c = &h->counts[i];
	if (count > (uint64_t)INT64_MAX - h->total)
		return -EOVERFLOW;
	if (!count)
		return 0;
	*c += count;
	if (!h->total || value < h->min)
		h->min = value;
	if (value > h->max)
		h->max = value;
	h->total += count;
	return 0;
}

int hdr_record(struct hdr_hist *h, uint64_t value)
{
	return hdr_record_n(h, value, 1);
}

size_t hdr_zigzag_put(uint8_t *buf, int64_t value)
{
	uint64_t z = ((uint64_t)value << 1) ^ (uint64_t)(value >> 63);
	size_t i;

	/* 7 bits a byte for 8 bytes, then all 8 bits of what is left */
	for (i = 0; i < HDR_ZIGZAG_MAX - 1; i++) {
		if (z < 0x80) {
			buf[i] = z;
			return i + 1;
		}
		buf[i] = (z & 0x7f) | 0x80;
		z >>= 7;
	}
	buf[i] = z;
	return HDR_ZIGZAG_MAX;
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static void put_be64(uint8_t *p, uint64_t v)
{
	put_be32(p, v >> 32);
	put_be32(p + 4, v);
}

/* the uncompressed V2 encoding; *len its size */
static int encode_v2(const struct hdr_hist *h, uint8_t **out, size_t *len)
{
	uint32_t relevant = hdr_index_of(h, h->max) + 1;
	uint8_t *buf, *p;
	uint32_t i = 0;

	buf = malloc(HDR_ENCODING_HEADER + (size_t)relevant * HDR_ZIGZAG_MAX);
	if (!buf)
		return -ENOMEM;
	p = buf + HDR_ENCODING_HEADER;
	while (i < relevant) {
		uint64_t count = h->counts[i++];
		int64_t zeros = 1;

		if (count) {
			p += hdr_zigzag_put(p, (int64_t)count);
			continue;
		}
		while (i < relevant && !h->counts[i]) {
			zeros++;
			i++;
		}
		/* a lone zero is a count of 0, a run of k zeros is -k */
		p += hdr_zigzag_put(p, zeros > 1 ? -zeros : 0);
	}
	put_be32(buf, HDR_V2_ENCODING_COOKIE | HDR_COOKIE_ZIGZAG);
	put_be32(buf + 4, p - buf - HDR_ENCODING_HEADER);
	put_be32(buf + 8, 0);		/* normalizing index offset */
	put_be32(buf + 12, h->sigfigs);
	put_be64(buf + 16, h->lowest);
	put_be64(buf + 24, h->highest);
	put_be64(buf + 32, HDR_DOUBLE_ONE_BITS);
	*out = buf;
	*len = p - buf;
	return 0;
}

/* the compressed wrapper: cookie, length, zlib stream of encode_v2() */
static int encode_compressed(const struct hdr_hist *h, uint8_t **out,
			     size_t *len)
{
	uint8_t *enc, *buf;
	size_t enc_len;
	uLongf z_len;
	int err, zerr;

	err = encode_v2(h, &enc, &enc_len);
	if (err)
		return err;
	z_len = compressBound(enc_len);
	buf = malloc(8 + z_len);
	if (!buf) {
		free(enc);
		return -ENOMEM;
	}
	zerr = compress2(buf + 8, &z_len, enc, enc_len, Z_BEST_COMPRESSION);
	free(enc);
	if (zerr != Z_OK || z_len > INT32_MAX) {
		free(buf);
		return zerr == Z_MEM_ERROR ? -ENOMEM : -EIO;
	}
	put_be32(buf, HDR_V2_COMPRESSED_COOKIE | HDR_COOKIE_ZIGZAG);
	put_be32(buf + 4, z_len);
	*out = buf;
	*len = 8 + z_len;
	return 0;
}

static char *base64(const uint8_t *p, size_t n)
{
	static const char digits[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *s = malloc((n + 2) / 3 * 4 + 1), *o = s;
	size_t i;

	if (!s)
		return NULL;
	for (i = 0; i + 2 < n; i += 3) {
		uint32_t w = (uint32_t)p[i] << 16 | p[i + 1] << 8 | p[i + 2];

		*o++ = digits[w >> 18];
		*o++ = digits[(w >> 12) & 63];
		*o++ = digits[(w >> 6) & 63];
		*o++ = digits[w & 63];
	}
	if (i < n) {
		uint32_t w = (uint32_t)p[i] << 16 | (i + 1 < n ? p[i + 1] << 8 : 0);

		*o++ = digits[w >> 18];
		*o++ = digits[(w >> 12) & 63];
		*o++ = i + 1 < n ? digits[(w >> 6) & 63] : '=';
		*o++ = '=';
	}
	*o = '\0';
	return s;
}

int hdr_encode_base64(const struct hdr_hist *h, char **out)
{
	uint8_t *buf;
	size_t len;
	int err;

	*out = NULL;
	err = encode_compressed(h, &buf, &len);
	if (err)
		return err;
	*out = base64(buf, len);
	free(buf);
	return *out ? 0 : -ENOMEM;
}

static int stream_err(FILE *f, int printed)
{
	return printed < 0 || ferror(f) ? -EIO : 0;
}

int hdr_log_open(struct hdr_log *log, FILE *f, const struct timespec *start,
		 const char *comment)
{
	double t = start->tv_sec + start->tv_nsec / 1e9;
	char date[64];
	struct tm tm;
	int n = 0;

	log->f = NULL;
	if (start->tv_sec < 0 || start->tv_nsec < 0 ||
	    start->tv_nsec >= 1000000000L ||
	    (comment && strpbrk(comment, "\r\n")))
		return -EINVAL;
	/* Java's writer prints Date.toString(); the time zone here is UTC */
	if (!gmtime_r(&start->tv_sec, &tm) ||
	    !strftime(date, sizeof(date), "%a %b %d %H:%M:%S UTC %Y", &tm))
		return -EINVAL;
	if (comment)
		n = fprintf(f, "#[%s]\n", comment);
	if (n >= 0)
		n = fprintf(f, "#[Histogram log format version 1.3]\n"
			    "#[StartTime: %.3f (seconds since epoch), %s]\n"
			    "#[BaseTime: %.3f (seconds since epoch)]\n"
			    "\"StartTimestamp\",\"Interval_Length\","
			    "\"Interval_Max\",\"Interval_Compressed_Histogram\"\n",
			    t, date, t);
	if (stream_err(f, n))
		return -EIO;
	log->f = f;
	return 0;
}

/* what the readers split a line at (Java: commas, spaces, line breaks) */
static bool tag_ok(const char *tag)
{
	return *tag && !strpbrk(tag, ", \t\r\n");
}

int hdr_log_write(struct hdr_log *log, const char *tag, double start_s,
		  double length_s, const struct hdr_hist *h)
{
	double max = h->max ? hdr_highest_equiv(h, h->max) / HDR_LOG_MAX_RATIO : 0;
	char *b64;
	int err, n;

	if (!log->f || (tag && !tag_ok(tag)) || !isfinite(start_s) ||
	    !isfinite(length_s) || start_s < 0 || length_s < 0)
		return -EINVAL;
	err = hdr_encode_base64(h, &b64);
	if (err)
		return err;
	n = fprintf(log->f, "%s%s%s%.3f,%.3f,%.3f,%s\n", tag ? "Tag=" : "",
		    tag ? tag : "", tag ? "," : "", start_s, length_s, max, b64);
	free(b64);
	return stream_err(log->f, n);
}
