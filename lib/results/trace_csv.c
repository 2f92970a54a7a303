// SPDX-License-Identifier: GPL-2.0
/* trace.csv and trace-totals.csv: see trace_csv.h */
#include <errno.h>

#include "trace_csv.h"
#include "units.h"
#include "vocab.h"

const char *const trace_csv_col_name[TRACE_CSV_NR] = {
	"probe", "mode", "size", "phase", "low_ns", "high_ns", "count",
};

const char *const trace_totals_col_name[TRACE_TOTALS_NR] = {
	"probe", "attach", "mode", "size", "phase", "calls", "inclusive_ns",
	"exclusive_ns", "conversions",
};

int trace_csv_open(struct csvr_file *c, const char *path)
{
	uint64_t need = ((1ull << TRACE_CSV_NR) - 1) & ~(1ull << TRACE_CSV_HIGH);
	int r = csvr_open(c, path, trace_csv_col_name, TRACE_CSV_NR);

	return !r && csvr_missing(c, need) >= 0 ? -EINVAL : r;
}

int trace_csv_next(struct csvr_file *c, struct trace_csv_row *row)
{
	int r = csvr_next(c);

	if (r <= 0)
		return r;
	row->probe = csvr_get(c, TRACE_CSV_PROBE);
	row->mode = conv_mode_of(csvr_get(c, TRACE_CSV_MODE));
	row->size = size_parse(csvr_get(c, TRACE_CSV_SIZE));
	row->dir = conv_dir_of(csvr_get(c, TRACE_CSV_PHASE));
	if (csvr_num(csvr_get(c, TRACE_CSV_LOW), &row->low) ||
	    csvr_num(csvr_get(c, TRACE_CSV_COUNT), &row->count))
		return -EINVAL;
	return 1;
}
