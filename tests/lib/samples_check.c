// SPDX-License-Identifier: GPL-2.0
/*
 * samples_check FILE...: every row of convbench's samples.csv against the
 * timing invariants of bench/cell/invariants.h (the same code convbench
 * --debug runs), at samples.csv's resolution (whole ns: tolerance 2 ns).
 * Static: it runs in the VM next to convbench and on the host.
 *
 * Prints "samples_check: FILE: N rows, all invariants hold" per file, or
 * the first few rows that break one (file:line, the cell, why). Exit 0
 * all hold, 1 a row breaks one or the file has no rows (a run that
 * recorded nothing holds nothing), 2 a file cannot be read or has no
 * convbench header. tests/unit/test_samples_check.sh feeds it bad rows.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "invariants.h"
#include "samples_csv.h"

#define CSV_TOL_NS	2.0
#define MAX_REPORTED	5

/* a field of the row last read, "?" where it is short */
static const char *field(const struct csvr_file *c, int i)
{
	return c->n > c->col[i] ? c->f[c->col[i]] : "?";
}

/* every column but the round's */
#define NEED	(SAMPLES_ALL & ~SAMPLES_COL(SAMPLES_ROUND))

/* the row's sample */
static void sample_of(const struct samples_row *row, struct inv_sample *s)
{
	const double *v = row->v;

	memset(s, 0, sizeof(*s));
	s->mode = row->mode;
	s->dir = row->dir;
	s->trigger = row->implicit ? TRIGGER_IMPLICIT : TRIGGER_EXPLICIT;
	s->preserve = v[SAMPLES_PRESERVE] != 0;
	s->size = row->size;
	s->exits = v[SAMPLES_EXITS];
	s->total = v[SAMPLES_TOTAL];
	s->first = v[SAMPLES_FIRST];
	s->copy = v[SAMPLES_COPY];
	s->exit_rt = v[SAMPLES_EXIT_RT];
	s->after_exit = v[SAMPLES_AFTER];
	s->host = v[SAMPLES_HOST];
	s->record = v[SAMPLES_RECORD];
	s->mem = v[SAMPLES_MEM];
	s->release = v[SAMPLES_RELEASE];
}

static int open_checked(struct csvr_file *c, const char *path)
{
	int r = samples_csv_open(c, path), i;

	if (r && r != -ENODATA) {
		fprintf(stderr, "samples_check: %s: %s\n", path, strerror(-r));
		return 2;
	}
	i = r ? SAMPLES_MODE : csvr_missing(c, NEED);
	if (i >= 0) {
		fprintf(stderr, "samples_check: %s: no column %s: not "
			"a convbench samples.csv\n", path, samples_col_name[i]);
		csvr_close(c);
		return 2;
	}
	return 0;
}

static int check_file(const char *path)
{
	unsigned long rows = 0, bad = 0;
	struct samples_row row;
	struct inv_sample s;
	struct csvr_file c;
	char why[256];
	const char *w;
	int r, status;

	status = open_checked(&c, path);
	if (status)
		return status;
	while ((r = samples_csv_next(&c, NEED, false, &row))) {
		rows++;
		if (r < 0) {
			w = "the row does not parse";
		} else {
			sample_of(&row, &s);
			w = inv_check(&s, CSV_TOL_NS, why, sizeof(why));
			if (!w)
				continue;
		}
		if (bad++ < MAX_REPORTED)
			printf("samples_check: %s:%zu: %s %s %s vcpu %s iter "
			       "%s: %s\n", path, c.lineno,
			       field(&c, SAMPLES_MODE), field(&c, SAMPLES_SIZE),
			       field(&c, SAMPLES_DIR), field(&c, SAMPLES_VCPU),
			       field(&c, SAMPLES_ITER), w);
	}
	csvr_close(&c);
	if (!rows) {
		printf("samples_check: %s: no rows: nothing recorded to check\n",
		       path);
		status = 1;
	} else if (bad) {
		printf("samples_check: %s: %lu of %lu rows break a timing "
		       "invariant\n", path, bad, rows);
		status = 1;
	} else {
		printf("samples_check: %s: %lu rows, all invariants hold\n",
		       path, rows);
	}
	return status;
}

int main(int argc, char **argv)
{
	int i, r, status = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: samples_check SAMPLES_CSV...\n");
		return 2;
	}
	for (i = 1; i < argc; i++) {
		r = check_file(argv[i]);
		if (r > status)
			status = r;
	}
	return status;
}
