// SPDX-License-Identifier: GPL-2.0
/*
 * Reading convtrace's maps: probe status, the per-CPU histograms summed
 * over CPUs and handed out row by row, reset, lost samples.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "convtrace.h"
#include "convtrace.skel.h"
#include "trace_int.h"
#include "trace_lib.h"

int conv_trace_nr_probes(const struct conv_trace *t)
{
	return t->nr_funcs + (t->no_tracepoints ? 0 : CT_NR_TP);
}

int conv_trace_probe_info(const struct conv_trace *t, int i,
			  struct conv_trace_probe_info *info)
{
	int id = probe_id(t, i);

	if (id < 0)
		return id;
	info->name = t->probes[id].name;
	info->attach = t->probes[id].attach;
	info->reason = t->probes[id].reason;
	info->is_func = t->probes[id].is_func;
	return 0;
}

static int key_cmp(const void *a, const void *b)
{
	const struct ct_hist_key *x = a, *y = b;

	if (x->probe != y->probe)
		return x->probe < y->probe ? -1 : 1;
	return x->ctx < y->ctx ? -1 : x->ctx > y->ctx;
}

static int get_keys(struct conv_trace *t, struct ct_hist_key *keys)
{
	struct bpf_map *map = t->skel->maps.hists;
	int n = 0;

	while (n < CT_MAX_HISTS &&
	       !bpf_map__get_next_key(map, n ? &keys[n - 1] : NULL, &keys[n],
				      sizeof(keys[0])))
		n++;
	return n;
}

int conv_trace_read(struct conv_trace *t, conv_trace_cb cb, void *arg)
{
	struct ct_hist_key *keys = calloc(CT_MAX_HISTS, sizeof(*keys));
	struct ct_hist *vals = calloc(t->ncpus, sizeof(*vals));
	struct ct_hist *sum = calloc(1, sizeof(*sum));
	uint64_t slots[CT_HIST_NBUCKETS];
	struct conv_trace_row row;
	int n, i, k = 0, c, id, ret = 0;
	unsigned int b;
	bool seen;

	if (!keys || !vals || !sum) {
		ret = -ENOMEM;
		goto out;
	}
	n = get_keys(t, keys);
	qsort(keys, n, sizeof(*keys), key_cmp);
	for (i = 0; i < conv_trace_nr_probes(t) && !ret; i++) {
		id = probe_id(t, i);
		if (!t->probes[id].attach)
			continue;
		while (k < n && keys[k].probe < (unsigned int)id)
			k++;
		memset(&row, 0, sizeof(row));
		row.probe = t->probes[id].name;
		row.attach = t->probes[id].attach;
		row.count_only = t->probes[id].count_only;
		row.nr_buckets = row.count_only ? 0 : CT_HIST_NBUCKETS;
		row.buckets = row.count_only ? NULL : slots;
		row.sub_bits = CT_HIST_SUB_BITS;
		seen = false;
		for (; k < n && keys[k].probe == (unsigned int)id && !ret; k++) {
			if (bpf_map__lookup_elem(t->skel->maps.hists, &keys[k],
						 sizeof(keys[k]), vals,
						 t->ncpus * sizeof(*vals), 0))
				continue;	/* deleted meanwhile */
			memset(sum, 0, sizeof(*sum));
			for (c = 0; c < t->ncpus; c++) {
				sum->count += vals[c].count;
				sum->sum_ns += vals[c].sum_ns;
				sum->excl_ns += vals[c].excl_ns;
				for (b = 0; b < CT_HIST_NBUCKETS; b++)
					sum->slots[b] += vals[c].slots[b];
			}
			for (b = 0; b < CT_HIST_NBUCKETS; b++)
				slots[b] = sum->slots[b];
			row.ctx = keys[k].ctx;
			row.ctx_name = row.ctx < t->nr_ctx_names ?
				       t->ctx_names[row.ctx] : NULL;
			row.count = sum->count;
			row.sum_ns = sum->sum_ns;
			row.excl_ns = sum->excl_ns;
			seen = true;
			ret = cb(&row, arg);
		}
		if (!seen && !ret) {
			memset(slots, 0, sizeof(slots));
			row.ctx_name = t->nr_ctx_names ? t->ctx_names[0] : NULL;
			ret = cb(&row, arg);
		}
	}
out:
	free(keys);
	free(vals);
	free(sum);
	return ret;
}

