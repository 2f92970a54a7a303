// SPDX-License-Identifier: GPL-2.0
/*
 * convtrace: latency histograms of the functions and KVM events that a
 * private<->shared conversion goes through, keyed by (probe, context).
 *
 * Function probes are generic slots: slot n has an fentry/fexit pair and
 * a kprobe/kretprobe pair, all without a target here. User space binds
 * each used slot to a function (bpf_program__set_attach_target() or
 * bpf_program__attach_kprobe()) and turns off autoload for the rest, so
 * one object serves any kernel and any list of functions.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#define HIST_U64 __u64
#include "convtrace.h"

/* set before load: trace this process only (0: every process) */
const volatile __u32 targ_tgid = 0;
/* set before load: syscall numbers and KVM_RUN (-1 turns a row off) */
const volatile long nr_fallocate = -1;
const volatile long nr_ioctl = -1;
const volatile long kvm_run_cmd = -1;

/* what the traced program is doing now; user space writes it (mmap'ed .bss) */
__u32 conv_context;

/*
 * When each of a thread's probes started, in task-local storage: after
 * the first call a lookup is a pointer chase, no hashing and no bucket
 * lock as with a hash map keyed by (tid, probe). ts 0: not started.
 */
struct starts {
	__u64 ts[CT_NR_PROBES];
	__u32 ctx[CT_NR_PROBES];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct starts);
} starts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	/* allocated as contexts appear, not max_entries x CPUs up front */
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, CT_MAX_HISTS);
	__type(key, struct ct_hist_key);
	__type(value, struct ct_hist);
} hists SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CT_NR_DROPS);
	__type(key, __u32);
	__type(value, __u64);
} drops SEC(".maps");

/* the initial value of a new histogram (too big for the BPF stack) */
static const struct ct_hist zero_hist;

static __always_inline bool traced(__u64 pid_tgid)
{
	return !targ_tgid || (pid_tgid >> 32) == targ_tgid;
}

static __always_inline void drop(__u32 why)
{
	__u64 *n = bpf_map_lookup_elem(&drops, &why);

	if (n)
		(*n)++;
}

static __always_inline struct ct_hist *hist_of(__u32 probe, __u32 ctx)
{
	struct ct_hist_key key = { .probe = probe, .ctx = ctx };
	struct ct_hist *h;

	h = bpf_map_lookup_elem(&hists, &key);
	if (h)
		return h;
	bpf_map_update_elem(&hists, &key, &zero_hist, BPF_NOEXIST);
	h = bpf_map_lookup_elem(&hists, &key);
	if (!h)
		drop(CT_DROP_HIST);
	return h;
}

static __always_inline void record(__u32 probe, __u32 ctx, __u64 delta)
{
	struct ct_hist *h = hist_of(probe, ctx);
	__u64 b;

	if (!h)
		return;
	/* per-CPU value: plain increments, no atomics */
	h->count++;
	h->sum_ns += delta;
	b = hist_bucket_idx_clamp(delta, CT_HIST_SUB_BITS, CT_HIST_NBUCKETS);
	/* one register for the check and the access, for the verifier */
	barrier_var(b);
	if (b < CT_HIST_NBUCKETS)
		h->slots[b]++;
}

static __always_inline void record_count(__u32 probe)
{
	struct ct_hist *h = hist_of(probe, conv_context);

	if (h)
		h->count++;
}

static __always_inline int enter(__u32 probe)
{
	struct starts *st;

	st = bpf_task_storage_get(&starts, bpf_get_current_task_btf(), 0,
				  BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!st) {
		drop(CT_DROP_START);
		return 0;
	}
	if (probe < CT_NR_PROBES) {
		st->ts[probe] = bpf_ktime_get_ns();
		st->ctx[probe] = conv_context;
	}
	return 0;
}

static __always_inline int leave(__u32 probe)
{
	__u64 now = bpf_ktime_get_ns(), ts;
	struct starts *st;

	st = bpf_task_storage_get(&starts, bpf_get_current_task_btf(), 0, 0);
	if (!st || probe >= CT_NR_PROBES)
		return 0;
	ts = st->ts[probe];
	if (!ts)
		return 0;	/* entered before we attached */
	st->ts[probe] = 0;
	record(probe, st->ctx[probe], now - ts);
	return 0;
}

