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
/* opts.empty: function probes that return at once (trace_lib.h) */
const volatile bool ct_empty = false;

/* what the traced program is doing now; user space writes it (mmap'ed .bss) */
__u32 conv_context;

/*
 * When each of a thread's probes started, in task-local storage: after
 * the first call a lookup is a pointer chase, no hashing and no bucket
 * lock as with a hash map keyed by (tid, probe). ts 0: not started.
 * stack[] holds the function probes active in this thread, innermost
 * last; child[] the time their probed callees took, so that a probe's
 * time is reported exclusive of nested probes.
 */
struct starts {
	__u64 ts[CT_NR_PROBES];
	__u64 child[CT_NR_PROBES];
	__u32 ctx[CT_NR_PROBES];
	__u32 stack[CT_STACK];
	__u32 depth;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct starts);
} starts SEC(".maps");

/*
 * runs of the tracepoint programs in the traced process per context;
 * with the function probes' (two per call) the probes' hits
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CT_MAX_CTX);
	__type(key, __u32);
	__type(value, __u64);
} hits SEC(".maps");

/* --counts: work counters, index ctx * CTC_NR + counter */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CT_MAX_CTX * CTC_NR);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

/*
 * Preallocated (CT_MAX_HISTS x CPUs x 2.3 KB): a histogram allocated as
 * its context appears needs per-CPU memory in atomic context, which
 * fails now and then until the per-CPU allocator has grown, and the
 * first calls of a context were lost
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
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

static __always_inline void hit(void)
{
	__u32 ctx = conv_context;
	__u64 *n = bpf_map_lookup_elem(&hits, &ctx);

	if (n)
		(*n)++;
}

static __always_inline void record(__u32 probe, __u32 ctx, __u64 delta,
				   __u64 excl)
{
	struct ct_hist *h = hist_of(probe, ctx);
	__u64 b;

	if (!h)
		return;
	/* per-CPU value: plain increments, no atomics */
	h->count++;
	h->sum_ns += delta;
	h->excl_ns += excl;
	b = hist_bucket_idx_clamp(excl, CT_HIST_SUB_BITS, CT_HIST_NBUCKETS);
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

/* start probe; nest: a function probe, pushed on the thread's stack */
static __always_inline int enter(__u32 probe, bool nest)
{
	struct starts *st;
	__u32 d;

	st = bpf_task_storage_get(&starts, bpf_get_current_task_btf(), 0,
				  BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!st) {
		drop(CT_DROP_START);
		return 0;
	}
	if (probe >= CT_NR_PROBES)
		return 0;
	st->ts[probe] = bpf_ktime_get_ns();
	st->ctx[probe] = conv_context;
	st->child[probe] = 0;
	d = st->depth;
	if (nest && d < CT_STACK) {
		st->stack[d] = probe;
		st->depth = d + 1;
	}
	return 0;
}

static __always_inline int leave(__u32 probe, bool nest)
{
	__u64 now = bpf_ktime_get_ns(), ts, dur, child;
	struct starts *st;
	__u32 d, parent;

	st = bpf_task_storage_get(&starts, bpf_get_current_task_btf(), 0, 0);
	if (!st || probe >= CT_NR_PROBES)
		return 0;
	ts = st->ts[probe];
	if (!ts)
		return 0;	/* entered before we attached */
	st->ts[probe] = 0;
	dur = now - ts;
	child = st->child[probe];
	record(probe, st->ctx[probe], dur, child < dur ? dur - child : 0);
	if (!nest)
		return 0;
	/* pop this probe; its whole time is its caller's child time */
	d = st->depth;
	if (d > 0 && d <= CT_STACK && st->stack[(d - 1) & (CT_STACK - 1)] == probe) {
		st->depth = --d;
		if (d > 0) {
			parent = st->stack[(d - 1) & (CT_STACK - 1)];
			if (parent < CT_NR_PROBES)
				st->child[parent] += dur;
		}
	}
	return 0;
}

/*
 * A function probe's runs are its calls times two (entry and exit):
 * user space counts them from the histograms, so no hit() here, one
 * map access less per run.
 */
static __always_inline int on_entry(__u32 probe)
{
	if (ct_empty)
		return 0;
	if (!traced(bpf_get_current_pid_tgid()))
		return 0;
	return enter(probe, true);
}

