// SPDX-License-Identifier: GPL-2.0
/*
 * convtrace's choice, per function and kernel, of how to probe it:
 * fentry/fexit where a test attach works, else kprobe/kretprobe where
 * kallsyms has it (or a compiler clone of it), else not at all, with
 * the reason. No version checks: what this kernel allows decides.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "trace_int.h"

/*
 * Test attach: load a "return 0" fentry program for btf_id and attach it.
 * Tells apart "BPF tracing not permitted" (load) from "function not
 * traceable" (attach: no ftrace nop at its start, e.g. assembly).
 */
int trace_try_fentry(int btf_id, char *why, size_t n)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o,
		    .expected_attach_type = BPF_TRACE_FENTRY,
		    .attach_btf_id = btf_id);
	int fd, lfd;

	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "ct_try", "GPL", insns, 2, &o);
	if (fd < 0) {
		snprintf(why, n, "fentry: load refused (%s)", strerror(-fd));
		return fd;
	}
	lfd = bpf_raw_tracepoint_open(NULL, fd);
	if (lfd < 0) {
		snprintf(why, n, "fentry: attach failed (%s)", strerror(-lfd));
		close(fd);
		return lfd;
	}
	close(lfd);
	close(fd);
	return 0;
}

/* kprobes need the kprobe PMU (4.17+) or tracefs kprobe_events */
static bool have_kprobes(char *why, size_t n)
{
	if (libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_KPROBE, NULL) != 1) {
		snprintf(why, n, "kprobe programs not supported");
		return false;
	}
	if (!access("/sys/bus/event_source/devices/kprobe/type", R_OK) ||
	    !access("/sys/kernel/tracing/kprobe_events", W_OK) ||
	    !access("/sys/kernel/debug/tracing/kprobe_events", W_OK))
		return true;
	snprintf(why, n, "kernel has no kprobes");
	return false;
}

/*
 * Mark which functions are text symbols, and note a compiler clone
 * (NAME.constprop.N, NAME.isra.N: the whole body, fewer or reordered
 * arguments) where NAME itself is gone, or else any NAME.SUFFIX (.part,
 * .cold: only a piece of it) for the report.
 */
static bool is_clone(const char *suffix)
{
	return !strncmp(suffix, ".constprop.", 11) ||
	       !strncmp(suffix, ".isra.", 6);
}

static void scan_kallsyms(struct conv_trace *t, bool *found,
			  char (*similar)[64])
{
	char line[512], name[256], type;
	FILE *f = fopen("/proc/kallsyms", "r");
	size_t len;
	int i;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %c %255s", &type, name) != 2)
			continue;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		for (i = 0; i < t->nr_funcs; i++) {
			len = strlen(t->probes[i].name);
			if (strncmp(name, t->probes[i].name, len))
				continue;
			if (!name[len])
				found[i] = true;
			else if (name[len] == '.' && (!similar[i][0] ||
				 is_clone(name + len)))
				snprintf(similar[i], 64, "%.63s", name);
		}
	}
	fclose(f);
}

/* choose fentry, kprobe or nothing for every function slot */
void trace_plan_funcs(struct conv_trace *t)
{
	bool found[CT_MAX_FUNCS] = { false };
	char similar[CT_MAX_FUNCS][64] = { { 0 } };
	char kp_why[64], fe_why[96];
	struct btf *btf = btf__load_vmlinux_btf();
	bool kprobes = have_kprobes(kp_why, sizeof(kp_why));
	const char *clone;
	struct probe *p;
	int i, id;

	scan_kallsyms(t, found, similar);
	for (i = 0; i < t->nr_funcs; i++) {
		p = &t->probes[i];
		id = btf ? btf__find_by_name_kind(btf, p->name, BTF_KIND_FUNC)
			 : -ENOENT;
		clone = !found[i] && similar[i][0] &&
			is_clone(strchr(similar[i], '.')) ? similar[i] : NULL;
		if (!btf)
			snprintf(fe_why, sizeof(fe_why), "no vmlinux BTF");
		else if (id < 0)
			snprintf(fe_why, sizeof(fe_why), "no BTF FUNC");
		else if (t->force_kprobe)
			snprintf(fe_why, sizeof(fe_why), "kprobes asked for");
		else if (!trace_try_fentry(id, fe_why, sizeof(fe_why))) {
			p->plan = PLAN_FENTRY;
			continue;
		}
		if ((found[i] || clone) && kprobes) {
			p->plan = PLAN_KPROBE;
			snprintf(p->ksym, sizeof(p->ksym), "%.63s",
				 clone ? clone : p->name);
			snprintf(p->reason, sizeof(p->reason), "%.95s%s%.63s",
				 fe_why,
				 clone ? "; on the compiler's clone " : "",
				 clone ? clone : "");
		} else if (!found[i] && (!btf || id < 0)) {
			snprintf(p->reason, sizeof(p->reason),
				 "absent: no BTF FUNC, not in kallsyms%s%.63s",
				 similar[i][0] ? "; there is " : "", similar[i]);
		} else {
			snprintf(p->reason, sizeof(p->reason), "%s; kprobe: %s",
				 fe_why, found[i] ? kp_why : "not in kallsyms");
		}
	}
	btf__free(btf);
}

/* in ftrace's available_filter_functions (kprobe events require it) */
bool trace_ftrace_listed(const char *name)
{
	static const char *const paths[] = {
		"/sys/kernel/tracing/available_filter_functions",
		"/sys/kernel/debug/tracing/available_filter_functions",
	};
	char line[256];
	size_t len = strlen(name);
	bool found = false;
	unsigned int i;
	FILE *f = NULL;

	for (i = 0; !f && i < 2; i++)
		f = fopen(paths[i], "r");
	if (!f)
		return true;	/* cannot tell: no hint */
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, name, len) &&
			(line[len] == '\n' || line[len] == ' ');
	fclose(f);
	return found;
}
