// SPDX-License-Identifier: GPL-2.0
/*
 * Plain text for email (see text.h): lines and paragraphs that fit
 * TEXT_COLS columns, microseconds, a log2 histogram.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdarg.h>
#include <string.h>

#include "text.h"

/* one line, cut at TEXT_COLS columns (never expected: a safety net) */
void text_line(FILE *f, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (strlen(buf) > TEXT_COLS)
		strcpy(buf + TEXT_COLS - 3, "...");
	fprintf(f, "%s\n", buf);
}

/* words wrapped at TEXT_COLS; lines start with first, then rest */
void text_wrap(FILE *f, const char *first, const char *rest,
	       const char *text)
{
	size_t col = strlen(first), ind = strlen(rest), start = col;
	const char *p = text;

	fputs(first, f);
	while (*p) {
		size_t wl;

		p += strspn(p, " ");
		wl = strcspn(p, " ");
		if (!wl)
			break;
		if (col > start && col + 1 + wl > TEXT_COLS) {
			fprintf(f, "\n%s", rest);
			col = start = ind;
		} else if (col > start) {
			fputc(' ', f);
			col++;
		}
		if (wl > TEXT_COLS - col)	/* a word longer than a line */
			wl = TEXT_COLS - col;
		fprintf(f, "%.*s", (int)wl, p);
		col += wl;
		p += strcspn(p, " ");
	}
	if (col)
		fputc('\n', f);
}

/* microseconds with 3 to 4 significant digits, from ns */
const char *text_us(double ns, char *buf, size_t len)
{
	double v = ns / 1000;

	if (v != v)
		snprintf(buf, len, "n/a");
	else if (v >= 1000)
		snprintf(buf, len, "%.0f", v);
	else if (v >= 100)
		snprintf(buf, len, "%.1f", v);
	else if (v >= 10)
		snprintf(buf, len, "%.2f", v);
	else
		snprintf(buf, len, "%.3f", v);
	return buf;
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

/*
 * One histogram in bcc's log2 rows, sized to fit TEXT_COLS (hist.c's
 * hist_print_log2() keeps bcc's fixed 78-column layout).
 */
void text_hist(FILE *f, const struct hist *h)
{
	uint64_t rows[64] = { 0 }, max = 0;
	int first = -1, last = -1, r, w, stars, k, n;
	unsigned int b;

	for (b = 0; b < h->nr_buckets; b++)
		rows[hist_log2(hist_bucket_low(b, h->sub_bits))] += h->buckets[b];
	for (r = 0; r < 64; r++) {
		if (!rows[r])
			continue;
		if (first < 0)
			first = r;
		last = r;
		if (rows[r] > max)
			max = rows[r];
	}
	if (first < 0)
		return;
	w = digits(last == 63 ? UINT64_MAX : (2ULL << last) - 1);
	stars = TEXT_COLS - (2 * w + 4 + 3 + 8 + 2 + 1);
	if (stars > 40)
		stars = 40;
	fprintf(f, "%*s : count    distribution\n", 2 * w + 4, "nsecs");
	for (r = first; r <= last; r++) {
		n = (int)((double)rows[r] * stars / (double)max);
		fprintf(f, "%*llu -> %-*llu : %-8llu |", w,
			r ? 1ULL << r : 0ULL, w, (unsigned long long)
			(r == 63 ? UINT64_MAX : (2ULL << r) - 1),
			(unsigned long long)rows[r]);
		for (k = 0; k < stars; k++)
			fputc(k < n ? '*' : ' ', f);
		fputs("|\n", f);
	}
}
