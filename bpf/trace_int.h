/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What trace_lib.c (loading, attaching) and trace_read.c (reading the
 * maps) share about a struct conv_trace. Not for users of the library.
 */
#ifndef CONVBENCH_TRACE_INT_H
#define CONVBENCH_TRACE_INT_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

#include "convtrace.h"

struct bpf_link;
struct convtrace_bpf;

/* raw tracepoint programs and the rows they make up */
enum {
	RT_SYS_ENTER, RT_SYS_EXIT, RT_KVM_EXIT, RT_KVM_USER_EXIT, RT_KVM_ENTRY,
	NR_RT
};

enum plan { PLAN_NONE, PLAN_FENTRY, PLAN_KPROBE };

/* the work counters' programs (convtrace.bpf.c, --counts) */
enum {
	CP_PAGE_ALLOC, CP_PAGE_FREE, CP_SET_SPTE, CP_CLEAR_HUGE, CP_ZERO_RANGE,
	CP_FIRST_USE, CP_IPI_MASK, CP_IPI_SINGLE, CP_IPI_RESCHED, CP_TLB_FLUSH,
	CP_TLB_FLUSH_END, CP_TLB_REQUEST,
	NR_CP
};

struct probe {
	char name[64];
	char ksym[64];		/* kprobe target when not name (a clone) */
	bool is_func;
	bool count_only;
	enum plan plan;
	const char *attach;	/* NULL: missing */
	char reason[224];
	struct bpf_link *links[2];
};

struct conv_trace {
	struct convtrace_bpf *skel;
	struct probe probes[CT_NR_PROBES];	/* indexed by probe id */
	struct bpf_link *rt_links[NR_RT];
	struct bpf_link *cp_links[NR_CP];
	char cp_why[NR_CP][128];	/* why a counter program is missing */
	bool counters;			/* --counts: counters only */
	bool no_tracepoints;
	int nr_funcs;
	char **ctx_names;
	unsigned int nr_ctx_names;
	int ncpus;
	FILE *log;
	bool verbose;
	bool force_kprobe;
	bool empty;		/* opts.empty */
};

/* bpf/trace_plan.c */
/* a trivial fentry program loads and attaches to btf_id: 0 or -errno */
int trace_try_fentry(int btf_id, char *why, size_t n);
/* fentry, kprobe or nothing for every function slot (probes[].plan) */
void trace_plan_funcs(struct conv_trace *t);
/* in ftrace's available_filter_functions (kprobe events require it) */
bool trace_ftrace_listed(const char *name);

/* public probe index i: functions first, then tracepoint rows */
static inline int probe_id(const struct conv_trace *t, int i)
{
	if (i < 0 || i >= t->nr_funcs + (t->no_tracepoints ? 0 : CT_NR_TP))
		return -ENOENT;
	return i < t->nr_funcs ? i : CT_MAX_FUNCS + (i - t->nr_funcs);
}

#endif /* CONVBENCH_TRACE_INT_H */
