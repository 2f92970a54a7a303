// SPDX-License-Identifier: GPL-2.0
/* hist.csv: see hist_csv.h */
#include <errno.h>

#include "hist_csv.h"
#include "units.h"

const char *const hist_csv_col_name[HIST_CSV_NR] = {
	"mode", "size", "direction", "low_ns", "high_ns", "count",
};

int hist_csv_open(struct csvr_file *c, const char *path)
{
	int r = csvr_open(c, path, hist_csv_col_name, HIST_CSV_NR);

	if (!r && csvr_missing(c, (1ull << HIST_CSV_NR) - 1) >= 0)
		r = -EINVAL;
	return r;
}

int hist_csv_next(struct csvr_file *c, struct hist_csv_row *row)
{
	int r = csvr_next(c), m, d;

	if (r <= 0)
		return r;
	m = conv_mode_of(csvr_get(c, HIST_CSV_MODE));
	d = conv_dir_of(csvr_get(c, HIST_CSV_DIR));
	row->size = size_parse(csvr_get(c, HIST_CSV_SIZE));
	if (m < 0 || d < 0 || csvr_num(csvr_get(c, HIST_CSV_LOW), &row->low) ||
	    csvr_num(csvr_get(c, HIST_CSV_HIGH), &row->high) ||
	    csvr_num(csvr_get(c, HIST_CSV_COUNT), &row->count))
		return -EINVAL;
	row->mode = m;
	row->dir = d;
	return 1;
}
