// SPDX-License-Identifier: GPL-2.0
/*
 * Progress on stderr, fed by the cell watchdog's tick (vcpu_worker.c,
 * the main thread, outside every timed window). The time left counts
 * each remaining cell at the rate its (mode, size) had in an earlier
 * round, else at the run's mean: a guess until every size has run once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"
#include "units.h"

#define TTY_EVERY_MS	500
#define LINE_EVERY_MS	5000

static uint64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC_RAW, &t);
	return t.tv_sec * 1000ULL + t.tv_nsec / 1000000;
}

void progress_init(struct progress *pg, const struct plan_cell *plan,
		   size_t ncells, const struct cell_params *proto)
{
	const char *e = getenv("CONVBENCH_PROGRESS");

	memset(pg, 0, sizeof(*pg));
	if (e && !strcmp(e, "off"))
		pg->how = PROGRESS_OFF;
	else if (e && !strcmp(e, "tty"))
		pg->how = PROGRESS_TTY;
	else if (e && !strcmp(e, "lines"))
		pg->how = PROGRESS_LINES;
	else
		pg->how = isatty(STDERR_FILENO) ? PROGRESS_TTY : PROGRESS_LINES;
	pg->plan = plan;
	pg->ncells = ncells;
	pg->duration_s = proto->duration_s;
	/* the guest counts both directions and the warm-up (guest_conv.c) */
	pg->per_cell = proto->iterations ? 2ULL * (proto->warmup +
			proto->iterations) * proto->vcpus : 0;
	pg->run_ms0 = now_ms();
}

static double *rate_of(struct progress *pg, enum conv_mode m, uint64_t size)
{
	unsigned int i;

	for (i = 0; i < pg->nrate; i++)
		if (pg->rate[i].mode == m && pg->rate[i].size == size)
			return &pg->rate[i].ms;
	return NULL;
}

static void fmt_time(double ms, char *buf, size_t len)
{
	unsigned long s = ms / 1000 + 0.5;

	if (s < 60)
		snprintf(buf, len, "%lus", s);
	else if (s < 3600)
		snprintf(buf, len, "%lum%02lus", s / 60, s % 60);
	else
		snprintf(buf, len, "%luh%02lum", s / 3600, s / 60 % 60);
}

/* ms still to go: the rest of this cell, then every later cell */
static double time_left(struct progress *pg, uint64_t done, uint64_t el)
{
	double mean = 0, cur = done ? (double)el / done : 0, left = 0, *r;
	size_t k;

	if (pg->done_convs + done)
		mean = (double)(pg->done_ms + el) / (pg->done_convs + done);
	if (pg->duration_s > 0)
		return pg->duration_s * 1000 * (pg->ncells - pg->cell) - el;
	if (pg->cell_total > done)
		left = (pg->cell_total - done) * (cur ? cur : mean);
	for (k = pg->cell + 1; k < pg->ncells; k++) {
		const struct plan_cell *c = &pg->plan[k];

		r = rate_of(pg, c->mode, c->size);
		if (!r && c->mode == pg->plan[pg->cell].mode &&
		    c->size == pg->plan[pg->cell].size)
			r = &cur;
		left += pg->per_cell * (r && *r ? *r : mean);
	}
	return left;
}

static void tick(void *arg, uint64_t done)
{
	struct progress *pg = arg;
	const struct plan_cell *c = &pg->plan[pg->cell];
	uint64_t t = now_ms(), el = t - pg->cell_ms0;
	char sz[32], left[32], of[48] = "", line[256];

	if (pg->how == PROGRESS_OFF)
		return;
	if (pg->how == PROGRESS_TTY ? t - pg->last_ms < TTY_EVERY_MS :
	    t - pg->run_ms0 < LINE_EVERY_MS || t - pg->last_ms < LINE_EVERY_MS)
		return;
	pg->last_ms = t;
	if (pg->cell_total)
		snprintf(of, sizeof(of), " of %llu",
			 (unsigned long long)pg->cell_total);
	fmt_time(time_left(pg, done, el), left, sizeof(left));
	snprintf(line, sizeof(line),
		 "convbench: cell %zu of %zu (round %u, %s %s): %llu%s conversions, %.0f/s, ~%s left",
		 pg->cell + 1, pg->ncells, c->round, conv_mode_name(c->mode),
		 size_str(c->size, sz, sizeof(sz)), (unsigned long long)done,
		 of, el ? done * 1000.0 / el : 0.0, left);
	if (pg->how == PROGRESS_TTY) {
		fprintf(stderr, "\r\033[K%s", line);
		pg->drawn = true;
	} else {
		fprintf(stderr, "%s\n", line);
	}
	fflush(stderr);
}

void progress_cell_start(struct progress *pg, size_t k, struct cell_params *p)
{
	pg->cell = k;
	pg->cell_total = pg->per_cell;
	pg->cell_ms0 = now_ms();
	p->progress = tick;
	p->progress_arg = pg;
}

void progress_cell_end(struct progress *pg, uint64_t conversions)
{
	const struct plan_cell *c = &pg->plan[pg->cell];
	uint64_t el = now_ms() - pg->cell_ms0;
	double *r = rate_of(pg, c->mode, c->size);

	if (pg->drawn) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		pg->drawn = false;
	}
	if (!conversions)
		return;
	pg->done_convs += conversions;
	pg->done_ms += el;
	if (!r && pg->nrate < PROGRESS_KEYS) {
		pg->rate[pg->nrate].mode = c->mode;
		pg->rate[pg->nrate].size = c->size;
		r = &pg->rate[pg->nrate++].ms;
	}
	if (r)
		*r = (double)el / conversions;
}
