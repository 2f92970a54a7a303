// SPDX-License-Identifier: GPL-2.0
/* convreport --headline: see headline.h */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "headline.h"
#include "text.h"
#include "units.h"

static const struct jv *p50_ratio(const struct run *r, unsigned int k,
				  uint64_t size, enum conv_dir d)
{
	return jv_get(run_ratio_k(r, k, size, d), "p50");
}

/* one mode only: its cells' p50s */
static void cells_p50(FILE *f, const struct run *r, const struct run *g)
{
	char sz[32], u[2][32];
	unsigned int m, d;
	size_t i;

	text_line(f, "p50 per conversion (no ratio: one mode), us");
	text_line(f, "%-12s %-5s %-12s %s", "mode", "size", "to-shared",
		  "to-private");
	for (m = 0; m < MODE_NR; m++)
		for (i = 0; i < r->nsizes; i++) {
			bool any = false;

			for (d = 0; d < DIR_NR; d++) {
				const struct jv *c = run_cell_of(r, g, m,
							 r->sizes[i], d);

				any |= c != NULL;
				text_us(jv_num(jv_get(jv_get(c, "total_ns"),
						      "p50"), NAN), u[d], 32);
			}
			if (any)
				text_line(f, "%-12s %-5s %-12s %s",
					  conv_mode_names[m],
					  size_str(r->sizes[i], sz, sizeof(sz)),
					  u[0], u[1]);
		}
}

void headline_print(FILE *f, const struct run *r, const struct run *g)
{
	double boots = jv_num(jv_get(jv_get(r->sum, "method"),
				     "rounds_valid"), NAN);
	char sz[32], q[DIR_NR][64], line[160];
	unsigned int k, d, shown = 0;
	size_t i;

	text_wrap(f, "", "  ", r->dir);
	for (k = 0; k < 3; k++) {
		bool first = true;

		for (i = 0; i < r->nsizes; i++) {
			for (d = 0; d < DIR_NR; d++)
				run_ratio_str(p50_ratio(r, k, r->sizes[i], d),
					      q[d], sizeof(q[d]));
			if (!strcmp(q[0], "-") && !strcmp(q[1], "-"))
				continue;
			if (!shown++) {
				if (isnan(boots))
					snprintf(line, sizeof(line), "p50 ratios "
						 "with 95%% CIs over the run's "
						 "boots");
				else
					snprintf(line, sizeof(line), "p50 ratios "
						 "with 95%% CIs over the run's "
						 "%.0f boots", boots);
				text_line(f, "%s (TCG: this host's)", line);
				text_line(f, "%-6s %-4s %-22s %s", "", "size",
					  "to-shared", "to-private");
			}
			text_line(f, "%-6s %-4s %-22s %s",
				  first ? run_ratio_label[k] : "",
				  size_str(r->sizes[i], sz, sizeof(sz)), q[0],
				  q[1]);
			first = false;
		}
	}
	if (shown)
		text_wrap(f, "", "", shown > r->nsizes ?
			  "in/de: inplace over destructive, gm/de: gmem over "
			  "destructive, in/gm: inplace over gmem" :
			  "in/de: inplace over destructive (below 1: inplace "
			  "faster)");
	else
		cells_p50(f, r, g);
	snprintf(line, sizeof(line), "%s/report.txt", r->dir);
	text_wrap(f, "report: ", "  ", line);
}
