/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every recorded conversion's timings must satisfy, whatever the
 * machine is: the one place that says so. convbench --debug checks each
 * sample with it before writing anything; the tests check every
 * samples.csv they make with tests/lib/samples_check, which reads the
 * CSV into the same struct.
 *
 * With the guest's t0 (request) .. t3 (whole range usable) and the
 * samples of bench/cell/guest_conv.c, the invariants are (rec: the record
 * update a v5 mode's implicit conversion's sample includes, 0 for
 * explicit ones, whose record update lies inside the exit round trip,
 * and for gmem, whose handler's record update lies inside the faulting
 * accesses):
 *   1. copy + exit_rt + after_exit + rec <= total: the parts fit
 *   2. copy + exit_rt + rec <= first <= total: the range cannot be
 *      usable before the request returns, and the first access lies
 *      inside the window (a window that ends before the range is usable
 *      breaks it)
 *   3. copy > 0 only where something is copied (destructive or gmem
 *      with --preserve), and there it is > 0
 *   4. record + memory + release <= host: the phases fit in the handler
 *   5. host <= the guest's time in which the handlers run, for the same
 *      conversion: exit_rt (explicit) or after_exit + rec (implicit:
 *      the record update, then the accesses fault): host phases
 *      credited to another conversion break this or 6
 *   6. phases that cannot occur are 0: implicit has no exit round trip
 *      of its own (the record flip stands in for a page-table bit);
 *      destructive and gmem to-shared and in-place conversions release
 *      nothing; gmem to-private allocates nothing (its memory op is the
 *      release); explicit conversions take exactly one exit, implicit
 *      ones one to size/4K; the record update (in gmem mode the
 *      handler's attribute update, both triggers), host, memory op and
 *      total are > 0
 * Host and guest TSC deltas tick at the same rate (workload.h); tol
 * absorbs rounding (0 on raw TSC deltas, 2 ns on samples.csv's ns).
 */
#ifndef CONVBENCH_INVARIANTS_H
#define CONVBENCH_INVARIANTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cell_types.h"

/* one conversion, in one unit (TSC cycles or ns) */
struct inv_sample {
	enum conv_mode mode;
	enum conv_dir dir;
	enum conv_trigger trigger;
	bool preserve;
	uint64_t size;
	uint32_t exits;
	double total, first, copy, exit_rt, after_exit;
	double host, record, mem, release;
};

/* NULL when every invariant holds, else why[] saying which and by how much */
const char *inv_check(const struct inv_sample *s, double tol, char *why,
		      size_t len);

/*
 * Every sample of a cell (tol 0 on raw TSC deltas): the number of
 * samples that break an invariant; why[] names the first (vCPU,
 * iteration, direction and the invariant).
 */
uint64_t inv_check_cell(const struct cell_result *res, double tol, char *why,
			size_t len);

#endif /* CONVBENCH_INVARIANTS_H */
