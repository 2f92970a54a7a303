/* SPDX-License-Identifier: GPL-2.0 */
/*
 * samples.csv: every recorded conversion of a run, one row, times in
 * whole ns, sizes spelled as lib/units.h does. Its columns (in the
 * order convbench writes them) and the one reader of its rows:
 * convbench --merge (bench/report/samples.c), convreport's CDFs
 * (analysis/runfiles.c) and samples_check (tests/lib/).
 */
#ifndef CONVBENCH_SAMPLES_CSV_H
#define CONVBENCH_SAMPLES_CSV_H

#include <stdbool.h>
#include <stdint.h>

#include "csvr.h"
#include "vocab.h"

enum samples_col {
	SAMPLES_ROUND, SAMPLES_MODE, SAMPLES_SIZE, SAMPLES_DIR,
	SAMPLES_TRIGGER, SAMPLES_PRESERVE, SAMPLES_VCPU, SAMPLES_ITER,
	SAMPLES_TOTAL, SAMPLES_FIRST, SAMPLES_COPY, SAMPLES_EXIT_RT,
	SAMPLES_AFTER, SAMPLES_EXITS, SAMPLES_HOST, SAMPLES_RECORD,
	SAMPLES_MEM, SAMPLES_RELEASE, SAMPLES_NR
};

/* round,mode,size,direction,trigger,preserve,vcpu,iter,total_ns,... */
extern const char *const samples_col_name[SAMPLES_NR];

#define SAMPLES_ALL	((1ull << SAMPLES_NR) - 1)
#define SAMPLES_COL(c)	(1ull << (c))

/* a row: the columns asked for parsed, the others left 0 */
struct samples_row {
	double v[SAMPLES_NR];	/* the numeric columns */
	enum conv_mode mode;
	enum conv_dir dir;
	uint64_t size;
	bool implicit;		/* trigger: "implicit", else explicit */
};

/* csvr_open() of a samples.csv; csvr_missing(c, need) names a column absent */
int samples_csv_open(struct csvr_file *c, const char *path);
/*
 * the next row, need's columns parsed into *row: 1; 0 at the end;
 * -EINVAL when the row is short or one of need's columns does not
 * parse (a number, a mode, a direction, a size). Blank rows are passed
 * over only when skip_blank.
 */
int samples_csv_next(struct csvr_file *c, uint64_t need, bool skip_blank,
		     struct samples_row *row);

#endif /* CONVBENCH_SAMPLES_CSV_H */