static __always_inline int on_entry(__u32 probe)
{
	return traced(bpf_get_current_pid_tgid()) ? enter(probe) : 0;
}

static __always_inline int on_exit(__u32 probe)
{
	return traced(bpf_get_current_pid_tgid()) ? leave(probe) : 0;
}

#define FUNC_SLOT(n)							\
SEC("fentry")								\
int fentry_##n(void *ctx) { return on_entry(n); }			\
SEC("fexit")								\
int fexit_##n(void *ctx) { return on_exit(n); }				\
SEC("kprobe")								\
int kprobe_##n(void *ctx) { return on_entry(n); }			\
SEC("kretprobe")							\
int kretprobe_##n(void *ctx) { return on_exit(n); }

FUNC_SLOT(0)  FUNC_SLOT(1)  FUNC_SLOT(2)  FUNC_SLOT(3)
FUNC_SLOT(4)  FUNC_SLOT(5)  FUNC_SLOT(6)  FUNC_SLOT(7)
FUNC_SLOT(8)  FUNC_SLOT(9)  FUNC_SLOT(10) FUNC_SLOT(11)
FUNC_SLOT(12) FUNC_SLOT(13) FUNC_SLOT(14) FUNC_SLOT(15)
FUNC_SLOT(16) FUNC_SLOT(17) FUNC_SLOT(18) FUNC_SLOT(19)
FUNC_SLOT(20) FUNC_SLOT(21) FUNC_SLOT(22) FUNC_SLOT(23)
FUNC_SLOT(24) FUNC_SLOT(25) FUNC_SLOT(26) FUNC_SLOT(27)
FUNC_SLOT(28) FUNC_SLOT(29) FUNC_SLOT(30) FUNC_SLOT(31)

_Static_assert(CT_MAX_FUNCS == 32, "FUNC_SLOT list must match CT_MAX_FUNCS");

/*
 * fallocate(2) as the caller sees it, and the end of a VMM round trip:
 * the next ioctl(KVM_RUN) after kvm_userspace_exit (kvm_entry would do
 * too, but not every KVM implementation fires it).
 */
SEC("raw_tp/sys_enter")
int BPF_PROG(sys_enter_tp, struct pt_regs *regs, long nr)
{
	__u64 id;

	if (nr == nr_fallocate)
		return on_entry(CT_TP_ID(CT_TP_FALLOCATE));
	if (nr != nr_ioctl)
		return 0;
	id = bpf_get_current_pid_tgid();
	if (!traced(id) || PT_REGS_PARM2_CORE_SYSCALL(regs) != kvm_run_cmd)
		return 0;
	return leave(CT_TP_ID(CT_TP_KVM_USER_RT));
}

SEC("raw_tp/sys_exit")
int BPF_PROG(sys_exit_tp, struct pt_regs *regs, long ret)
{
	__u64 id = bpf_get_current_pid_tgid();

	if (!traced(id) || BPF_CORE_READ(regs, orig_ax) != nr_fallocate)
		return 0;
	return leave(CT_TP_ID(CT_TP_FALLOCATE));
}

/*
 * A vCPU thread cycles kvm_entry -> (guest) -> kvm_exit -> (KVM handles
 * it) -> kvm_entry, or -> kvm_userspace_exit -> (VMM) -> ioctl(KVM_RUN).
 * Arguments are not read, so the prototypes may differ between kernels.
 */
SEC("raw_tp/kvm_exit")
int BPF_PROG(kvm_exit_tp)
{
	return on_entry(CT_TP_ID(CT_TP_KVM_EXIT));
}

SEC("raw_tp/kvm_userspace_exit")
int BPF_PROG(kvm_userspace_exit_tp)
{
	__u64 id = bpf_get_current_pid_tgid();

	if (!traced(id))
		return 0;
	record_count(CT_TP_ID(CT_TP_KVM_USER_EXIT));
	leave(CT_TP_ID(CT_TP_KVM_EXIT));
	return enter(CT_TP_ID(CT_TP_KVM_USER_RT));
}

SEC("raw_tp/kvm_entry")
int BPF_PROG(kvm_entry_tp)
{
	return on_exit(CT_TP_ID(CT_TP_KVM_EXIT));
}

char LICENSE[] SEC("license") = "GPL";
