// SPDX-License-Identifier: GPL-2.0
/*
 * convtrace's loader: decide per function how to probe it on this kernel
 * (fentry/fexit, kprobe/kretprobe or not at all), load the skeleton with
 * only the programs that will be used, attach, and read the per-CPU
 * histograms back. Printing and CSV are in trace_out.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <linux/kvm.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "convtrace.h"
#include "convtrace.skel.h"
#include "trace_int.h"
#include "trace_lib.h"

const char *const conv_trace_default_funcs[] = {
	"memfile_notifier_invalidate",
	"kvm_faultin_pfn_private",
	"shmem_fallocate",
	/* the in-place entry point (our 0028, noclone there) */
	"shmem_convert_range",
	/*
	 * their counterparts in guest_memfd as merged (the 6.12 kernel,
	 * --mode=gmem; kvm_faultin_pfn_private keeps its name): missing in
	 * 6.1 as the v5 functions are in 6.12, each reported by name
	 */
	"kvm_gmem_invalidate_begin",
	"kvm_gmem_fallocate",
	"kvm_vm_set_mem_attributes",
	NULL,
};

const char *const conv_trace_wide_funcs[] = {
	/* the series' hooks */
	"shmem_fallocate",
	"memfile_notifier_invalidate",
	"memfile_notifier_fallocate",
	"kvm_memfile_notifier_handler",
	/* both out of line only with our noinline patch (0026) */
	"kvm_faultin_pfn_private",
	"kvm_vm_ioctl_set_sw_private_range",
	/* in-place conversion (our 0028) and its phases */
	"shmem_convert_range",
	"shmem_check_unused",
	"shmem_zero_range",
	"lru_add_drain_all",
	/*
	 * guest_memfd as merged (the 6.12 kernel, --mode=gmem): the punch,
	 * its zap, the page lookup of a private fault, the attributes update
	 * and its zap (static ones out of line by kernel/patches-6.12 0002)
	 */
	"kvm_gmem_fallocate",
	"kvm_gmem_punch_hole",
	"kvm_gmem_invalidate_begin",
	"kvm_gmem_get_pfn",
	"kvm_vm_set_mem_attributes",
	"kvm_arch_pre_set_memory_attributes",
	/* KVM zap and TLB flush */
	"kvm_unmap_gfn_range",
	"kvm_tdp_mmu_unmap_gfn_range",
	"kvm_flush_remote_tlbs",
	"kvm_tdp_page_fault",
	/* shmem page freeing, allocation, lookup for KVM */
	"shmem_undo_range",
	"shmem_alloc_folio",
	"shmem_get_lock_pfn",
	/*
	 * page clearing: clear_page() picks one by CPU feature
	 * (alternatives); assembly without an ftrace nop, so no fentry:
	 * these show the kprobe fallback at work
	 */
	"clear_page_erms",
	"clear_page_rep",
	"clear_page_orig",
	NULL,
};

/* the counter programs and their attach points (trace_int.h CP_*) */
static const struct {
	const char *prog;
	const char *target;	/* a function (fentry) or a raw tracepoint */
	bool raw_tp;
} cp_info[NR_CP] = {
	[CP_PAGE_ALLOC] = { "cnt_page_alloc", "mm_page_alloc", true },
	[CP_PAGE_FREE] = { "cnt_page_free", "mm_page_free", true },
	[CP_SET_SPTE] = { "cnt_set_spte", "kvm_mmu_set_spte", true },
	[CP_CLEAR_HUGE] = { "cnt_clear_huge", "clear_huge_page" },
	[CP_ZERO_RANGE] = { "cnt_zero_range", "shmem_zero_range" },
	[CP_FIRST_USE] = { "cnt_first_use", "shmem_get_lock_pfn" },
	[CP_IPI_MASK] = { "cnt_ipi_mask", "native_send_call_func_ipi" },
	[CP_IPI_SINGLE] = { "cnt_ipi_single",
			    "native_send_call_func_single_ipi" },
	[CP_IPI_RESCHED] = { "cnt_ipi_resched", "native_smp_send_reschedule" },
	[CP_TLB_FLUSH] = { "cnt_tlb_flush", "kvm_flush_remote_tlbs" },
	[CP_TLB_FLUSH_END] = { "cnt_tlb_flush_end", "kvm_flush_remote_tlbs" },
	[CP_TLB_REQUEST] = { "cnt_tlb_request", "kvm_make_all_cpus_request" },
};