int conv_trace_reset(struct conv_trace *t)
{
	struct ct_hist_key *keys = calloc(CT_MAX_HISTS, sizeof(*keys));
	__u64 *zero = calloc(t->ncpus, sizeof(*zero));
	__u32 d;
	int n, i;

	if (!keys || !zero) {
		free(keys);
		free(zero);
		return -ENOMEM;
	}
	n = get_keys(t, keys);
	for (i = 0; i < n; i++)
		bpf_map__delete_elem(t->skel->maps.hists, &keys[i],
				     sizeof(keys[i]), 0);
	for (d = 0; d < CT_NR_DROPS; d++)
		bpf_map__update_elem(t->skel->maps.drops, &d, sizeof(d), zero,
				     t->ncpus * sizeof(*zero), 0);
	free(keys);
	free(zero);
	return 0;
}

unsigned long long conv_trace_drops(struct conv_trace *t)
{
	__u64 *vals = calloc(t->ncpus, sizeof(*vals));
	unsigned long long sum = 0;
	__u32 d;
	int c;

	for (d = 0; vals && d < CT_NR_DROPS; d++) {
		if (bpf_map__lookup_elem(t->skel->maps.drops, &d, sizeof(d),
					 vals, t->ncpus * sizeof(*vals), 0))
			continue;
		for (c = 0; c < t->ncpus; c++)
			sum += vals[c];
	}
	free(vals);
	return sum;
}

/* a per-CPU u64 array's element idx summed over CPUs */
static unsigned long long percpu_sum(struct conv_trace *t, struct bpf_map *map,
				     __u32 idx)
{
	__u64 *vals = calloc(t->ncpus, sizeof(*vals));
	unsigned long long sum = 0;
	int c;

	if (vals && !bpf_map__lookup_elem(map, &idx, sizeof(idx), vals,
					  t->ncpus * sizeof(*vals), 0))
		for (c = 0; c < t->ncpus; c++)
			sum += vals[c];
	free(vals);
	return sum;
}

struct ctx_calls {
	struct conv_trace *t;
	unsigned int ctx;
	unsigned long long calls;
};

static int add_func_calls(const struct conv_trace_row *row, void *arg)
{
	struct ctx_calls *c = arg;
	int i;

	if (row->ctx != c->ctx)
		return 0;
	for (i = 0; i < c->t->nr_funcs; i++)
		if (row->probe == c->t->probes[i].name)
			c->calls += row->count;
	return 0;
}

unsigned long long conv_trace_ctx_hits(struct conv_trace *t, unsigned int ctx)
{
	struct ctx_calls c = { .t = t, .ctx = ctx };

	if (ctx >= CT_MAX_CTX)
		return 0;
	conv_trace_read(t, add_func_calls, &c);
	return percpu_sum(t, t->skel->maps.hits, ctx) + 2 * c.calls;
}

/* the programs each counter needs (trace_int.h, enum CP_*) */
static const unsigned int counter_progs[CTC_NR] = {
	[CTC_PAGES_ALLOC] = 1u << CP_PAGE_ALLOC,
	[CTC_PAGES_FREED] = 1u << CP_PAGE_FREE,
	[CTC_PAGES_ZEROED] = 1u << CP_PAGE_ALLOC | 1u << CP_CLEAR_HUGE |
			     1u << CP_ZERO_RANGE | 1u << CP_FIRST_USE,
	[CTC_IPIS] = 1u << CP_IPI_MASK | 1u << CP_IPI_SINGLE |
		     1u << CP_IPI_RESCHED,
	[CTC_TLB_FLUSHES] = 1u << CP_TLB_FLUSH | 1u << CP_TLB_FLUSH_END |
			    1u << CP_TLB_REQUEST,
	[CTC_SPTE_4K] = 1u << CP_SET_SPTE,
	[CTC_SPTE_2M] = 1u << CP_SET_SPTE,
	[CTC_SPTE_1G] = 1u << CP_SET_SPTE,
};

int conv_trace_counter(struct conv_trace *t, unsigned int ctx, unsigned int c,
		       unsigned long long *val, const char **why)
{
	unsigned int p;

	if (c >= CTC_NR || ctx >= CT_MAX_CTX || !t->counters)
		return -EINVAL;
	for (p = 0; p < NR_CP; p++) {
		if (!(counter_progs[c] & (1u << p)) || t->cp_links[p])
			continue;
		if (why)
			*why = t->cp_why[p];
		return -ENOENT;
	}
	*val = percpu_sum(t, t->skel->maps.counters, ctx * CTC_NR + c);
	return 0;
}

static int add_count(const struct conv_trace_row *row, void *arg)
{
	*(unsigned long long *)arg += row->count;
	return 0;
}

unsigned long long conv_trace_hits(struct conv_trace *t)
{
	unsigned long long hits = 0;

	conv_trace_read(t, add_count, &hits);
	return hits;
}