static __always_inline int on_exit(__u32 probe)
{
	if (ct_empty)
		return 0;
	if (!traced(bpf_get_current_pid_tgid()))
		return 0;
	return leave(probe, true);
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
_Static_assert((CT_STACK & (CT_STACK - 1)) == 0, "CT_STACK: a power of two");

/*
 * fallocate(2) as the caller sees it, and the end of a VMM round trip:
 * the next ioctl(KVM_RUN) after kvm_userspace_exit (kvm_entry would do
 * too, but not every KVM implementation fires it).
 */
SEC("raw_tp/sys_enter")
int BPF_PROG(sys_enter_tp, struct pt_regs *regs, long nr)
{
	__u64 id = bpf_get_current_pid_tgid();

	if (!traced(id))
		return 0;
	/* every run in the traced process is a hit, timed or not */
	hit();
	if (nr == nr_fallocate)
		return enter(CT_TP_ID(CT_TP_FALLOCATE), false);
	if (nr != nr_ioctl || PT_REGS_PARM2_CORE_SYSCALL(regs) != kvm_run_cmd)
		return 0;
	return leave(CT_TP_ID(CT_TP_KVM_USER_RT), false);
}

SEC("raw_tp/sys_exit")
int BPF_PROG(sys_exit_tp, struct pt_regs *regs, long ret)
{
	__u64 id = bpf_get_current_pid_tgid();

	if (!traced(id))
		return 0;
	hit();
	if (BPF_CORE_READ(regs, orig_ax) != nr_fallocate)
		return 0;
	return leave(CT_TP_ID(CT_TP_FALLOCATE), false);
}

/*
 * A vCPU thread cycles kvm_entry -> (guest) -> kvm_exit -> (KVM handles
 * it) -> kvm_entry, or -> kvm_userspace_exit -> (VMM) -> ioctl(KVM_RUN).
 * Arguments are not read, so the prototypes may differ between kernels.
 */
SEC("raw_tp/kvm_exit")
int BPF_PROG(kvm_exit_tp)
{
	if (!traced(bpf_get_current_pid_tgid()))
		return 0;
	hit();
	return enter(CT_TP_ID(CT_TP_KVM_EXIT), false);
}

SEC("raw_tp/kvm_userspace_exit")
int BPF_PROG(kvm_userspace_exit_tp)
{
	__u64 id = bpf_get_current_pid_tgid();

	if (!traced(id))
		return 0;
	hit();
	record_count(CT_TP_ID(CT_TP_KVM_USER_EXIT));
	leave(CT_TP_ID(CT_TP_KVM_EXIT), false);
	return enter(CT_TP_ID(CT_TP_KVM_USER_RT), false);
}

SEC("raw_tp/kvm_entry")
int BPF_PROG(kvm_entry_tp)
{
	if (!traced(bpf_get_current_pid_tgid()))
		return 0;
	hit();
	return leave(CT_TP_ID(CT_TP_KVM_EXIT), false);
}

/* ------------------------------------------------------------------ */
/* --counts: work counters (convtrace.h, enum ct_counter)              */

static __always_inline void count(__u32 c, __u64 n)
{
	__u32 idx = conv_context * CTC_NR + c;
	__u64 *v;

	if (!traced(bpf_get_current_pid_tgid()) || c >= CTC_NR ||
	    conv_context >= CT_MAX_CTX)
		return;
	v = bpf_map_lookup_elem(&counters, &idx);
	if (v)
		*v += n;
}

/* gfp bits (include/linux/gfp_types.h, stable since 2.6) */
#define CT_GFP_HIGHMEM	0x02u
#define CT_GFP_ZERO	0x100u

SEC("raw_tp/mm_page_alloc")
int BPF_PROG(cnt_page_alloc, struct page *page, unsigned int order,
	     unsigned int gfp)
{
	/* user data: anonymous and shmem pages ask for highmem */
	if (!page || !(gfp & CT_GFP_HIGHMEM) || order > 20)
		return 0;
	count(CTC_PAGES_ALLOC, 1ULL << order);
	if (gfp & CT_GFP_ZERO)
		count(CTC_PAGES_ZEROED, 1ULL << order);
	return 0;
}

SEC("raw_tp/mm_page_free")
int BPF_PROG(cnt_page_free, struct page *page, unsigned int order)
{
	unsigned long flags = BPF_CORE_READ(page, flags);
	int bit = bpf_core_enum_value(enum pageflags, PG_swapbacked);

	if (order > 20 || bit < 0 || bit > 63 || !(flags & (1UL << bit)))
		return 0;
	count(CTC_PAGES_FREED, 1ULL << order);
	return 0;
}

SEC("raw_tp/kvm_mmu_set_spte")
int BPF_PROG(cnt_set_spte, int level)
{
	if (level >= 1 && level <= 3)
		count(CTC_SPTE_4K + level - 1, 1);
	return 0;
}

SEC("fentry/clear_huge_page")
int BPF_PROG(cnt_clear_huge, struct page *page, unsigned long addr,
	     unsigned int pages)
{
	count(CTC_PAGES_ZEROED, pages);
	return 0;
}

SEC("fentry/shmem_zero_range")
int BPF_PROG(cnt_zero_range, struct inode *inode, unsigned long start,
	     unsigned long end)
{
	/* convbench's ranges are allocated: every page is cleared */
	if (end > start)
		count(CTC_PAGES_ZEROED, end - start);
	return 0;
}

/* xarray internals (include/linux/xarray.h) */
#define XA_CHUNK_MASK	63UL

static __always_inline bool xa_internal(unsigned long e)
{
	return (e & 3) == 2;
}

/*
 * A private fault on a page that fallocate() allocated but nobody used:
 * shmem_get_folio() clears the whole folio first (inline, so no probe
 * sees it). Look the folio up the way it will and count its pages when
 * it is not uptodate yet.
 */
SEC("fentry/shmem_get_lock_pfn")
int BPF_PROG(cnt_first_use, struct inode *inode, unsigned long index)
{
	unsigned long e = (unsigned long)BPF_CORE_READ(inode, i_mapping,
						      i_pages.xa_head);
	int uptodate = bpf_core_enum_value(enum pageflags, PG_uptodate);
	int head = bpf_core_enum_value(enum pageflags, PG_head);
	struct folio *folio;
	unsigned long flags;
	int i;

	/* a file of one page keeps it in the head, for index 0 only */
	if (!(xa_internal(e) && e > 4096) && index)
		return 0;
	for (i = 0; i < 6; i++) {
		struct xa_node *node;
		unsigned char shift;
		unsigned long off;

		if (!xa_internal(e) || e <= 4096)
			break;
		node = (struct xa_node *)(e - 2);
		shift = BPF_CORE_READ(node, shift);
		off = (index >> (shift & 63)) & XA_CHUNK_MASK;
		e = (unsigned long)BPF_CORE_READ(node, slots[off]);
		/* a sibling entry points at the folio's first slot */
		if (xa_internal(e) && e < 256)
			e = (unsigned long)BPF_CORE_READ(node,
							 slots[(e >> 2) & XA_CHUNK_MASK]);
	}
	/* a folio pointer: not internal, not a value (swap) entry */
	if (!e || (e & 3) || uptodate < 0 || head < 0)
		return 0;
	folio = (struct folio *)e;
	flags = BPF_CORE_READ(folio, flags);
	if (flags & (1UL << (uptodate & 63)))
		return 0;
	count(CTC_PAGES_ZEROED, flags & (1UL << (head & 63)) ?
	      1ULL << (BPF_CORE_READ(folio, _folio_order) & 31) : 1);
	return 0;
}

/* include/linux/kvm_host.h: KVM_REQUEST_MASK, KVM_REQ_TLB_FLUSH's number */
#define CT_KVM_REQUEST_MASK	0xffu
#define CT_KVM_REQ_TLB_FLUSH	0u

/* threads inside kvm_flush_remote_tlbs() (its out-of-line copy) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u32);
} in_flush SEC(".maps");

/*
 * A remote TLB flush KVM asks for, counted once however the kernel
 * inlined it: kvm_flush_remote_tlbs() where it is called out of line,
 * and the request it makes, kvm_make_all_cpus_request(KVM_REQ_TLB_FLUSH),
 * where it is not inside that function's out-of-line copy (6.12 inlines
 * kvm_flush_remote_tlbs() into the attributes update; 6.1 may inline
 * kvm_make_all_cpus_request() into it).
 */
SEC("fentry/kvm_flush_remote_tlbs")
int BPF_PROG(cnt_tlb_flush, struct kvm *kvm)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id, one = 1;

	if (!traced(id))
		return 0;
	count(CTC_TLB_FLUSHES, 1);
	bpf_map_update_elem(&in_flush, &tid, &one, BPF_ANY);
	return 0;
}

