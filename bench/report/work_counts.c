// SPDX-License-Identifier: GPL-2.0
/* convbench --counts: see work.h */
#include <math.h>
#include <string.h>

#include "convtrace.h"
#include "trace_lib.h"
#include "work_counts.h"

const char *const work_count_name[WC_NR] = {
	[WC_EXITS] = "exits",
	[WC_NPT_FAULTS] = "npt_faults",
	[WC_NPT_FIXED] = "npt_fixed",
	[WC_SPTE_4K] = "spte_4k",
	[WC_SPTE_2M] = "spte_2m",
	[WC_HOST_FAULTS] = "host_faults",
	[WC_PAGES_ALLOC] = "pages_allocated",
	[WC_PAGES_FREED] = "pages_freed",
	[WC_PAGES_ZEROED] = "pages_zeroed",
	[WC_BYTES_COPIED] = "bytes_copied",
	[WC_TLB_FLUSH_REQ] = "tlb_flush_requests",
	[WC_IPIS] = "ipis",
};

/* the BPF counter of a work count, or -1 for per-conversion ones */
static int counter_of(enum work_count c)
{
	switch (c) {
	case WC_SPTE_4K:	return CTC_SPTE_4K;
	case WC_SPTE_2M:	return CTC_SPTE_2M;
	case WC_PAGES_ALLOC:	return CTC_PAGES_ALLOC;
	case WC_PAGES_FREED:	return CTC_PAGES_FREED;
	case WC_PAGES_ZEROED:	return CTC_PAGES_ZEROED;
	case WC_IPIS:		return CTC_IPIS;
	case WC_TLB_FLUSH_REQ:	return CTC_TLB_FLUSHES;
	default:		return -1;
	}
}

static uint64_t conv_field(const struct conv_work *w, enum work_count c)
{
	switch (c) {
	case WC_EXITS:		return w->exits;
	case WC_NPT_FAULTS:	return w->npt_faults;
	case WC_NPT_FIXED:	return w->npt_fixed;
	case WC_HOST_FAULTS:	return w->host_faults;
	default:		return w->bytes_copied;
	}
}

/*
 * Counters that would show a gmem conversion 0 for work it does: what
 * they cannot see in 6.12, said instead of a number
 */
static const char *gmem_blind(enum work_count c)
{
	switch (c) {
	case WC_PAGES_FREED:
		return "gmem: guest_memfd's pages are not swap-backed, and "
		       "the page-free counter counts swap-backed (shmem, "
		       "anonymous) pages only";
	case WC_PAGES_ZEROED:	/* clear_huge_page() is missing there too */
		return "gmem: 6.12 clears a private folio in "
		       "kvm_gmem_prepare_folio() (clear_highpage() per page), "
		       "inlined into kvm_gmem_get_pfn(): no probe point sees it";
	default:
		return NULL;
	}
}

const char *work_blind(enum conv_mode m, enum work_count c)
{
	return m == MODE_GMEM ? gmem_blind(c) : NULL;
}

void work_of(const struct work_job *job, enum conv_mode m, uint64_t size,
	     enum conv_dir d, struct work_cell *wc)
{
	const struct trace_hook *h = job->hook;
	unsigned int c;
	size_t i, j;

