// SPDX-License-Identifier: GPL-2.0
/* samples.csv: see samples_csv.h */
#include <errno.h>
#include <string.h>

#include "samples_csv.h"
#include "units.h"

const char *const samples_col_name[SAMPLES_NR] = {
	"round", "mode", "size", "direction", "trigger", "preserve", "vcpu",
	"iter", "total_ns", "first_ns", "copy_ns", "exit_rt_ns",
	"after_exit_ns", "exits", "host_ns", "host_record_ns", "host_mem_ns",
	"host_release_ns",
};

int samples_csv_open(struct csvr_file *c, const char *path)
{
	return csvr_open(c, path, samples_col_name, SAMPLES_NR);
}

static int parse_field(const struct csvr_file *c, int i,
		       struct samples_row *row)
{
	const char *s = csvr_get(c, i);
	int x;

	switch (i) {
	case SAMPLES_MODE:
		x = conv_mode_of(s);
		row->mode = x;
		return x < 0 ? -EINVAL : 0;
	case SAMPLES_DIR:
		x = conv_dir_of(s);
		row->dir = x;
		return x < 0 ? -EINVAL : 0;
	case SAMPLES_SIZE:
		row->size = size_parse(s);
		return row->size ? 0 : -EINVAL;
	case SAMPLES_TRIGGER:
		row->implicit = !strcmp(s, "implicit");
		return 0;
	default:
		return csvr_num(s, &row->v[i]) ? -EINVAL : 0;
	}
}

int samples_csv_next(struct csvr_file *c, uint64_t need, bool skip_blank,
		     struct samples_row *row)
{
	int r, i;

	do
		r = csvr_next(c);
	while (r < 0 && skip_blank && c->blank);
	if (r <= 0)
		return r;
	memset(row, 0, sizeof(*row));
	for (i = 0; i < SAMPLES_NR; i++)
		if ((need & SAMPLES_COL(i)) && parse_field(c, i, row))
			return -EINVAL;
	return 1;
}
