/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading the CSV files convbench and convtrace write (lib/formats/csvw.c): one
 * record per line, RFC 4180 quotes ("" inside a quoted field), no
 * newlines inside fields. Not a general CSV parser.
 */
#ifndef CONVBENCH_CSVR_H
#define CONVBENCH_CSVR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CSVR_MAX_FIELDS	64	/* of a row; more are not split off */
#define CSVR_MAX_COLS	64	/* named columns of a csvr_file */

/* split line in place (its newline dropped) into at most max fields */
int csvr_split(char *line, char **f, int max);
/* the index of header field name among f[0..n), or -1 */
int csvr_col(char *const *f, int n, const char *name);
/* a whole field as a number: 0, or -1 when empty or not a number */
int csvr_num(const char *s, double *v);


/*
 * A CSV file with a header, read row by row, the columns the reader
 * names found in the header: what the readers of lib/results/'s
 * results files (*_csv.h) share.
 */
struct csvr_file {
	FILE *in;
	char *line;
	size_t cap;
	size_t lineno;		/* of the row last read; the header is 1 */
	int nf;			/* fields of the header */
	int n;			/* fields of the row last read */
	bool blank;		/* the row last read was blank (spaces, CR) */
	int ncols;
	int col[CSVR_MAX_COLS];	/* names[i]'s field, or -1 */
	char *f[CSVR_MAX_FIELDS];
};

/*
 * open path and read its header: 0; -errno when it cannot be opened
 * (c->in NULL, nothing to close); -ENODATA without a header line or
 * n > CSVR_MAX_COLS (c open: close it)
 */
int csvr_open(struct csvr_file *c, const char *path, const char *const *names,
	      int n);
/* the first i of need's bits (1 << i) whose column is absent, or -1 */
int csvr_missing(const struct csvr_file *c, uint64_t need);
/*
 * the next row into c->f, c->n: 1; 0 at the end; -EINVAL when it has
 * fewer fields than the header (a blank row too: c->blank)
 */
int csvr_next(struct csvr_file *c);
/* names[i]'s field of the row last read ("" when absent) */
const char *csvr_get(const struct csvr_file *c, int i);
void csvr_close(struct csvr_file *c);

#endif /* CONVBENCH_CSVR_H */
