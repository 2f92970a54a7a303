/* SPDX-License-Identifier: GPL-2.0 */
/*
 * convbench --counts: the work each conversion does, counted rather than
 * timed, so that it transfers from TCG to hardware. Per (mode, size,
 * direction), per conversion:
 *
 *   from KVM's binary statistics and the vCPU thread (every conversion,
 *   struct conv_work): exits, npt_faults (guest page faults KVM took),
 *   npt_fixed, host_faults (page faults of the vCPU thread, KVM's
 *   get_user_pages() included), bytes_copied (the guest);
 *   from BPF counters (per cell and direction, bpf/convtrace.h):
 *   pages_allocated, pages_freed, pages_zeroed, tlb_flush_requests (the
 *   process's own: KVM's VM-wide counter also has those of kcompactd
 *   migrating pages in the background), ipis, spte_4k, spte_2m.
 *
 * Each count is a mean per recorded conversion; for the per-conversion
 * ones min and max say whether every conversion did the same work
 * ("exact"). summary.json: cells[].work; stdout: a table.
 */
#ifndef CONVBENCH_WORK_H
#define CONVBENCH_WORK_H

#include <stddef.h>

#include "report.h"
#include "trace_hook.h"

enum work_count {
	WC_EXITS, WC_NPT_FAULTS, WC_NPT_FIXED, WC_SPTE_4K, WC_SPTE_2M,
	WC_HOST_FAULTS, WC_PAGES_ALLOC, WC_PAGES_FREED, WC_PAGES_ZEROED,
	WC_BYTES_COPIED, WC_TLB_FLUSH_REQ, WC_IPIS, WC_NR
};

extern const char *const work_count_name[WC_NR];

struct work_cell {
	bool have[WC_NR];
	double mean[WC_NR];
	double min[WC_NR], max[WC_NR];	/* per-conversion counts only */
	bool per_conversion[WC_NR];	/* min/max known */
	const char *why[WC_NR];		/* why not counted */
	size_t n;			/* conversions */
};

struct work_job {
	const struct trace_hook *hook;	/* BPF counters, or NULL */
	const struct cell_result *res;	/* every round's cells */
	const size_t *nres;
};

/*
 * why the BPF counters cannot count mode m's count c (gmem's pages freed
 * and zeroed in 6.12), or NULL: what is said instead of a number
 */
const char *work_blind(enum conv_mode m, enum work_count c);
/* the work of (mode, size, dir) over all rounds in job */
void work_of(const struct work_job *job, enum conv_mode m, uint64_t size,
	     enum conv_dir d, struct work_cell *wc);
/* cells[].work in summary.json and the table on stdout */
void work_report_to(struct work_job *job, struct report *rep);

#endif /* CONVBENCH_WORK_H */