static const char *const rt_names[NR_RT] = {
	"sys_enter", "sys_exit", "kvm_exit", "kvm_userspace_exit", "kvm_entry",
};

static const struct {
	const char *name;
	unsigned int needs;	/* 1 << RT_* */
	bool count_only;
} tp_rows[CT_NR_TP] = {
	[CT_TP_FALLOCATE] = { "sys_fallocate",
		1 << RT_SYS_ENTER | 1 << RT_SYS_EXIT },
	[CT_TP_KVM_EXIT] = { "kvm:kvm_exit",
		1 << RT_KVM_EXIT | 1 << RT_KVM_ENTRY | 1 << RT_KVM_USER_EXIT },
	[CT_TP_KVM_USER_EXIT] = { "kvm:kvm_userspace_exit",
		1 << RT_KVM_USER_EXIT, true },
	[CT_TP_KVM_USER_RT] = { "kvm:userspace_roundtrip",
		1 << RT_KVM_USER_EXIT | 1 << RT_SYS_ENTER },
};

static struct bpf_program *rt_prog(struct convtrace_bpf *s, int rt)
{
	switch (rt) {
	case RT_SYS_ENTER:	return s->progs.sys_enter_tp;
	case RT_SYS_EXIT:	return s->progs.sys_exit_tp;
	case RT_KVM_EXIT:	return s->progs.kvm_exit_tp;
	case RT_KVM_USER_EXIT:	return s->progs.kvm_userspace_exit_tp;
	default:		return s->progs.kvm_entry_tp;
	}
}

static int quiet_print(enum libbpf_print_level l __attribute__((unused)),
		       const char *f __attribute__((unused)),
		       va_list ap __attribute__((unused)))
{
	return 0;
}

static int verbose_print(enum libbpf_print_level l __attribute__((unused)),
			 const char *f, va_list ap)
{
	return vfprintf(stderr, f, ap);
}

static void __attribute__((format(printf, 2, 3)))
say(const struct conv_trace *t, const char *fmt, ...)
{
	va_list ap;

	fprintf(t->log, "convtrace: ");
	va_start(ap, fmt);
	vfprintf(t->log, fmt, ap);
	va_end(ap);
	fputc('\n', t->log);
}

/* slot n's programs, found by name: the skeleton has no array of them */
static struct bpf_program *slot_prog(struct conv_trace *t, const char *kind,
				     int n)
{
	char name[32];

	snprintf(name, sizeof(name), "%s_%d", kind, n);
	return bpf_object__find_program_by_name(t->skel->obj, name);
}

/*
 * The counter programs: loaded only with opts.counters, each fentry one
 * only where its function can be attached (else the reason is kept and
 * the counters that need it say so)
 */
static void plan_counters(struct conv_trace *t, struct btf *btf)
{
	struct bpf_program *prog;
	int p, id;

	for (p = 0; p < NR_CP; p++) {
		prog = bpf_object__find_program_by_name(t->skel->obj,
							cp_info[p].prog);
		if (!prog)
			continue;
		if (!t->counters) {
			bpf_program__set_autoload(prog, false);
			continue;
		}
		if (cp_info[p].raw_tp)
			continue;
		id = btf ? btf__find_by_name_kind(btf, cp_info[p].target,
						  BTF_KIND_FUNC) : -ENOENT;
		if (id < 0) {
			snprintf(t->cp_why[p], sizeof(t->cp_why[p]),
				 "%s: no BTF FUNC", cp_info[p].target);
			bpf_program__set_autoload(prog, false);
		} else if (trace_try_fentry(id, t->cp_why[p], sizeof(t->cp_why[p]))) {
			bpf_program__set_autoload(prog, false);
		}
	}
}

static void attach_counters(struct conv_trace *t)
{
	struct bpf_program *prog;
	int p, err;

	for (p = 0; p < NR_CP && t->counters; p++) {
		prog = bpf_object__find_program_by_name(t->skel->obj,
							cp_info[p].prog);
		if (!prog || !bpf_program__autoload(prog))
			continue;
		t->cp_links[p] = cp_info[p].raw_tp ?
			bpf_program__attach_raw_tracepoint(prog, cp_info[p].target) :
			bpf_program__attach_trace(prog);
		err = libbpf_get_error(t->cp_links[p]);
		if (err) {
			t->cp_links[p] = NULL;
			snprintf(t->cp_why[p], sizeof(t->cp_why[p]),
				 "%s: attach failed (%s)", cp_info[p].target,
				 strerror(-err));
		}
	}
}

