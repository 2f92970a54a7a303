/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What convtrace.bpf.c and user space share: probe numbering, map keys
 * and values. Plain C, no kernel types.
 *
 * Probe ids: 0..CT_MAX_FUNCS-1 are function slots (fentry/fexit or
 * kprobe/kretprobe pairs, each bound to a function name at run time by
 * trace_lib.c), then the tracepoint rows of enum ct_tp.
 */
#ifndef CONVBENCH_CONVTRACE_H
#define CONVBENCH_CONVTRACE_H

/*
 * Latency buckets: lib/hist_bucket.h with 2^3 sub-buckets per power of
 * two (12.5 % wide), up to 2^(CT_HIST_MAX_LOG2 + 1) ns (137 s); longer
 * calls land in the last bucket. lib/hist.c reads the same layout.
 */
#include "hist_bucket.h"

#define CT_HIST_SUB_BITS	TRACE_HIST_SUB_BITS
#define CT_HIST_MAX_LOG2	36
#define CT_HIST_NBUCKETS	\
	((CT_HIST_MAX_LOG2 - CT_HIST_SUB_BITS + 2) << CT_HIST_SUB_BITS)

#define CT_MAX_FUNCS	32

enum ct_tp {
	CT_TP_FALLOCATE,	/* fallocate(2): raw_syscalls sys_enter -> sys_exit */
	CT_TP_KVM_EXIT,		/* kvm_exit -> kvm_entry or kvm_userspace_exit */
	CT_TP_KVM_USER_EXIT,	/* kvm_userspace_exit events (count only) */
	CT_TP_KVM_USER_RT,	/* kvm_userspace_exit -> next ioctl(KVM_RUN): VMM time */
	CT_NR_TP,
};

#define CT_TP_ID(tp)	(CT_MAX_FUNCS + (tp))
#define CT_NR_PROBES	(CT_MAX_FUNCS + CT_NR_TP)

/* histograms kept: probes x contexts */
#define CT_MAX_HISTS	1024
/* contexts with a hit counter and work counters (0 .. CT_MAX_CTX - 1) */
#define CT_MAX_CTX	1024
/* function probes active at once in one thread (nesting depth) */
#define CT_STACK	8

/*
 * Work counters (convbench --counts), per context, for the traced
 * process only:
 *   PAGES_ALLOC   pages of user data allocated (kmem:mm_page_alloc with
 *                 __GFP_HIGHMEM: anonymous and shmem pages; not page
 *                 tables or slab), 2^order each
 *   PAGES_FREED   pages freed that were anonymous or shmem (kmem:
 *                 mm_page_free of a PG_swapbacked page)
 *   PAGES_ZEROED  pages cleared: allocated with __GFP_ZERO (as above),
 *                 by clear_huge_page(), by shmem_zero_range() and, at a
 *                 private fault (shmem_get_lock_pfn()), the pages of a
 *                 fallocated folio that shmem clears on first use
 *   IPIS          interprocessor interrupts sent (call-function, single
 *                 and reschedule IPIs, one per target CPU)
 *   TLB_FLUSHES   KVM remote TLB flushes the traced process asked for
 *                 (kvm_make_all_cpus_request(KVM_REQ_TLB_FLUSH), which
 *                 kvm_flush_remote_tlbs() makes and 6.12's attributes
 *                 update makes inline; not those of kcompactd or other
 *                 threads, which KVM's VM-wide counter includes)
 *   SPTE_4K..1G   leaf SPTEs KVM installed, by level
 *                 (kvmmmu:kvm_mmu_set_spte)
 */
enum ct_counter {
	CTC_PAGES_ALLOC,
	CTC_PAGES_FREED,
	CTC_PAGES_ZEROED,
	CTC_IPIS,
	CTC_TLB_FLUSHES,
	CTC_SPTE_4K,
	CTC_SPTE_2M,
	CTC_SPTE_1G,
	CTC_NR,
};

enum ct_drop {
	CT_DROP_START,		/* no task storage: a call was not timed */
	CT_DROP_HIST,		/* histogram map full: a sample was lost */
	CT_NR_DROPS,
};

struct ct_hist_key {
	unsigned int probe;
	unsigned int ctx;	/* conv_context when the call started */
};

/*
 * per CPU, summed in user space. Function probes are timed exclusive of
 * the probed functions they call (a per-thread stack of active probes):
 * slots[] and excl_ns hold the exclusive time, sum_ns the inclusive;
 * for tracepoint rows both are the same span.
 */
struct ct_hist {
	unsigned long long count;
	unsigned long long sum_ns;
	unsigned long long excl_ns;
	unsigned long long slots[CT_HIST_NBUCKETS];
};

#endif /* CONVBENCH_CONVTRACE_H */
