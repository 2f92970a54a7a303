// SPDX-License-Identifier: GPL-2.0
/* convbench --merge: reading make bench's boots, see merge.h */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "merge.h"
#include "samples.h"
#include "summary_json.h"
#include "units.h"

/* clock.env: KEY=VALUE lines (values without quotes) */
static void read_clock(struct boot *b, const char *path)
{
	char line[512], *eq, *v;
	FILE *f = fopen(path, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = 0;
		v = eq + 1;
		if (!strcmp(line, "valid") && !strcmp(v, "0"))
			b->valid = false;
		else if (!strcmp(line, "checked") && !strcmp(v, "0"))
			b->unchecked = true;
		else if (!strcmp(line, "why"))
			snprintf(b->why, sizeof(b->why), "%s", v);
		else if (!strcmp(line, "tsc_khz"))
			b->tsc_khz = atof(v);
		else if (!strcmp(line, "tsc_khz_measured"))
			b->tsc_khz_measured = atof(v);
		else if (!strcmp(line, "deviation_pct"))
			b->deviation_pct = atof(v);
		else if (!strcmp(line, "clocksource"))
			snprintf(b->clocksource, sizeof(b->clocksource), "%s", v);
		else if (!strcmp(line, "tsc_messages"))
			snprintf(b->tsc_messages, sizeof(b->tsc_messages), "%s",
				 v);
	}
	fclose(f);
}

static struct jv *load_opt(const char *dir, const char *sub)
{
	char path[4096], err[256];

	snprintf(path, sizeof(path), "%s/%s/summary.json", dir, sub);
	return access(path, R_OK) ? NULL : jsonr_load(path, err, sizeof(err));
}

/* a cell's calibration medians from its summary's fixed_costs */
static void cal_from_summary(struct cell_result *r, const struct jv *fc)
{
	static const char *const key[CAL_NR] = {
		[CAL_NULL_EXIT] = "null_exit_ns",
		[CAL_NPT_FAULT] = "npt_fault_ns",
	};
	unsigned int k;

	for (k = 0; k < CAL_NR; k++) {
		const struct jv *x = jv_get(fc, key[k]);
		double p50 = jv_num(jv_get(x, "p50"), NAN);
		double n = jv_num(jv_get(x, "n"), 0);

		r->cal_n[k] = isnan(p50) || n < 1 ? 0 : (uint32_t)n;
		r->cal_ns[k] = p50;
	}
}

/*
 * What samples.csv does not say about a cell, from the round's
 * summary.json: its wall time, conversions run, warm-up, THP setting
 */
static void cells_from_summary(struct cell_result *res, size_t n,
			       const struct jv *sum)
{
	const struct jv *cells = jv_get(sum, "cells"), *c;
	size_t i;

	for (i = 0; i < n; i++) {
		/* both directions of a cell carry the cell's values */
		c = summary_find(cells, conv_mode_name(res[i].p.mode),
				 res[i].p.size, NULL);
		if (!c)
			continue;
		res[i].wall_s = jv_num(jv_get(c, "wall_s"), 0);
		res[i].conversions = jv_num(jv_get(c, "conversions_run"),
					    res[i].conversions);
		res[i].p.warmup = jv_num(jv_get(c, "warmup"), 0);
		snprintf(res[i].thp, sizeof(res[i].thp), "%s",
			 jv_str(jv_get(c, "shmem_thp"), ""));
		cal_from_summary(&res[i], jv_get(c, "fixed_costs"));
	}
}

/*
 * NPT faults per conversion of each plain cell, as the boot's --counts
 * run counted them in the same cell (for the fixed costs, cellstats.h)
 */
static void npf_from_counts(struct cell_result *res, size_t n,
			    const struct jv *counts)
{
	const struct jv *cells = jv_get(counts, "cells");
	unsigned int d;
	size_t i;

	for (i = 0; i < n; i++) {
		for (d = 0; d < DIR_NR; d++) {
			const struct jv *c = summary_find(cells,
					conv_mode_name(res[i].p.mode),
					res[i].p.size, conv_dir_name(d));
			double v = jv_num(jv_get(jv_get(jv_get(c, "work"),
					  "npt_faults"), "per_conversion"), NAN);

			if (isnan(v))
				continue;
			res[i].npf[d] = v;
			res[i].npf_known |= 1u << d;
		}
	}
}

static void read_boot(struct boot *b, const char *dir)
{
	char path[4096], err[200];

	b->valid = true;
	snprintf(path, sizeof(path), "%s/clock.env", dir);
	read_clock(b, path);
	snprintf(path, sizeof(path), "%s/plain/samples.csv", dir);
	if (samples_read_csv(path, &b->plain, &b->nplain, err, sizeof(err)) ||
	    !b->nplain) {
		if (b->valid || !b->why[0])
			snprintf(b->why, sizeof(b->why), "no untraced round: %s",
				 b->nplain ? "empty" : err);
		b->valid = false;
	}
	b->plain_sum = load_opt(dir, "plain");
	cells_from_summary(b->plain, b->nplain, b->plain_sum);
	b->traced_sum = load_opt(dir, "traced");
	b->counts_sum = load_opt(dir, "counts");
	npf_from_counts(b->plain, b->nplain, b->counts_sum);
	snprintf(path, sizeof(path), "%s/traced/samples.csv", dir);
	if (!access(path, R_OK) &&
	    samples_read_csv(path, &b->traced, &b->ntraced, err, sizeof(err)))
		fprintf(stderr, "convbench: --merge: %s\n", err);
}

static int cmp_boot(const void *a, const void *b)
{
	const struct boot *x = a, *y = b;

	return (x->k > y->k) - (x->k < y->k);
}

int merge_read_boots(const char *dir, struct boot **boots, size_t *n,
		     char *err, size_t errlen)
{
	struct dirent *e;
	struct boot *b;
	char path[3072];
	DIR *d = opendir(dir);
	size_t i;

	*boots = NULL;
	*n = 0;
	if (!d) {
		snprintf(err, errlen, "--merge=%s: %s", dir, strerror(errno));
		return -errno;
	}
	b = calloc(MERGE_MAX_BOOTS, sizeof(*b));
	if (!b) {
		closedir(d);
		return -ENOMEM;
	}
	while ((e = readdir(d))) {
		unsigned int k;
		char tail;

		if (sscanf(e->d_name, "boot-%u%c", &k, &tail) != 1)
			continue;
		if (*n == MERGE_MAX_BOOTS) {
			snprintf(err, errlen, "--merge=%s: more than %d boots",
				 dir, MERGE_MAX_BOOTS);
			closedir(d);
			merge_free_boots(b, *n);
			return -E2BIG;
		}
		b[(*n)++].k = k;
	}
	closedir(d);
	qsort(b, *n, sizeof(*b), cmp_boot);
	for (i = 0; i < *n; i++) {
		snprintf(path, sizeof(path), "%s/boot-%u", dir, b[i].k);
		read_boot(&b[i], path);
	}
	if (!*n) {
		snprintf(err, errlen, "--merge=%s: no boot-K folders", dir);
		free(b);
		return -ENOENT;
	}
	*boots = b;
	return 0;
}

void merge_free_boots(struct boot *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		jsonr_free(b[i].plain_sum);
		jsonr_free(b[i].traced_sum);
		jsonr_free(b[i].counts_sum);
		samples_free(b[i].plain, b[i].nplain);
		samples_free(b[i].traced, b[i].ntraced);
	}
	free(b);
}