static int set_autoload(struct conv_trace *t, bool funcs)
{
	static const char *const kinds[] = { "fentry", "fexit", "kprobe",
					     "kretprobe" };
	struct bpf_program *prog;
	enum plan want;
	int n, k, err;

	for (n = 0; n < CT_MAX_FUNCS; n++) {
		for (k = 0; k < 4; k++) {
			prog = slot_prog(t, kinds[k], n);
			if (!prog)
				return -ENOENT;
			want = k < 2 ? PLAN_FENTRY : PLAN_KPROBE;
			if (!funcs || n >= t->nr_funcs ||
			    t->probes[n].plan != want) {
				bpf_program__set_autoload(prog, false);
				continue;
			}
			if (want == PLAN_FENTRY) {
				err = bpf_program__set_attach_target(prog, 0,
							t->probes[n].name);
				if (err)
					return err;
			}
		}
	}
	return 0;
}

static void attach_funcs(struct conv_trace *t)
{
	struct probe *p;
	const char *kind;
	int n, k, err;

	for (n = 0; n < t->nr_funcs; n++) {
		p = &t->probes[n];
		if (p->plan == PLAN_NONE)
			continue;
		for (k = 0; k < 2; k++) {
			if (p->plan == PLAN_FENTRY) {
				kind = k ? "fexit" : "fentry";
				p->links[k] = bpf_program__attach_trace(
					slot_prog(t, kind, n));
			} else {
				kind = k ? "kretprobe" : "kprobe";
				p->links[k] = bpf_program__attach_kprobe(
					slot_prog(t, kind, n), k, p->ksym);
			}
			err = libbpf_get_error(p->links[k]);
			if (err) {
				p->links[k] = NULL;
				snprintf(p->reason, sizeof(p->reason),
					 "%s attach failed (%s)%s", kind,
					 strerror(-err),
					 err == -EINVAL && p->plan == PLAN_KPROBE &&
					 !trace_ftrace_listed(p->ksym) ?
					 ": a notrace function, kprobe events need CONFIG_KPROBE_EVENTS_ON_NOTRACE=y" : "");
				bpf_link__destroy(p->links[0]);
				p->links[0] = NULL;
				break;
			}
		}
		if (p->links[0])
			p->attach = p->plan == PLAN_FENTRY ? "fentry" : "kprobe";
	}
}

static void attach_tracepoints(struct conv_trace *t)
{
	char why[NR_RT][64];
	struct probe *p;
	int rt, i, err;

	for (rt = 0; rt < NR_RT; rt++) {
		if (t->no_tracepoints) {
			snprintf(why[rt], sizeof(why[rt]), "not asked for");
			continue;
		}
		t->rt_links[rt] = bpf_program__attach_raw_tracepoint(
				rt_prog(t->skel, rt), rt_names[rt]);
		err = libbpf_get_error(t->rt_links[rt]);
		if (err) {
			t->rt_links[rt] = NULL;
			snprintf(why[rt], sizeof(why[rt]),
				 "raw tracepoint %s: %s", rt_names[rt],
				 strerror(-err));
		}
	}
	for (i = 0; i < CT_NR_TP; i++) {
		p = &t->probes[CT_TP_ID(i)];
		p->attach = "raw_tp";
		for (rt = 0; rt < NR_RT; rt++) {
			if (!(tp_rows[i].needs & 1 << rt) || t->rt_links[rt])
				continue;
			p->attach = NULL;
			snprintf(p->reason, sizeof(p->reason), "%s", why[rt]);
		}
	}
}

