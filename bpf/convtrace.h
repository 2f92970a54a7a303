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

#define CT_HIST_SUB_BITS	3
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
#define CT_MAX_HISTS	2048

enum ct_drop {
	CT_DROP_START,		/* no task storage: a call was not timed */
	CT_DROP_HIST,		/* histogram map full: a sample was lost */
	CT_NR_DROPS,
};

struct ct_hist_key {
	unsigned int probe;
	unsigned int ctx;	/* conv_context when the call started */
};

/* per CPU, summed in user space */
struct ct_hist {
	unsigned long long count;
	unsigned long long sum_ns;
	unsigned long long slots[CT_HIST_NBUCKETS];
};

#endif /* CONVBENCH_CONVTRACE_H */
