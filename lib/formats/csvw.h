/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CSV rows for results files: fields separated by ',', quoted per
 * RFC 4180 only when needed (a comma, '"', CR or LF, or leading or
 * trailing blanks that readers would strip), '"' doubled inside quotes.
 * Rows end in LF, not RFC 4180's CRLF: gnuplot, Python's csv and
 * spreadsheets read either, and LF keeps the files diff-friendly.
 * Doubles as in jsonw_fmt_double() (csvw.o needs jsonw.o). Check
 * csvw_error() (the stream's sticky error flag) at the end.
 */
#ifndef CONVBENCH_CSVW_H
#define CONVBENCH_CSVW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct csvw {
	FILE *f;
	unsigned int col;	/* fields written in the current row */
};

void csvw_init(struct csvw *c, FILE *f);
void csvw_str(struct csvw *c, const char *s);	/* NULL: empty field */
void csvw_u64(struct csvw *c, uint64_t v);
void csvw_i64(struct csvw *c, int64_t v);
void csvw_double(struct csvw *c, double v);	/* NaN/inf: empty field */
void csvw_end_row(struct csvw *c);
/* a whole row of strings, e.g. the header */
void csvw_row(struct csvw *c, const char *const *fields, unsigned int n);
bool csvw_error(const struct csvw *c);

#endif /* CONVBENCH_CSVW_H */