static void say_attached(struct conv_trace *t)
{
	int n, fentry = 0, kprobe = 0, tps = 0, absent;
	char lacks[80] = "";
	struct probe *p;

	for (n = 0; n < CT_NR_PROBES; n++) {
		p = &t->probes[n];
		if (!p->name[0])
			continue;
		if (!p->attach)
			continue;
		if (!p->is_func)
			tps++;
		else if (!strcmp(p->attach, "fentry"))
			fentry++;
		else
			kprobe++;
		if (t->verbose)
			say(t, "%s: %s%s%s", p->name, p->attach,
			    p->reason[0] ? " because " : "", p->reason);
	}
	/*
	 * functions this kernel lacks are named with -v only: the default
	 * set covers both of the project's kernels (trace.txt names them)
	 */
	absent = conv_trace_print_missing(t, t->log, t->verbose, "convtrace: ");
	if (absent)
		snprintf(lacks, sizeof(lacks), ", %d not in this kernel%s", absent,
			 t->verbose ? "" : " (-v names them)");
	if (t->counters) {
		absent = 0;
		for (n = 0, tps = 0; n < NR_CP; n++) {
			tps += t->cp_links[n] != NULL;
			if (t->cp_links[n])
				continue;
			if (!t->verbose && strstr(t->cp_why[n], ": no BTF FUNC"))
				absent++;
			else
				say(t, "counter program %s missing: %s",
				    cp_info[n].prog, t->cp_why[n]);
		}
		if (absent)
			snprintf(lacks, sizeof(lacks), ", %d for functions not in this kernel (-v names them)",
				 absent);
		else
			lacks[0] = '\0';
		say(t, "%d of %d counter programs attached%s", tps, NR_CP, lacks);
		return;
	}
	say(t, "%d of %d functions attached (fentry %d, kprobe %d)%s, %d of %d tracepoint rows",
	    fentry + kprobe, t->nr_funcs, fentry, kprobe, lacks, tps,
	    t->no_tracepoints ? 0 : CT_NR_TP);
}

static int add_func(struct conv_trace *t, const char *name)
{
	int i;

	for (i = 0; i < t->nr_funcs; i++)
		if (!strcmp(t->probes[i].name, name))
			return 0;
	if (t->nr_funcs >= CT_MAX_FUNCS ||
	    strlen(name) >= sizeof(t->probes[0].name))
		return -E2BIG;
	snprintf(t->probes[t->nr_funcs].name, sizeof(t->probes[0].name),
		 "%s", name);
	t->probes[t->nr_funcs++].is_func = true;
	return 0;
}

/*
 * open and load the BPF object for conv_trace_open(): false, or true
 * with *err (-errno, or 0) when it failed, having said why
 */
static bool load_programs(struct conv_trace *t, pid_t tgid, bool funcs,
			  int *err)
{
	int i, attempt;

	/*
	 * a kernel that loads the tracepoints but not the function probes
	 * still gives the tracepoint rows: second attempt without them
	 */
	for (attempt = funcs ? 0 : 1; attempt < 2; attempt++) {
		t->skel = convtrace_bpf__open();
		if (!t->skel) {
			*err = -errno;
			say(t, "cannot open the BPF object: %s", strerror(errno));
			return true;
		}
		t->skel->rodata->targ_tgid = tgid;
		t->skel->rodata->nr_fallocate = SYS_fallocate;
		t->skel->rodata->nr_ioctl = SYS_ioctl;
		t->skel->rodata->kvm_run_cmd = KVM_RUN;
		t->skel->rodata->ct_empty = t->empty;
		*err = set_autoload(t, attempt == 0);
		if (!*err) {
			struct btf *btf = t->counters ?
					  btf__load_vmlinux_btf() : NULL;

			plan_counters(t, btf);
			btf__free(btf);
			/* tracepoint rows not asked for: not loaded either */
			for (i = 0; i < NR_RT && t->no_tracepoints; i++)
				bpf_program__set_autoload(rt_prog(t->skel, i),
							  false);
			*err = convtrace_bpf__load(t->skel);
		}
		if (!*err)
			break;
		convtrace_bpf__destroy(t->skel);
		t->skel = NULL;
		if (attempt == 0) {
			for (i = 0; i < t->nr_funcs; i++) {
				if (t->probes[i].plan == PLAN_NONE)
					continue;
				t->probes[i].plan = PLAN_NONE;
				snprintf(t->probes[i].reason,
					 sizeof(t->probes[i].reason),
					 "loading the function probes failed (%s)",
					 strerror(-*err));
			}
		}
	}
	if (*err) {
		say(t, "cannot load the BPF programs: %s%s", strerror(-*err),
		    t->verbose ? "" : " (-v shows libbpf's messages)");
		/*
		 * libbpf 1.1 tests global data support by loading a socket
		 * filter; without CONFIG_NET it concludes "none" and skips
		 * .rodata/.bss, so every program fails to load.
		 */
		if (libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_SOCKET_FILTER,
					       NULL) != 1)
			say(t, "this kernel has no socket filter programs (CONFIG_NET=n): libbpf then assumes no BPF global data and cannot load .rodata/.bss; build the kernel with CONFIG_NET=y");
		return true;
	}
	return false;
}