	memset(wc, 0, sizeof(*wc));
	for (c = 0; c < WC_NR; c++) {
		wc->min[c] = INFINITY;
		wc->max[c] = -INFINITY;
		wc->why[c] = "not counted (convbench --counts)";
	}
	for (i = 0; i < *job->nres; i++) {
		const struct cell_result *r = &job->res[i];

		if (r->p.mode != m || r->p.size != size || !r->work)
			continue;
		for (j = 0; j < r->n; j++) {
			if (r->samples[j].dir != d)
				continue;
			wc->n++;
			for (c = 0; c < WC_NR; c++) {
				double v;

				if (counter_of(c) >= 0)
					continue;
				v = conv_field(&r->work[j], c);
				wc->have[c] = wc->per_conversion[c] = true;
				wc->mean[c] += v;
				wc->min[c] = fmin(wc->min[c], v);
				wc->max[c] = fmax(wc->max[c], v);
			}
		}
	}
	for (c = 0; c < WC_NR; c++) {
		unsigned long long v;
		int ctc = counter_of(c);
		const char *blind;

		if (ctc < 0) {
			if (wc->n)
				wc->mean[c] /= wc->n;
			continue;
		}
		if (!h || !h->t || !wc->n)
			continue;
		blind = work_blind(m, c);
		if (blind) {
			wc->why[c] = blind;
			continue;
		}
		if (conv_trace_counter(h->t, trace_hook_base(h, m, size) + d,
				       ctc, &v, &wc->why[c]))
			continue;
		wc->have[c] = true;
		wc->mean[c] = (double)v / wc->n;
	}
}

static void work_cell_json(struct jsonw *w, const struct cell_stats *cs,
			   void *arg)
{
	struct work_cell wc;
	unsigned int c;

	work_of(arg, cs->mode, cs->size, cs->dir, &wc);
	if (!wc.n) {
		jsonw_null(w);
		return;
	}
	jsonw_obj_open(w);
	jsonw_kv_u64(w, "conversions", wc.n);
	for (c = 0; c < WC_NR; c++) {
		jsonw_key(w, work_count_name[c]);
		if (!wc.have[c]) {
			jsonw_obj_open(w);
			jsonw_kv_str(w, "not_counted_why", wc.why[c]);
			jsonw_obj_close(w);
			continue;
		}
		jsonw_obj_open(w);
		jsonw_kv_double(w, "per_conversion", wc.mean[c]);
		if (wc.per_conversion[c]) {
			jsonw_kv_double(w, "min", wc.min[c]);
			jsonw_kv_double(w, "max", wc.max[c]);
		}
		jsonw_obj_close(w);
	}
	jsonw_obj_close(w);
}

static void work_text(FILE *f, void *arg)
{
	const struct work_job *job = arg;
	struct work_cell wc;
	unsigned int m, d, c;
	size_t i, k, nsz = 0;
	uint64_t sizes[64];
	char sz[32];

	for (i = 0; i < *job->nres; i++) {
		for (k = 0; k < nsz && sizes[k] != job->res[i].p.size; k++)
			;
		if (k == nsz && nsz < 64)
			sizes[nsz++] = job->res[i].p.size;
	}
	/* ascending, whatever order the rounds ran them in */
	for (i = 1; i < nsz; i++)
		for (k = i; k > 0 && sizes[k - 1] > sizes[k]; k--) {
			uint64_t x = sizes[k];

			sizes[k] = sizes[k - 1];
			sizes[k - 1] = x;
		}
	fprintf(f, "\nwork per conversion (--counts; mean, [min..max] where "
		"conversions differ; - not counted):\n");
	for (k = 0; k < nsz; k++)
		for (d = 0; d < DIR_NR; d++)
			for (m = 0; m < MODE_NR; m++) {
				work_of(job, m, sizes[k], d, &wc);
				if (!wc.n)
					continue;
				fprintf(f, "  %-11s %-4s %-10s", conv_mode_name(m),
					size_str(sizes[k], sz, sizeof(sz)),
					conv_dir_name(d));
				for (c = 0; c < WC_NR; c++) {
					if (!wc.have[c]) {
						fprintf(f, " %s -", work_count_name[c]);
						continue;
					}
					fprintf(f, " %s %g", work_count_name[c],
						wc.mean[c]);
					if (wc.per_conversion[c] &&
					    wc.min[c] != wc.max[c])
						fprintf(f, " [%g..%g]", wc.min[c],
							wc.max[c]);
				}
				fputc('\n', f);
			}
}

void work_report_to(struct work_job *job, struct report *rep)
{
	struct report_extra e = {
		.key = "work", .cell_json = work_cell_json, .arg = job,
		.text = rep->env->format == FORMAT_TEXT ? work_text : NULL,
	};

	report_add(rep, &e);
}
