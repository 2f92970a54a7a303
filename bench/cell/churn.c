// SPDX-License-Identifier: GPL-2.0
/* The churn workload's host side: see churn.h */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <sys/mman.h>

#include "churn.h"
#include "vcpu_worker.h"

/* the values of keys[] in a "key value" or "key: value kB" file */
static void read_keys(const char *path, const char *const *keys,
		      uint64_t *vals, unsigned int n)
{
	char line[256];
	unsigned int i;
	FILE *f = fopen(path, "r");

	for (i = 0; i < n; i++)
		vals[i] = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		for (i = 0; i < n; i++) {
			size_t len = strlen(keys[i]);

			if (!strncmp(line, keys[i], len) &&
			    (line[len] == ' ' || line[len] == ':')) {
				vals[i] = strtoull(line + len + 1 +
						   strspn(line + len + 1, " :\t"),
						   NULL, 10);
				break;
			}
		}
	}
	fclose(f);
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC_RAW, &t);
	return t.tv_sec * 1000000000ULL + t.tv_nsec;
}

/*
 * --workload=split's reset, and io's before each size: [gpa, + len)
 * punched out of the private fd and allocated again (as v5_init() does:
 * a fault on a hole of the fd is a memory-error exit, not an
 * allocation), and dropped from the shared side (destructive, gmem);
 * the record stays private
 */
static int churn_reset(struct worker *w, const uint64_t *args)
{
	struct conv_ctx *c = &w->cell->conv;
	uint64_t off = args[2] - c->gpa, len = args[3];
	unsigned int tries = 0;
	int ret;

	if (args[2] < c->gpa || off + len > c->slot_size) {
		snprintf(w->error, sizeof(w->error),
			 "vCPU %u: reset of gpa %#llx+%#llx outside the slot",
			 w->vcpu->id, (unsigned long long)args[2],
			 (unsigned long long)len);
		return -1;
	}
	/* EAGAIN while a page is still referenced, as destructive retries */
	while ((ret = __private_punch_hole(c->fd, off, len)) == -EAGAIN &&
	       ++tries < 100)
		;
	/*
	 * allocated again as a whole, huge where the kernel can (KEEP_SIZE:
	 * guest_memfd takes no other fallocate)
	 */
	if (!ret)
		ret = fallocate(c->fd, FALLOC_FL_KEEP_SIZE, off, len) ? -errno : 0;
	if (!ret && !conv_modes[c->mode]->shared_is_private)
		ret = madvise(c->shared + off, len, MADV_DONTNEED) ? -errno : 0;
	if (ret) {
		snprintf(w->error, sizeof(w->error),
			 "vCPU %u: reset of the range at operation %llu: %s",
			 w->vcpu->id, (unsigned long long)args[1],
			 strerror(-ret));
		return -1;
	}
	return 1;
}

/*
 * The sequence's first mark after the fill: every vCPU waits for the
 * others (at most the stall timeout) before it reads (phase 1) and
 * after it has read (phase 2), so that the start is read with every
 * range written and no conversion begun. 0, or -1 when the others did
 * not come (w->error says so).
 */
static int churn_start_together(struct worker *w, struct churn_result *r,
				unsigned int phase)
{
	unsigned int stall = w->cell->p->stall_s;
	unsigned int n = phase * w->cell->p->vcpus;
	unsigned int slices = 10 * stall;
	struct timespec until;

	/* in 100 ms slices: a stop (SIGINT) is seen within one */
	pthread_mutex_lock(&r->lock);
	r->at_start++;
	pthread_cond_broadcast(&r->start);
	while (r->at_start < n && slices-- && !cell_stop_requested()) {
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 100 * 1000 * 1000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&r->start, &r->lock, &until);
	}
	n = r->at_start >= n;
	pthread_mutex_unlock(&r->lock);
	if (n)
		return 0;
	if (cell_stop_requested())
		w->interrupted = true;
	else
		snprintf(w->error, sizeof(w->error),
			 "vCPU %u: churn: the other vCPUs did not finish writing their ranges within %u s",
			 w->vcpu->id, stall);
	return -1;
}

/*
 * --workload=io: request args[1] of args[3] bytes at gpa args[2], shared
 * now, served by the device through the host's view of the slot
 */
