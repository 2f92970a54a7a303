/* SPDX-License-Identifier: GPL-2.0 */
/*
 * convtrace as a library: load convtrace.bpf.c, attach what this kernel
 * offers, read, print and write the histograms. Used by the convtrace
 * wrapper (bpf/convtrace.c) and by convbench --trace.
 *
 *	struct conv_trace_opts o = { .tgid = 0 };	// 0: this process
 *	struct conv_trace *t = conv_trace_open(&o);	// NULL + errno
 *	conv_trace_name_context(t, 1, "destructive 4K to-shared");
 *	conv_trace_set_context(t, 1);	// before the phase it labels
 *	... work ...
 *	conv_trace_print(t, stdout);
 *	conv_trace_write_csv(t, csv);
 *	conv_trace_close(t);
 *
 * Every probe is tried at open: a function gets fentry/fexit when a test
 * attach of a trivial fentry program to it works, else kprobe/kretprobe
 * when it is in kallsyms and the kernel has kprobes (also on a compiler
 * clone NAME.constprop.N or NAME.isra.N when NAME itself is gone), else
 * it is reported missing (by name, with the reason) and the others still
 * run. Tracepoint
 * rows use raw tracepoints, which need no tracefs and no BTF of the event:
 *   sys_fallocate            fallocate(2) latency (raw_syscalls)
 *   kvm:kvm_exit             kvm_exit -> kvm_entry or kvm_userspace_exit:
 *                            KVM's own handling of an exit
 *   kvm:kvm_userspace_exit   exits to the VMM (count only)
 *   kvm:userspace_roundtrip  kvm_userspace_exit -> the thread's next
 *                            ioctl(KVM_RUN): time spent in the VMM
 *
 * Filtering is by thread group: the tgid is fixed at open (rodata), so
 * children of the traced process are not traced; opts.all traces every
 * process. Times are CLOCK_MONOTONIC ns (bpf_ktime_get_ns).
 */
#ifndef CONVBENCH_TRACE_LIB_H
#define CONVBENCH_TRACE_LIB_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct conv_trace;

struct conv_trace_opts {
	pid_t tgid;		/* process to trace; 0: the caller */
	bool all;		/* trace every process (tgid ignored) */
	bool verbose;		/* libbpf's messages and each probe's method */
	FILE *log;		/* probe report and errors; NULL: stderr */
	/* functions to time besides the default list (NULL-terminated) */
	const char *const *extra_funcs;
	bool no_default_funcs;	/* only extra_funcs (and the tracepoints) */
	bool wide;		/* the wide list instead of the default one */
	bool no_tracepoints;	/* no tracepoint rows (no syscall hooks) */
	/*
	 * the work counters of convtrace.h (enum ct_counter) and nothing
	 * else: no function timing, no tracepoint rows
	 */
	bool counters;
	bool force_kprobe;	/* kprobes even where fentry works */
	/*
	 * the function probes attach as always but return at once: the
	 * cost of the attach mechanism alone (trampolines or kprobes);
	 * their histograms stay empty
	 */
	bool empty;
};

/*
 * The functions timed by default, NULL-terminated: the three the
 * series' cost is argued about (memfile_notifier_invalidate,
 * kvm_faultin_pfn_private, shmem_fallocate) and the in-place entry
 * point shmem_convert_range. Where they nest (shmem_fallocate and
 * shmem_convert_range call memfile_notifier_invalidate) each is timed
 * exclusive of the others.
 */
extern const char *const conv_trace_default_funcs[];
/* the wide list (opts.wide, convbench --trace=all, the convtrace tool) */
extern const char *const conv_trace_wide_funcs[];

/*
 * Load and attach (opts NULL: the defaults). NULL with errno set when BPF cannot be used at all
 * (EPERM: not permitted; ENOSYS/EINVAL: no BPF; E2BIG: too many
 * functions); missing probes are not an error.
 */
struct conv_trace *conv_trace_open(const struct conv_trace_opts *opts);
void conv_trace_close(struct conv_trace *t);

