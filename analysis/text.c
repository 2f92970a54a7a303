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

/* one histogram in bcc's log2 rows, within TEXT_COLS */
void text_hist(FILE *f, const struct hist *h)
{
	hist_print_log2_cols(f, h, "nsecs", TEXT_COLS);
}