static int churn_io_request(struct worker *w, struct churn_result *r,
			    const uint64_t *args)
{
	struct conv_ctx *c = &w->cell->conv;
	uint64_t gpa = args[2], len = args[3];
	struct io_bad bad;

	if (gpa < c->gpa || len > c->slot_size ||
	    gpa - c->gpa > c->slot_size - len || len % GUEST_CONV_PAGE) {
		snprintf(w->error, sizeof(w->error),
			 "vCPU %u: io request %llu: gpa %#llx+%#llx outside the slot",
			 w->vcpu->id, (unsigned long long)args[1],
			 (unsigned long long)gpa, (unsigned long long)len);
		return -1;
	}
	if (io_device_request(&r->dev, c->shared + (gpa - c->gpa), gpa, len,
			      args[1], &bad)) {
		snprintf(w->error, sizeof(w->error),
			 "vCPU %u: io request %llu: the guest's data at gpa %#llx holds %#llx, expected %#llx (the device's check)",
			 w->vcpu->id, (unsigned long long)args[1],
			 (unsigned long long)bad.gpa, (unsigned long long)bad.got,
			 (unsigned long long)bad.want);
		return -1;
	}
	return 1;
}

/* a mark: what the kernel holds huge now (vCPU thread, guest waiting) */
static int churn_sync(struct worker *w, const uint64_t *args)
{
	static const char *const mem[] = { "ShmemHugePages", "AnonHugePages" };
	static const char *const ev[] = {
		"thp_split_page", "thp_split_pmd", "thp_file_alloc",
		"thp_fault_alloc", "thp_collapse_alloc", "thp_convert_merge",
		"thp_convert_merge_busy",
	};
	struct churn_result *r = w->cell->hook_arg;
	struct churn_mark m = { .op = args[1], .vcpu = w->vcpu->id,
				.idx = args[2], .uexits = w->exits };
	struct kvm_stats *vs = &r->vcpu_stats[w->vcpu->id];
	bool together = args[0] == GUEST_SYNC_CHURN_MARK && m.idx == 1 &&
			!r->p.events && !r->p.accept && w->cell->p->vcpus > 1;
	uint64_t mv[2], evv[7], t = now_ns();
	int ret = 1;

	if (together && churn_start_together(w, r, 1))
		return -1;
	/* the vCPU's statistics, opened at its first mark */
	if (!vs->names && kvm_stats_open(vs, w->vcpu->fd)) {
		snprintf(w->error, sizeof(w->error),
			 "vCPU %u: its statistics (KVM_GET_STATS_FD)", w->vcpu->id);
		return -1;
	}

	if (args[0] == GUEST_SYNC_CHURN_RESET)
		return churn_reset(w, args);
	if (args[0] == GUEST_SYNC_IO_NULL)
		return 1;
	if (args[0] == GUEST_SYNC_IO_REQ)
		return churn_io_request(w, r, args);
	if (args[0] == GUEST_SYNC_IO_BAD) {
		snprintf(w->error, sizeof(w->error),
			 "vCPU %u: io request %llu: the device's answer at gpa %#llx holds %#llx, expected %#llx (the guest's check)",
			 w->vcpu->id, (unsigned long long)args[1],
			 (unsigned long long)args[2], (unsigned long long)args[3],
			 (unsigned long long)args[4]);
		return -1;
	}
	if (args[0] != GUEST_SYNC_CHURN_MARK) {
		snprintf(w->error, sizeof(w->error),
			 "vCPU %u: unexpected GUEST_SYNC %#llx", w->vcpu->id,
			 (unsigned long long)args[0]);
		return -1;
	}
	/*
	 * --workload=io --counts: from here on the cell's work lands in
	 * its to-shared context (setup's until the first mark), read at
	 * each mark: the difference between a block's two marks is its
	 * requests' work, the device thread's included
	 */
	if (w->cell->p->trace_work) {
		const struct cell_params *p = w->cell->p;

		p->trace_work(p->trace_arg, p->trace_ctx + DIR_TO_SHARED,
			      m.work, m.have_work);
	}
	read_keys("/proc/meminfo", mem, mv, 2);
	read_keys("/proc/vmstat", ev, evv, 7);
	m.shmem_huge_kb = mv[0];
	m.anon_huge_kb = mv[1];
	m.thp_split = evv[0];
	m.thp_split_pmd = evv[1];
	m.thp_alloc = evv[2] + evv[3];
	m.thp_collapse = evv[4];
	m.thp_merge = evv[5];
	m.thp_merge_busy = evv[6];
	if (!kvm_stats_read(vs)) {
		m.exits = kvm_stats_value(vs, "exits") - kvm_stats_value(vs, "irq_exits");
		m.pf_taken = kvm_stats_value(vs, "pf_taken");
		m.pf_fixed = kvm_stats_value(vs, "pf_fixed");
	}

	pthread_mutex_lock(&r->lock);
	if (!r->nmarks)
		r->t0_ns = t;
	m.t_s = (t - r->t0_ns) / 1e9;
	if (kvm_stats_read(&r->vm_stats)) {
		snprintf(w->error, sizeof(w->error),
			 "vCPU %u: churn mark: reading the VM's statistics failed",
			 w->vcpu->id);
		ret = -1;
	}
	m.pages_2m = kvm_stats_value(&r->vm_stats, "pages_2m");
	m.pages_4k = kvm_stats_value(&r->vm_stats, "pages_4k");
	m.tlb_flush = kvm_stats_value(&r->vm_stats, "remote_tlb_flush_requests");
	if (ret > 0 && r->nmarks == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 64;
		struct churn_mark *x = realloc(r->marks, cap * sizeof(*x));

		if (x) {
			r->marks = x;
			r->cap = cap;
		} else {
			snprintf(w->error, sizeof(w->error), "out of memory");
			ret = -1;
		}
	}
	if (ret > 0)
		r->marks[r->nmarks++] = m;
	pthread_mutex_unlock(&r->lock);
	if (ret > 0 && together && churn_start_together(w, r, 2))
		return -1;
	return ret;
}