/* label the calls that start from now on (0 is the initial context) */
void conv_trace_set_context(struct conv_trace *t, unsigned int ctx);
/* a name for a context in print and CSV output (copied) */
int conv_trace_name_context(struct conv_trace *t, unsigned int ctx,
			    const char *name);

struct conv_trace_probe_info {
	const char *name;	/* function, or "kvm:kvm_exit" etc. */
	const char *attach;	/* "fentry", "kprobe", "raw_tp"; NULL: missing */
	const char *reason;	/* why missing, or how it was chosen */
	bool is_func;
};

int conv_trace_nr_probes(const struct conv_trace *t);
/* probe i (0 <= i < conv_trace_nr_probes), or -ENOENT */
int conv_trace_probe_info(const struct conv_trace *t, int i,
			  struct conv_trace_probe_info *info);

/* one (probe, context) histogram, summed over CPUs */
struct conv_trace_row {
	const char *probe;
	const char *attach;
	unsigned int ctx;
	const char *ctx_name;		/* NULL when not named */
	bool count_only;		/* events without a latency */
	unsigned long long count;	/* calls (or events) */
	unsigned long long sum_ns;	/* inclusive */
	unsigned long long excl_ns;	/* exclusive of nested probes */
	/*
	 * exclusive times: bucket i counts values hist_bucket_low(i, sub_bits) ..
	 * hist_bucket_high(i, sub_bits) (lib/hist_bucket.h), the last
	 * bucket everything above; hist_add_buckets() takes them as is
	 */
	const uint64_t *buckets;
	unsigned int nr_buckets;	/* 0 for count-only rows */
	unsigned int sub_bits;
};

typedef int (*conv_trace_cb)(const struct conv_trace_row *row, void *arg);

/*
 * Call cb for every attached probe and context seen, in probe order then
 * context order; an attached probe that never fired gives one row with
 * ctx 0 and count 0. A non-zero return of cb stops and is returned.
 * Returns 0 or a negative errno.
 */
int conv_trace_read(struct conv_trace *t, conv_trace_cb cb, void *arg);
/* forget all samples (probes stay attached) */
int conv_trace_reset(struct conv_trace *t);
/* calls not timed (no task storage) or samples lost (histogram map full) */
unsigned long long conv_trace_drops(struct conv_trace *t);
/* all calls and events counted so far (for overhead per hit) */
unsigned long long conv_trace_hits(struct conv_trace *t);
/*
 * BPF program runs in the traced process under context ctx, its hits:
 * two per call of a function probe, one per tracepoint program run
 */
unsigned long long conv_trace_ctx_hits(struct conv_trace *t, unsigned int ctx);
/*
 * opts.counters: counter c (enum ct_counter) summed over CPUs for ctx
 * into *val: 0, or -ENOENT when a program it needs is not attached
 * (why, if not NULL, says which and why)
 */
int conv_trace_counter(struct conv_trace *t, unsigned int ctx, unsigned int c,
		       unsigned long long *val, const char **why);

/* summary table, then funclatency-style histograms, then missing probes */
int conv_trace_print(struct conv_trace *t, FILE *f);
/*
 * "PREFIXnot traced: NAME NAME... [REASON]" lines, grouped by reason;
 * without absent_too, not for functions this kernel lacks (the default
 * set names both kernels' functions: the other's are absent by design).
 * Returns how many probes it left out.
 */
int conv_trace_print_missing(struct conv_trace *t, FILE *f, bool absent_too,
			     const char *prefix);
/*
 * CSV, one line per non-empty bucket:
 *   probe,attach,context,context_name,count,sum_ns,lo_ns,hi_ns,n
 * a probe without samples (or count-only) has empty lo_ns,hi_ns,n;
 * missing probes follow as "# missing,NAME,REASON" comment lines.
 */
int conv_trace_write_csv(struct conv_trace *t, FILE *f);

#endif /* CONVBENCH_TRACE_LIB_H */
