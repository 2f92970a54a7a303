// SPDX-License-Identifier: GPL-2.0
/* convreport --markdown: the README's tables of a run, see markdown.h */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "markdown.h"
#include "repeat.h"
#include "sections.h"
#include "text.h"
#include "units.h"

static const char *md_us(double ns, char *buf, size_t len)
{
	if (isnan(ns))
		snprintf(buf, len, "-");
	else
		text_us(ns, buf, len);
	return buf;
}

/* the p50 of (m, size, d), us */
static const char *md_p50(const struct run *r, const struct run *g,
			  enum conv_mode m, uint64_t size, enum conv_dir d,
			  char *buf, size_t len)
{
	const struct jv *c = run_cell_of(r, g, m, size, d);

	return md_us(jv_num(jv_get(jv_get(c, "total_ns"), "p50"), NAN), buf,
		     len);
}

/* size | direction | p50 of each mode | in/de | gm/de | in/gm */
static void md_threeway(FILE *f, const struct run *r, const struct run *g)
{
	char a[3][32], q[3][64], sz[32];
	size_t i;
	int d, m, k;

	fprintf(f, "| size | direction | destructive | inplace | gmem | "
		"in/de | gm/de | in/gm |\n");
	fprintf(f, "| --- | --- | ---: | ---: | ---: | --- | --- | --- |\n");
	for (i = 0; i < r->nsizes; i++) {
		for (d = 0; d < DIR_NR; d++) {
			for (m = 0; m < MODE_NR; m++)
				md_p50(r, g, m, r->sizes[i], d, a[m], 32);
			for (k = 0; k < 3; k++)
				run_ratio_str(jv_get(run_ratio_k(r, k, r->sizes[i], d),
						"p50"), q[k], 64);
			fprintf(f, "| %s | %s | %s | %s | %s | %s | %s | %s |\n",
				size_str(r->sizes[i], sz, sizeof(sz)),
				conv_dir_names[d], a[MODE_DESTRUCTIVE],
				a[MODE_INPLACE], a[MODE_GMEM], q[0], q[1], q[2]);
		}
	}
}

/* size | direction | fixed per mode | each ratio raw and less fixed */
static void md_fixed(FILE *f, const struct run *r, const struct run *g)
{
	static const char *const label[3] = { "in/de", "gm/de", "in/gm" };
	char a[3][32], sz[32], raw[64], less[64];
	size_t i;
	int d, m, k;

	fprintf(f, "| size | direction | fixed de | fixed in | fixed gm |");
	for (k = 0; k < 3; k++)
		fprintf(f, " %s | less fixed |", label[k]);
	fprintf(f, "\n| --- | --- | ---: | ---: | ---: |");
	for (k = 0; k < 3; k++)
		fprintf(f, " --- | --- |");
	fprintf(f, "\n");
	for (i = 0; i < r->nsizes; i++) {
		for (d = 0; d < DIR_NR; d++) {
			for (m = 0; m < MODE_NR; m++) {
				const struct jv *c = run_cell_of(r, g, m,
							r->sizes[i], d);

				md_us(jv_num(jv_get(jv_get(c, "fixed_costs"),
					     "per_conversion_ns"), NAN), a[m], 32);
			}
			fprintf(f, "| %s | %s | %s | %s | %s |",
				size_str(r->sizes[i], sz, sizeof(sz)),
				conv_dir_names[d], a[MODE_DESTRUCTIVE],
				a[MODE_INPLACE], a[MODE_GMEM]);
			for (k = 0; k < 3; k++) {
				const struct jv *q = run_ratio_k(r, k, r->sizes[i],
							      d);

				fprintf(f, " %s | %s |",
					run_ratio_str(jv_get(q, "p50"), raw, 64),
					run_ratio_str(jv_get(q, "p50_exit_normalized"),
						 less, 64));
			}
			fprintf(f, "\n");
		}
	}
}

int markdown_tables(FILE *f, const struct run *r, const struct run *g,
		    const char *what, const char *repeat, double margin,
		    char *err, size_t errlen)
{
	if (!strcmp(what, "threeway")) {
		md_threeway(f, r, g);
	} else if (!strcmp(what, "fixed")) {
		md_fixed(f, r, g);
	} else if (!strcmp(what, "work")) {
		/* report.txt's table as it prints, in a code block */
		char *text = NULL;
		size_t len = 0;
		FILE *t = open_memstream(&text, &len);

		if (!t)
			return snprintf(err, errlen, "out of memory"), -1;
		print_work(t, r, g);
		fclose(t);
		/* print_work starts with a blank line and its caption */
		fprintf(f, "```\n%s```\n", text && strstr(text, "\n\n") ?
			strstr(text, "\n\n") + 2 : "");
		free(text);
	} else if (!strcmp(what, "repeat")) {
		if (!repeat)
			return snprintf(err, errlen, "--markdown=repeat needs "
					"--repeat=DIR (the runs to compare)"), -1;
		return repeat_markdown(f, r, repeat, margin, err, errlen);
	} else {
		return snprintf(err, errlen, "--markdown expects threeway, "
				"fixed, work or repeat, got '%s'", what), -1;
	}
	return 0;
}
