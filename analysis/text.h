/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Plain text that pastes into an email: every line at most TEXT_COLS
 * columns, ASCII.
 */
#ifndef CONVBENCH_TEXT_H
#define CONVBENCH_TEXT_H

#include <stdio.h>

#include "hist.h"

#define TEXT_COLS	72

/* one printf-style line, cut at TEXT_COLS (a safety net, not expected) */
void text_line(FILE *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* words of text wrapped at TEXT_COLS: lines start with first, then rest */
void text_wrap(FILE *f, const char *first, const char *rest,
	       const char *text);
/* ns as microseconds with 3 to 4 significant digits ("n/a" for NaN) */
const char *text_us(double ns, char *buf, size_t len);
/*
 * One histogram in bcc's log2 rows, sized to fit TEXT_COLS (hist.c's
 * hist_print_log2() keeps bcc's fixed 78-column layout).
 */
void text_hist(FILE *f, const struct hist *h);

#endif /* CONVBENCH_TEXT_H */
