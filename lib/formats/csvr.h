/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading the CSV files convbench and convtrace write (lib/formats/csvw.c): one
 * record per line, RFC 4180 quotes ("" inside a quoted field), no
 * newlines inside fields. Not a general CSV parser.
 */
#ifndef CONVBENCH_CSVR_H
#define CONVBENCH_CSVR_H

/* split line in place (its newline dropped) into at most max fields */
int csvr_split(char *line, char **f, int max);
/* the index of header field name among f[0..n), or -1 */
int csvr_col(char *const *f, int n, const char *name);
/* a whole field as a number: 0, or -1 when empty or not a number */
int csvr_num(const char *s, double *v);

#endif /* CONVBENCH_CSVR_H */
