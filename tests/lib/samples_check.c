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
#include "units.h"

#define CSV_TOL_NS	2.0
#define MAX_REPORTED	5

enum col {
	C_MODE, C_SIZE, C_DIR, C_TRIGGER, C_PRESERVE, C_VCPU, C_ITER,
	C_TOTAL, C_FIRST, C_COPY, C_EXIT_RT, C_AFTER, C_EXITS, C_HOST,
	C_RECORD, C_MEM, C_RELEASE, C_NR
};

static const char *const col_name[C_NR] = {
	"mode", "size", "direction", "trigger", "preserve", "vcpu", "iter",
	"total_ns", "first_ns", "copy_ns", "exit_rt_ns", "after_exit_ns",
	"exits", "host_ns", "host_record_ns", "host_mem_ns",
	"host_release_ns",
};

/* split line in place at commas (convbench writes no quoted fields) */
static int split(char *line, char **f, int max)
{
	int n = 0;

	line[strcspn(line, "\r\n")] = '\0';
	while (n < max && line) {
		f[n++] = line;
		line = strchr(line, ',');
		if (line)
			*line++ = '\0';
	}
	return n;
}

static int num(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return *s && !*end && !errno ? 0 : -1;
}

/* one data row into s: 0, or -1 when a field does not parse */
static int row_of(char **f, const int *col, struct inv_sample *s)
{
	double v[C_NR];
	int i;

	for (i = C_SIZE + 1; i < C_NR; i++)
		if (i != C_DIR && i != C_TRIGGER && num(f[col[i]], &v[i]))
			return -1;
	/* sizes are spelled "4K", "2M" (lib/units.h) */
	v[C_SIZE] = size_parse(f[col[C_SIZE]]);
	if (!v[C_SIZE])
		return -1;
	memset(s, 0, sizeof(*s));
	if (!strcmp(f[col[C_MODE]], "inplace"))
		s->mode = MODE_INPLACE;
	else if (!strcmp(f[col[C_MODE]], "destructive"))
		s->mode = MODE_DESTRUCTIVE;
	else if (!strcmp(f[col[C_MODE]], "gmem"))
		s->mode = MODE_GMEM;
	else
		return -1;
	if (!strcmp(f[col[C_DIR]], "to-private"))
		s->dir = DIR_TO_PRIVATE;
	else if (!strcmp(f[col[C_DIR]], "to-shared"))
		s->dir = DIR_TO_SHARED;
	else
		return -1;
	s->trigger = strcmp(f[col[C_TRIGGER]], "implicit") ?
		     TRIGGER_EXPLICIT : TRIGGER_IMPLICIT;
	s->preserve = v[C_PRESERVE] != 0;
	s->size = v[C_SIZE];
	s->exits = v[C_EXITS];
	s->total = v[C_TOTAL];
	s->first = v[C_FIRST];
	s->copy = v[C_COPY];
	s->exit_rt = v[C_EXIT_RT];
	s->after_exit = v[C_AFTER];
	s->host = v[C_HOST];
	s->record = v[C_RECORD];
	s->mem = v[C_MEM];
	s->release = v[C_RELEASE];
	return 0;
}

static int check_file(const char *path)
{
	char line[1024], why[256], *f[32];
	int col[C_NR], n, i, j, status = 0;
	unsigned long rows = 0, bad = 0, lineno = 1;
	FILE *in = fopen(path, "r");

	if (!in) {
		fprintf(stderr, "samples_check: %s: %s\n", path, strerror(errno));
		return 2;
	}
	n = fgets(line, sizeof(line), in) ? split(line, f, 32) : 0;
	for (i = 0; i < C_NR; i++) {
		for (col[i] = -1, j = 0; j < n; j++)
			if (!strcmp(f[j], col_name[i]))
				col[i] = j;
		if (col[i] < 0) {
			fprintf(stderr, "samples_check: %s: no column %s: not "
				"a convbench samples.csv\n", path, col_name[i]);
			fclose(in);
			return 2;
		}
	}
	while (fgets(line, sizeof(line), in)) {
		struct inv_sample s;
		const char *w;

		lineno++;
		n = split(line, f, 32);
		rows++;
		if (n < C_NR || row_of(f, col, &s)) {
			w = "the row does not parse";
		} else {
			w = inv_check(&s, CSV_TOL_NS, why, sizeof(why));
			if (!w)
				continue;
		}
		if (bad++ < MAX_REPORTED)
			printf("samples_check: %s:%lu: %s %s %s vcpu %s iter "
			       "%s: %s\n", path, lineno,
			       n > col[C_MODE] ? f[col[C_MODE]] : "?",
			       n > col[C_SIZE] ? f[col[C_SIZE]] : "?",
			       n > col[C_DIR] ? f[col[C_DIR]] : "?",
			       n > col[C_VCPU] ? f[col[C_VCPU]] : "?",
			       n > col[C_ITER] ? f[col[C_ITER]] : "?", w);
	}
	fclose(in);
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
