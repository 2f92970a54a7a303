// SPDX-License-Identifier: GPL-2.0
/* The probes' cost per hit, calibrated in the same boot: see probe_cal.h */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "probe_cal.h"
#include "stats.h"

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC_RAW, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

void probe_cal_run(struct probe_cal *c, void (*set_ctx)(void *, unsigned int),
		   void *arg, unsigned int ctx)
{
	double v[PROBE_CAL_BLOCKS], t0;
	unsigned int b, i;
	int fd;

	memset(c, 0, sizeof(*c));
	fd = memfd_create("convbench-probe-cal", MFD_CLOEXEC);
	if (fd < 0 || fallocate(fd, 0, 0, 4096)) {
		snprintf(c->why, sizeof(c->why), "no shmem page to fallocate: %s",
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	if (set_ctx)
		set_ctx(arg, ctx);
	for (b = 0; b < PROBE_CAL_BLOCKS; b++) {
		t0 = now_ns();
		for (i = 0; i < PROBE_CAL_CALLS; i++)
			if (fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 4096))
				break;
		c->block_ns[b] = now_ns() - t0;
		if (i < PROBE_CAL_CALLS) {
			snprintf(c->why, sizeof(c->why), "fallocate(KEEP_SIZE) "
				 "failed: %s", strerror(errno));
			break;
		}
		v[b] = c->block_ns[b];
	}
	if (set_ctx)
		set_ctx(arg, 0);
	close(fd);
	if (b < PROBE_CAL_BLOCKS)
		return;
	c->ns_per_call = stats_select_percentile(v, PROBE_CAL_BLOCKS, 50) /
			 PROBE_CAL_CALLS;
	c->ok = true;
}

static void cal_json(struct jsonw *w, void *arg)
{
	const struct probe_cal *c = arg;
	unsigned int b;

	jsonw_obj_open(w);
	jsonw_kv_str(w, "method", "fallocate(KEEP_SIZE) of one allocated "
		     "page of a shmem memfd (shmem_fallocate, a traced "
		     "function), in blocks before the first cell; ns per call "
		     "of the median block");
	jsonw_kv_bool(w, "ok", c->ok);
	jsonw_kv_str(w, "why", c->ok ? NULL : c->why);
	jsonw_kv_u64(w, "calls_per_block", PROBE_CAL_CALLS);
	jsonw_kv_double(w, "ns_per_call", c->ok ? c->ns_per_call : NAN);
	jsonw_key(w, "block_ns");
	jsonw_arr_open(w);
	for (b = 0; b < PROBE_CAL_BLOCKS; b++)
		jsonw_double(w, c->block_ns[b]);
	jsonw_arr_close(w);
	jsonw_kv_bool(w, "traced", c->traced);
	if (c->traced) {
		jsonw_kv_u64(w, "hits", c->hits);
		jsonw_kv_double(w, "hits_per_call", (double)c->hits /
				(PROBE_CAL_CALLS * PROBE_CAL_BLOCKS));
	}
	jsonw_obj_close(w);
}

void probe_cal_report_to(struct probe_cal *c, struct report *rep)
{
	struct report_extra e = {
		.key = "probe_calibration", .json = cal_json, .arg = c,
	};

	report_add(rep, &e);
}
