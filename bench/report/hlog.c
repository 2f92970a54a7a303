// SPDX-License-Identifier: GPL-2.0
/* latencies.hlog: see hlog.h */
#include <errno.h>
#include <math.h>
#include <time.h>

#include "cellstats.h"
#include "hdrlog.h"
#include "hlog.h"
#include "units.h"

int latencies_write_hlog(FILE *f, const struct cell_result *res, size_t n)
{
	struct timespec now;
	struct hdr_log log;
	struct hdr_hist *h;
	uint64_t j, above = 0;
	double at = 0, wall = 0;
	char tag[96], sz[32];
	unsigned int d;
	size_t i;
	int e;

	for (i = 0; i < n; i++)
		wall += res[i].wall_s > 0 ? res[i].wall_s : 0;
	clock_gettime(CLOCK_REALTIME, &now);
	now.tv_sec -= (time_t)ceil(wall);
	e = hdr_new(1, HLOG_HIGHEST, HDR_SIGFIGS_DEFAULT, &h);
	if (e)
		return e;
	e = hdr_log_open(&log, f, &now, "convbench latencies: total ns per "
			 "conversion, one tag per cell, one interval per round "
			 "and direction");
	for (i = 0; i < n && !e; i++) {
		const struct cell_result *cr = &res[i];
		double len = cr->wall_s > 0 ? cr->wall_s : 0;

		for (d = 0; d < DIR_NR && !e; d++) {
			if (!(cr->p.dir_mask & (1u << d)))
				continue;
			hdr_reset(h);
			for (j = 0; j < cr->n; j++) {
				const struct conv_sample *s = &cr->samples[j];
				double v = round(tsc_ns(cr, s->total));

				if (s->dir != d)
					continue;
				if (v > (double)HLOG_HIGHEST ||
				    hdr_record(h, (uint64_t)v))
					above++;
			}
			snprintf(tag, sizeof(tag), "%s-%s-%s",
				 conv_mode_name(cr->p.mode),
				 size_str(cr->p.size, sz, sizeof(sz)),
				 conv_dir_name(d));
			e = hdr_log_write(&log, tag, at, len, h);
		}
		at += len;
	}
	if (!e && above && fprintf(f, "#[%llu samples above %llu ns left out]\n",
				   (unsigned long long)above,
				   (unsigned long long)HLOG_HIGHEST) < 0)
		e = -EIO;
	hdr_free(h);
	return e ? e : ferror(f) ? -EIO : 0;
}
