// SPDX-License-Identifier: GPL-2.0
/* Timing invariants of a conversion: see invariants.h for the list */
#include <stdio.h>

#include "invariants.h"

static const char *broken(char *why, size_t len, const char *fmt, double a,
			  double b)
{
	snprintf(why, len, fmt, a, b);
	return why;
}

const char *inv_check(const struct inv_sample *s, double tol, char *why,
		      size_t len)
{
	bool gmem = s->mode == MODE_GMEM;
	bool copies = (s->mode == MODE_DESTRUCTIVE || gmem) && s->preserve;
	bool implicit = s->trigger == TRIGGER_IMPLICIT;
	/* gmem to-private allocates nothing: dropping the shared page is all */
	bool drop_only = gmem && s->dir == DIR_TO_PRIVATE;
	double memop = drop_only ? s->release : s->mem;
	/*
	 * the v5 modes' implicit record update is added to the sample; gmem's
	 * is the handler's, inside the faulting accesses already
	 */
	double rec = implicit && !gmem ? s->record : 0;
	double window = implicit ? s->after_exit + rec : s->exit_rt;
	uint64_t pages = s->size / 4096;

	if (!(s->total > 0))
		return broken(why, len, "total %.0f is not > 0 (%.0f)",
			      s->total, 0);
	if (s->copy + s->exit_rt + s->after_exit + rec > s->total + tol)
		return broken(why, len, "copy + exit round trip + after exit "
			      "(+ record update, implicit) %.0f > total %.0f",
			      s->copy + s->exit_rt + s->after_exit + rec,
			      s->total);
	if (s->first > s->total + tol)
		return broken(why, len, "first access %.0f after the end of "
			      "the window (total %.0f)", s->first, s->total);
	/* the access itself takes time: first is after the return, strictly */
	if (s->first <= s->copy + s->exit_rt + rec + tol)
		return broken(why, len, "first access %.0f not after the "
			      "request returned (copy + exit round trip + "
			      "record %.0f)", s->first, s->copy + s->exit_rt + rec);
	if (!copies && s->copy != 0)
		return broken(why, len, "copy %.0f where nothing is copied "
			      "(%.0f expected)", s->copy, 0);
	if (copies && !(s->copy > 0))
		return broken(why, len, "copy %.0f where the data is copied "
			      "aside (> %.0f expected)", s->copy, 0);
	if (s->record + s->mem + s->release > s->host + tol)
		return broken(why, len, "host phases %.0f > host handler %.0f",
			      s->record + s->mem + s->release, s->host);
	if (s->host > window + tol)
		return broken(why, len, implicit ?
			      "host handler %.0f outside the record update and "
			      "the guest's faulting accesses %.0f" :
			      "host handler %.0f outside the guest's exit round "
			      "trip %.0f", s->host, window);
	if (!(s->host > 0) || !(memop > 0))
		return broken(why, len, "host handler %.0f or memory op %.0f "
			      "is 0 (no exit credited)", s->host, memop);
	if (drop_only && s->mem != 0)
		return broken(why, len, "gmem to-private: memory op %.0f where "
			      "nothing is allocated (%.0f expected)", s->mem, 0);
	if (implicit && s->exit_rt != 0)
		return broken(why, len, "implicit: exit round trip %.0f is not "
			      "%.0f", s->exit_rt, 0);
	if (!(s->record > 0))
		return broken(why, len, gmem ?
			      "gmem: record update %.0f is not > %.0f (the "
			      "handler sets the attributes)" :
			      "record update %.0f is not > %.0f",
			      s->record, 0);
	if ((s->mode == MODE_INPLACE || s->dir == DIR_TO_SHARED) &&
	    s->release != 0)
		return broken(why, len, "release %.0f where nothing is "
			      "released (%.0f expected)", s->release, 0);
	if (!implicit && s->exits != 1)
		return broken(why, len, "explicit: %.0f exits, expected %.0f",
			      s->exits, 1);
	if (implicit && (s->exits < 1 || s->exits > pages))
		return broken(why, len, "implicit: %.0f exits, expected 1 to "
			      "%.0f (one per page at most)", s->exits, pages);
	return NULL;
}

uint64_t inv_check_cell(const struct cell_result *res, double tol, char *why,
			size_t len)
{
	uint64_t i, bad = 0;
	char buf[256];

	for (i = 0; i < res->n; i++) {
		const struct conv_sample *c = &res->samples[i];
		struct inv_sample s = {
			.mode = res->p.mode,
			.dir = c->dir,
			.trigger = res->p.trigger,
			.preserve = res->p.preserve,
			.size = res->p.size,
			.exits = c->exits,
			.total = c->total,
			.first = c->first,
			.copy = c->copy,
			.exit_rt = c->exit_rt,
			.after_exit = c->fault_in,
			.host = c->host,
			.record = c->host_record,
			.mem = c->host_mem,
			.release = c->host_release,
		};

		if (!inv_check(&s, tol, buf, sizeof(buf)))
			continue;
		if (!bad++)
			snprintf(why, len, "vCPU %u iteration %u %s: %s (TSC "
				 "cycles)", c->vcpu, c->iter, conv_dir_name(c->dir), buf);
	}
	return bad;
}