struct conv_trace *conv_trace_open(const struct conv_trace_opts *opts)
{
	static const struct conv_trace_opts defaults;
	struct conv_trace *t = calloc(1, sizeof(*t));
	const char *const *f;
	int i, err = 0;
	bool funcs = false;
	pid_t tgid;

	if (!t)
		return NULL;
	if (!opts)
		opts = &defaults;
	t->log = opts->log ? opts->log : stderr;
	t->verbose = opts->verbose;
	t->force_kprobe = opts->force_kprobe;
	t->empty = opts->empty;
	libbpf_set_print(opts->verbose ? verbose_print : quiet_print);

	t->counters = opts->counters;
	t->no_tracepoints = opts->no_tracepoints || opts->counters;
	for (f = opts->wide ? conv_trace_wide_funcs : conv_trace_default_funcs;
	     !opts->no_default_funcs && !opts->counters && *f; f++)
		err = err ? err : add_func(t, *f);
	for (f = opts->extra_funcs; f && *f; f++)
		err = err ? err : add_func(t, *f);
	if (err) {
		say(t, "more than %d functions, or a name too long", CT_MAX_FUNCS);
		goto fail;
	}
	for (i = 0; i < CT_NR_TP; i++) {
		snprintf(t->probes[CT_TP_ID(i)].name, sizeof(t->probes[0].name),
			 "%s", tp_rows[i].name);
		t->probes[CT_TP_ID(i)].count_only = tp_rows[i].count_only;
	}
	t->ncpus = libbpf_num_possible_cpus();
	if (t->ncpus <= 0) {
		err = t->ncpus ? t->ncpus : -EINVAL;
		goto fail;
	}
	tgid = opts->all ? 0 : opts->tgid ? opts->tgid : getpid();

	trace_plan_funcs(t);
	for (i = 0; i < t->nr_funcs; i++)
		funcs |= t->probes[i].plan != PLAN_NONE;
	if (load_programs(t, tgid, funcs, &err))
		goto fail;
	attach_funcs(t);
	attach_tracepoints(t);
	attach_counters(t);
	say_attached(t);
	return t;
fail:
	conv_trace_close(t);
	errno = err < 0 ? -err : EINVAL;
	return NULL;
}

void conv_trace_close(struct conv_trace *t)
{
	unsigned int i;
	int n;

	if (!t)
		return;
	for (n = 0; n < CT_NR_PROBES; n++) {
		bpf_link__destroy(t->probes[n].links[0]);
		bpf_link__destroy(t->probes[n].links[1]);
	}
	for (n = 0; n < NR_RT; n++)
		bpf_link__destroy(t->rt_links[n]);
	for (n = 0; n < NR_CP; n++)
		bpf_link__destroy(t->cp_links[n]);
	convtrace_bpf__destroy(t->skel);
	for (i = 0; i < t->nr_ctx_names; i++)
		free(t->ctx_names[i]);
	free(t->ctx_names);
	free(t);
}

void conv_trace_set_context(struct conv_trace *t, unsigned int ctx)
{
	__atomic_store_n(&t->skel->bss->conv_context, ctx, __ATOMIC_RELEASE);
}

int conv_trace_name_context(struct conv_trace *t, unsigned int ctx,
			    const char *name)
{
	char **names, *copy;

	if (ctx >= 65536)
		return -EINVAL;
	if (ctx >= t->nr_ctx_names) {
		names = realloc(t->ctx_names, (ctx + 1) * sizeof(*names));
		if (!names)
			return -ENOMEM;
		memset(names + t->nr_ctx_names, 0,
		       (ctx + 1 - t->nr_ctx_names) * sizeof(*names));
		t->ctx_names = names;
		t->nr_ctx_names = ctx + 1;
	}
	copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	free(t->ctx_names[ctx]);
	t->ctx_names[ctx] = copy;
	return 0;
}
