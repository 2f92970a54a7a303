// SPDX-License-Identifier: GPL-2.0
/*
 * convreport's third column: a make bench run's gmem/ subfolder holds
 * what the 6.12 kernel's boot measured (--mode=gmem, guest_memfd as
 * merged). Its provenance and what differs besides the conversion path
 * go under the setup; the kernel functions of the v5 path and their
 * 6.12 counterparts go side by side, per conversion.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convtrace.h"
#include "options.h"
#include "runfiles.h"
#include "text.h"
#include "threeway.h"

#define TW_MAX_SIZES	64

/* a v5 function (6.1 kernel) and what does its job on 6.12 */
static const struct {
	const char *v5, *gmem, *job;
} pairs[] = {
	{ "memfile_notifier_invalidate", "kvm_gmem_invalidate_begin",
	  "KVM's mappings zapped as the fd drops pages" },
	{ "kvm_faultin_pfn_private", "kvm_faultin_pfn_private",
	  "the private fault" },
	{ "shmem_fallocate", "kvm_gmem_fallocate",
	  "fallocate(), PUNCH_HOLE of the private fd" },
	{ "kvm_vm_ioctl_set_sw_private_range", "kvm_vm_set_mem_attributes",
	  "the record update" },
};
#define NR_PAIRS	(sizeof(pairs) / sizeof(pairs[0]))

int threeway_add_samples(const char *run, struct run_samples *s,
			 bool have_v5, char *err, size_t errlen)
{
	char path[4096];
	int r;

	snprintf(path, sizeof(path), "%s/gmem/samples.csv", run);
	r = have_v5 ? run_add_samples(path, s, err, errlen) :
		      run_read_samples(path, s, err, errlen);
	return r == -ENOENT ? 0 : r;
}

void threeway_setup(FILE *f, const char *run)
{
	char path[4096], kernel[96] = "?", series[64] = "", config[64] = "";
	char buf[512];
	char *json;

	snprintf(path, sizeof(path), "%s/gmem/summary.json", run);
	json = run_slurp(path);
	if (!json)
		return;
	run_json_str(json, "kernel_release", kernel, sizeof(kernel));
	run_json_str(json, "series_sha", series, sizeof(series));
	run_json_str(json, "config_sha", config, sizeof(config));
	free(json);
	snprintf(buf, sizeof(buf), "gmem: kernel %s, another boot (gmem/), "
		 "series %.12s, config %.12s", kernel, series[0] ? series : "?",
		 config[0] ? config : "?");
	text_wrap(f, "", "  ", buf);
	text_wrap(f, "note: ", "  ", "gmem is guest_memfd as upstream merged "
		  "it, on a software-protected VM, converted as QEMU does "
		  "(attributes, then punch or discard). Besides the conversion "
		  "path it differs in: the kernel (6.12 against 6.1, the "
		  "rest of the configuration the same); the boot (TCG timing "
		  "moves between boots); the VM type; private pages of 4K "
		  "only (v5's shmem gives a 2M conversion a 2M folio); a "
		  "to-private allocates and clears at the guest's first "
		  "access instead of in the handler's fallocate(); the record "
		  "is a per-gfn xarray (memory attributes) instead of our "
		  "maple tree of ranges; the implicit trigger flips an "
		  "attribute (kernel/patches-6.12 0001) instead of our "
		  "record.");
}

/* recorded conversions of mode m at size (both directions) */
static size_t convs(struct run_samples *s, unsigned int m, uint64_t size)
{
	size_t n = 0;
	int d;

	for (d = 0; d < RUN_NR_DIRS; d++) {
		struct run_cell *c = run_find_cell(s, m, size, d);

		n += c ? c->n : 0;
	}
	return n;
}