SEC("fexit/kvm_flush_remote_tlbs")
int BPF_PROG(cnt_tlb_flush_end, struct kvm *kvm)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;

	if (traced(id))
		bpf_map_delete_elem(&in_flush, &tid);
	return 0;
}

SEC("fentry/kvm_make_all_cpus_request")
int BPF_PROG(cnt_tlb_request, struct kvm *kvm, unsigned int req)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;

	if ((req & CT_KVM_REQUEST_MASK) != CT_KVM_REQ_TLB_FLUSH ||
	    !traced(id) || bpf_map_lookup_elem(&in_flush, &tid))
		return 0;
	count(CTC_TLB_FLUSHES, 1);
	return 0;
}

SEC("fentry/native_send_call_func_ipi")
int BPF_PROG(cnt_ipi_mask, const struct cpumask *mask)
{
	/* up to 64 CPUs: the first word of the mask */
	unsigned long bits = BPF_CORE_READ(mask, bits[0]);

	count(CTC_IPIS, __builtin_popcountl(bits));
	return 0;
}

SEC("fentry/native_send_call_func_single_ipi")
int BPF_PROG(cnt_ipi_single, int cpu)
{
	count(CTC_IPIS, 1);
	return 0;
}

SEC("fentry/native_smp_send_reschedule")
int BPF_PROG(cnt_ipi_resched, int cpu)
{
	count(CTC_IPIS, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