/* the samples of a vCPU: io, ops requests by each strategy of each class */
static uint64_t churn_samples(const struct churn_params *cp)
{
	return cp->io ? cp->ops * GUEST_IO_NR * cp->nclasses : cp->ops;
}

uint64_t churn_guest_bytes(const struct cell_params *p)
{
	uint64_t npages = p->size / GUEST_CONV_PAGE;

	return sizeof(struct churn_args) + npages * (1 + sizeof(uint64_t)) +
	       churn_samples(p->churn) * sizeof(struct churn_sample) +
	       churn_largest(p->churn) + 8 * GUEST_CONV_PAGE;
}

static int cell_error(struct cell_result *res, int err, const char *what)
{
	snprintf(res->error, sizeof(res->error), "churn: %s: %s", what,
		 strerror(-err));
	return err;
}

int churn_setup_worker(struct cell *c, struct worker *w, unsigned int i,
		       uint64_t *args_gpa, struct cell_result *res)
{
	const struct cell_params *p = c->p;
	const struct churn_params *cp = p->churn;
	uint64_t npages = p->size / GUEST_CONV_PAGE;
	uint64_t largest = churn_largest(cp), a, st, val, smp, scratch;
	struct churn_args *ca;
	int r;

	if (!i) {
		struct churn_result *cr = calloc(1, sizeof(*cr));

		if (!cr)
			return cell_error(res, -ENOMEM, "result");
		cr->p = *cp;
		pthread_mutex_init(&cr->lock, NULL);
		pthread_cond_init(&cr->start, NULL);
		res->churn = cr;
		c->sync_hook = churn_sync;
		c->hook_arg = cr;
		r = kvm_stats_open(&cr->vm_stats, c->vm->fd);
		if (r)
			return cell_error(res, r, "the VM's statistics (KVM_GET_STATS_FD)");
		r = cp->io ? io_device_start(&cr->dev, cp->io_bad_host) : 0;
		if (r)
			return cell_error(res, r, "the io device thread");
	}
	a = __vm_alloc(c->vm, sizeof(*ca), 64);
	st = __vm_alloc(c->vm, npages, 64);
	val = __vm_alloc(c->vm, npages * sizeof(uint64_t), 64);
	smp = __vm_alloc(c->vm, churn_samples(cp) * sizeof(struct churn_sample),
			 64);
	scratch = __vm_alloc(c->vm, largest, GUEST_CONV_PAGE);
	if (!a || !st || !val || !smp || !scratch)
		return cell_error(res, -ENOMEM, "guest memory");
	ca = addr_gpa2hva(c->vm, a);
	memset(ca, 0, sizeof(*ca));
	ca->a = (struct guest_args) {
		.base = w->base,
		.size = p->size,
		.scratch = scratch,
		.seed = p->seed * 0x100000001b3ULL + i + 1,
		.preserve = p->preserve,
		.inplace = conv_modes[p->mode]->shared_is_private,
		.hang_k = GUEST_NO_HANG,
	};
	ca->events = cp->events;
	ca->accept = cp->accept;
	ca->io = cp->io;
	ca->io_bad = cp->io ? cp->io_bad_guest : GUEST_IO_NO_BAD;
	ca->ops = cp->ops;
	ca->interval = cp->interval;
	ca->nclasses = cp->nclasses;
	memcpy(ca->cls_size, cp->size, sizeof(ca->cls_size));
	memcpy(ca->cls_weight, cp->weight, sizeof(ca->cls_weight));
	ca->state = (void *)(uintptr_t)st;
	ca->value = (void *)(uintptr_t)val;
	ca->samples = (void *)(uintptr_t)smp;
	ca->scratch_size = largest;
	w->args = &ca->a;
	/*
	 * one hypercall per operation: conversion k is operation k; io:
	 * the pool's, then two per share request (ops_exits unused)
	 */
	w->max_k = cp->io ? 1 + 2 * cp->ops * cp->nclasses : cp->ops;
	w->host = calloc(w->max_k ? w->max_k : 1, sizeof(*w->host));
	if (!w->host)
		return cell_error(res, -ENOMEM, "host phases");
	*args_gpa = a;
	return 0;
}