/* "1.00 x 12.3" (calls per conversion x mean us per call), "0", "-" */
static const char *per_conv(struct run_trace *t, bool have, const char *fn,
			    unsigned int m, uint64_t size, size_t n,
			    char *buf, size_t len)
{
	struct run_trace_hist *h = have ? run_trace_find(t, fn, m, size) : NULL;
	char us[32];

	if (!have || !n)
		snprintf(buf, len, "-");
	else if (!h || !h->count)
		snprintf(buf, len, "%s", run_trace_missing(t, fn) ?
			 "not traced" : "0");
	else
		snprintf(buf, len, "%.2f x %s", (double)h->count / n,
			 text_us(h->sum_ns / h->count, us, sizeof(us)));
	return buf;
}

static bool read_trace(const char *path, struct run_trace *t)
{
	const char *names[2 * NR_PAIRS + 1];
	char err[256];
	size_t i;

	for (i = 0; i < NR_PAIRS; i++) {
		names[2 * i] = pairs[i].v5;
		names[2 * i + 1] = pairs[i].gmem;
	}
	names[2 * NR_PAIRS] = NULL;
	return !run_read_trace(path, names, t, err, sizeof(err));
}

void threeway_functions(FILE *f, const char *run, struct run_samples *s)
{
	struct run_trace tv, tg;
	uint64_t sizes[TW_MAX_SIZES];
	char path[4096], a[40], b[40], c[40], sz[32];
	bool hv, hg;
	size_t i, k, nsz;

	snprintf(path, sizeof(path), "%s/gmem/trace.csv", run);
	hg = read_trace(path, &tg);
	if (!hg)
		return;
	snprintf(path, sizeof(path), "%s/trace.csv", run);
	hv = read_trace(path, &tv);
	nsz = run_sizes(s, sizes, TW_MAX_SIZES);

	fputc('\n', f);
	text_line(f, "Kernel functions: v5 (6.1) and their 6.12 counterparts");
	text_wrap(f, "", "", "Per recorded conversion, both directions: calls "
		  "x mean us per call (destructive and inplace from the v5 "
		  "function, gmem from its counterpart; probes nest).");
	for (k = 0; k < NR_PAIRS; k++) {
		fputc('\n', f);
		text_line(f, "%s (v5)", pairs[k].v5);
		text_line(f, "  / %s (6.12)", pairs[k].gmem);
		text_line(f, "  %s", pairs[k].job);
		text_line(f, "  %-5s %-20s %-20s %s", "size", "destructive",
			  "inplace", "gmem");
		for (i = 0; i < nsz; i++)
			text_line(f, "  %-5s %-20s %-20s %s",
				  size_str(sizes[i], sz, sizeof(sz)),
				  per_conv(&tv, hv, pairs[k].v5,
					   RUN_DESTRUCTIVE, sizes[i],
					   convs(s, RUN_DESTRUCTIVE, sizes[i]),
					   a, sizeof(a)),
				  per_conv(&tv, hv, pairs[k].v5, RUN_INPLACE,
					   sizes[i],
					   convs(s, RUN_INPLACE, sizes[i]),
					   b, sizeof(b)),
				  per_conv(&tg, hg, pairs[k].gmem, RUN_GMEM,
					   sizes[i],
					   convs(s, RUN_GMEM, sizes[i]),
					   c, sizeof(c)));
	}
	/* the counterparts' own histograms, per size */
	for (k = 0; k < NR_PAIRS; k++) {
		for (i = 0; i < nsz; i++) {
			struct run_trace_hist *h;

			h = run_trace_find(&tg, pairs[k].gmem, RUN_GMEM,
					   sizes[i]);
			if (!h || !h->count)
				continue;
			fputc('\n', f);
			text_line(f, "%s, gmem %s conversions, ns per call",
				  pairs[k].gmem,
				  size_str(sizes[i], sz, sizeof(sz)));
			text_line(f, "  %llu calls, mean %s us",
				  (unsigned long long)h->count,
				  text_us(h->sum_ns / h->count, a, sizeof(a)));
			text_hist(f, &h->h);
		}
	}
	if (hv)
		run_free_trace(&tv);
	run_free_trace(&tg);
}
