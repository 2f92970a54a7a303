// SPDX-License-Identifier: GPL-2.0
/*
 * convreport's third column: a make bench run's gmem/ subfolder holds
 * what the 6.12 kernel's boots measured (--mode=gmem, guest_memfd as
 * merged), merged by convbench into a summary.json of its own. Its
 * provenance and what differs besides the conversion path go under the
 * setup; the kernel functions of the v5 path and their 6.12
 * counterparts go side by side, per conversion. Nothing is recomputed:
 * the numbers are the two summary.json's.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sections.h"
#include "text.h"
#include "threeway.h"
#include "units.h"

/* a v5 function (6.1 kernel) and what does its job on 6.12 */
static const struct {
	const char *v5, *gmem, *job;
} pairs[] = {
	{ "memfile_notifier_invalidate", "kvm_gmem_invalidate_begin",
	  "KVM's mappings zapped as the fd drops pages" },
	{ "kvm_faultin_pfn_private", "kvm_faultin_pfn_private",
	  "the private fault" },
	{ "shmem_fallocate", "kvm_gmem_fallocate",
	  "fallocate() of the private fd (v5: allocate or punch; gmem: "
	  "punch, pages come at the first access)" },
	{ "kvm_vm_ioctl_set_sw_private_range", "kvm_vm_set_mem_attributes",
	  "the record update (v5's in the wide set only)" },
};
#define NR_PAIRS	(sizeof(pairs) / sizeof(pairs[0]))

int threeway_load(struct run *g, const char *run)
{
	char path[4096], err[512];
	char *dir;
	int r;

	snprintf(path, sizeof(path), "%s/gmem/summary.json", run);
	if (access(path, R_OK))
		return -ENOENT;
	if (asprintf(&dir, "%s/gmem", run) < 0)
		return -ENOMEM;
	r = run_load(g, dir, err, sizeof(err));
	if (r) {
		fprintf(stderr, "convreport: %s (the gmem column is left out)\n",
			err);
		free(dir);
	}
	return r;
}

void threeway_free(struct run *g)
{
	char *dir = (char *)g->dir;

	run_free(g);
	free(dir);
}

void threeway_setup(FILE *f, const struct run *g)
{
	const struct jv *method = jv_get(g->sum, "method");
	char buf[512];

	snprintf(buf, sizeof(buf), "gmem: kernel %s, other boots (gmem/), "
		 "series %.12s, config %.12s, %.0f rounds (%.0f valid)",
		 run_prov(g, "kernel_release", "?"),
		 run_prov(g, "series_sha", "?"), run_prov(g, "config_sha", "?"),
		 jv_num(jv_get(method, "rounds"), 0),
		 jv_num(jv_get(method, "rounds_valid"), 0));
	text_wrap(f, "", "  ", buf);
	text_wrap(f, "note: ", "  ", "gmem is guest_memfd as upstream merged "
		  "it, on a software-protected VM, converted as QEMU does "
		  "(attributes, then punch or discard). Besides the conversion "
		  "path it differs in: the kernel (6.12 against 6.1, the "
		  "rest of the configuration the same); the boot (each round "
		  "of gmem runs in a boot of its own, next to the 6.1 boot of "
		  "the same round); the VM type; private pages of 4K only "
		  "(v5's shmem gives a 2M conversion a 2M folio); a "
		  "to-private allocates and clears at the guest's first "
		  "access instead of in the handler's fallocate(); the record "
		  "is a per-gfn xarray (memory attributes) instead of our "
		  "maple tree of ranges; the implicit trigger flips an "
		  "attribute (kernel/patches-6.12 0001) instead of our "
		  "record, and gmem's handler times its record update in both "
		  "triggers.");
	if (!jv_get(g->sum, "cells") || !jv_len(jv_get(g->sum, "cells")))
		text_line(f, "note: gmem/summary.json has no cells");
}

/* "1 x 12.3" (calls per conversion x us per call), "no calls", "not traced" */
static const char *per_conv(const struct run *r, const char *fn,
			    enum conv_mode m, uint64_t size, char *buf,
			    size_t len)
{
	double calls, ns, conv;
	char us[32];

	if (!jv_get(r->sum, "trace") || not_traced(r, fn)) {
		snprintf(buf, len, "not traced");
		return buf;
	}
	trace_totals(r, fn, m, size, &calls, &ns, &conv);
	if (!calls)
		snprintf(buf, len, "no calls");
	else
		snprintf(buf, len, "%.3g x %s", conv ? calls / conv : NAN,
			 text_us(ns / calls, us, sizeof(us)));
	return buf;
}

void threeway_functions(FILE *f, const struct run *r, const struct run *g)
{
	struct run_trace tv, tg;
	char a[40], b[40], c[40], sz[32], err[512];
	bool hv, hg;
	struct hist empty;
	size_t i, k;

	if (!jv_get(g->sum, "trace"))
		return;
	hv = !run_read_trace(r->dir, &tv, err, sizeof(err));
	hg = !run_read_trace(g->dir, &tg, err, sizeof(err));
	fputc('\n', f);
	text_line(f, "Kernel functions: v5 (6.1) and their 6.12 counterparts");
	text_wrap(f, "", "", "Calls per conversion (of the directions that "
		  "call it) x us per call, exclusive of nested probed calls; "
		  "destructive and inplace from the v5 function, gmem from "
		  "its counterpart.");
	for (k = 0; k < NR_PAIRS; k++) {
		fputc('\n', f);
		text_line(f, "%s (v5)", pairs[k].v5);
		text_line(f, "  / %s (6.12)", pairs[k].gmem);
		text_wrap(f, "  ", "  ", pairs[k].job);
		text_line(f, "  %-5s %-20s %-20s %s", "size", "destructive",
			  "inplace", "gmem");
		for (i = 0; i < r->nsizes; i++)
			text_line(f, "  %-5s %-20s %-20s %s",
				  size_str(r->sizes[i], sz, sizeof(sz)),
				  per_conv(r, pairs[k].v5, MODE_DESTRUCTIVE,
					   r->sizes[i], a, sizeof(a)),
				  per_conv(r, pairs[k].v5, MODE_INPLACE,
					   r->sizes[i], b, sizeof(b)),
				  per_conv(g, pairs[k].gmem, MODE_GMEM,
					   r->sizes[i], c, sizeof(c)));
	}
	if (!hg)
		goto out;
	/* the histograms side by side: v5 destructive, gmem's counterpart */
	hist_init(&empty, TRACE_HIST_SUB_BITS);
	for (k = 0; k < NR_PAIRS; k++) {
		for (i = 0; i < r->nsizes; i++) {
			struct run_trace_hist *hd = NULL, *hgm;

			hgm = run_trace_find(&tg, pairs[k].gmem, MODE_GMEM,
					     r->sizes[i]);
			if (!hgm || !hist_count(&hgm->h))
				continue;
			if (hv)
				hd = run_trace_find(&tv, pairs[k].v5,
						    MODE_DESTRUCTIVE, r->sizes[i]);
			fputc('\n', f);
			text_line(f, "%s / %s, %s", pairs[k].v5, pairs[k].gmem,
				  size_str(r->sizes[i], sz, sizeof(sz)));
			hist_print_log2_pair(f, hd ? &hd->h : &empty, &hgm->h,
					     "destructive", "gmem", "nsecs");
		}
	}
out:
	if (hv)
		run_free_trace(&tv);
	if (hg)
		run_free_trace(&tg);
}