int churn_collect(struct cell *c, struct cell_result *res)
{
	struct churn_result *cr = res->churn;
	uint64_t total = 0, j;
	unsigned int i;

	if (!cr)
		return -EINVAL;
	for (i = 0; i < c->p->vcpus; i++)
		total += c->w[i].args->nsamples;
	cr->ops = calloc(total ? total : 1, sizeof(*cr->ops));
	cr->ops_vcpu = calloc(total ? total : 1, sizeof(*cr->ops_vcpu));
	cr->ops_exits = calloc(total ? total : 1, sizeof(*cr->ops_exits));
	if (!cr->ops || !cr->ops_vcpu || !cr->ops_exits)
		return -ENOMEM;
	for (i = 0; i < c->p->vcpus; i++) {
		struct worker *w = &c->w[i];
		struct churn_args *ca = (struct churn_args *)w->args;
		const struct churn_sample *gs = addr_gpa2hva(c->vm,
					(uint64_t)(uintptr_t)ca->samples);

		res->conversions += w->args->done_convs;
		res->interrupted |= w->interrupted;
		for (j = 0; j < w->args->nsamples && j < churn_samples(&cr->p);
		     j++) {
			cr->ops[cr->nops] = gs[j];
			cr->ops_vcpu[cr->nops] = i;
			cr->ops_exits[cr->nops] = !cr->p.io && gs[j].op < w->max_k ?
						  w->host[gs[j].op].exits : 0;
			cr->nops++;
		}
		for (j = 0; cr->p.io && j < w->args->cal_n[0] &&
			    j < GUEST_CAL_N; j++)
			cr->null_tsc[cr->nnull++] = w->args->cal[0][j];
	}
	return 0;
}

void churn_result_free(struct churn_result *r)
{
	unsigned int i;

	if (!r)
		return;
	io_device_stop(&r->dev);
	if (r->vm_stats.names)
		kvm_stats_close(&r->vm_stats);
	for (i = 0; i < VM_MAX_VCPUS; i++)
		if (r->vcpu_stats[i].names)
			kvm_stats_close(&r->vcpu_stats[i]);
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->start);
	free(r->marks);
	free(r->ops);
	free(r->ops_vcpu);
	free(r->ops_exits);
	free(r);
}
