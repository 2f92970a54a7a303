// SPDX-License-Identifier: GPL-2.0
/*
 * Host side of the conversion workload: builds the VM of one cell, runs
 * one thread per vCPU (started together by a barrier), handles the
 * conversion exits the way the mode says, and collects the samples.
 *
 * Memory: slot 0 holds code, stacks, guest arguments, copy buffers and
 * sample arrays. Slot 1 at PRIV_GPA is KVM_MEM_PRIVATE: its private part
 * is an MFD_INACCESSIBLE fd, its shared part anonymous memory
 * (destructive) or the fd itself mapped MAP_SHARED (in place, where the
 * shared page is the private page after conversion). vCPU i owns
 * [PRIV_GPA + i * stride, + size).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdarg.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

#include "guest_conv.h"
#include "host_conv.h"
#include "workload.h"

#define PRIV_SLOT	1
#define PRIV_GPA	(1ULL << 30)
#define MAX_SAMPLES	200000ULL	/* per vCPU, both directions */
#define KICK_SIGNAL	(SIGRTMIN + 5)

static volatile sig_atomic_t stop_requested;

void workload_request_stop(void)
{
	stop_requested = 1;
}

const char *conv_mode_name(enum conv_mode m)
{
	return m == MODE_INPLACE ? "inplace" : "destructive";
}

const char *conv_dir_name(enum conv_dir d)
{
	return d == DIR_TO_PRIVATE ? "to-private" : "to-shared";
}

struct worker {
	struct cell *cell;
	struct kvm_vcpu *vcpu;
	struct guest_args *args;	/* host view of the guest's copy */
	uint64_t base;			/* gpa of the range */
	struct host_phases *host;	/* indexed by conversion k */
	uint64_t max_k;
	pthread_t thread;
	uint64_t pending_k;		/* implicit: conversion being faulted */
	_Atomic uint64_t progress;	/* exits handled */
	_Atomic bool done;
	char error[512];
};

struct cell {
	const struct cell_params *p;
	struct kvm_vm *vm;
	struct conv_ctx conv;
	/* start gate: vCPU threads wait here until all exist (or abort) */
	pthread_mutex_t gate_lock;
	pthread_cond_t gate;
	int gate_state;		/* 0 wait, 1 go, -1 abort */
	struct worker w[VM_MAX_VCPUS];
};

static void kick_handler(int sig)
{
	(void)sig;	/* only interrupts KVM_RUN */
}

static int fail(struct worker *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct worker *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->error, sizeof(w->error), fmt, ap);
	va_end(ap);
	return -1;
}

/* a ucall from the guest: 1 = keep running, 0 = done, -1 = error */
static int handle_ucall(struct worker *w)
{
	struct ucall uc;
	char buf[512];
	uint64_t k;

	switch (get_ucall(w->vcpu, &uc)) {
	case UCALL_DONE:
		return 0;
	case UCALL_SYNC:
		k = uc.args[1];
		if (uc.args[0] == GUEST_SYNC_FLIP) {
			const struct cell_params *p = w->cell->p;

			w->pending_k = k;
			if (p->trace_set)
				p->trace_set(p->trace_arg, k < 2 * p->warmup ? 0 :
					     p->trace_ctx + uc.args[2]);
			if (host_conv_flip(&w->cell->conv, w->base,
					   uc.args[2] == GUEST_DIR_TO_PRIVATE))
				return fail(w, "vCPU %u: record flip for conversion %llu failed",
					    w->vcpu->id, (unsigned long long)k);
			return 1;
		}
		if (uc.args[0] == GUEST_SYNC_BAD)
			return fail(w, "vCPU %u: conversion %llu (%s): gpa %#llx holds %#llx, expected %#llx",
				    w->vcpu->id, (unsigned long long)k,
				    conv_dir_name(k & 1),
				    (unsigned long long)uc.args[2],
				    (unsigned long long)uc.args[3],
				    (unsigned long long)uc.args[4]);
		if (uc.args[0] == GUEST_SYNC_HCFAIL)
			return fail(w, "vCPU %u: conversion %llu: MAP_GPA_RANGE returned %lld",
				    w->vcpu->id, (unsigned long long)k,
				    (long long)uc.args[2]);
		return fail(w, "vCPU %u: unexpected GUEST_SYNC %#llx",
			    w->vcpu->id, (unsigned long long)uc.args[0]);
	case UCALL_ABORT:
	case UCALL_EXCEPTION:
		ucall_describe(w->vcpu->vm, &uc, buf, sizeof(buf));
		return fail(w, "vCPU %u: guest: %s", w->vcpu->id, buf);
	default:
		return fail(w, "vCPU %u: unexpected port IO exit", w->vcpu->id);
	}
}

/*
 * The conversion an exit belongs to: hypercalls come one per conversion
 * in the guest's order; implicit faults belong to the last flip.
 */
static uint64_t current_k(struct worker *w, uint64_t *hc_count, bool hc)
{
	return hc ? (*hc_count)++ : w->pending_k;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct kvm_run *run = w->vcpu->run;
	struct conv_ctx *conv = &w->cell->conv;
	uint64_t hc_count = 0;
	sigset_t set;
	int r;

	sigemptyset(&set);
	sigaddset(&set, KICK_SIGNAL);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);

	pthread_mutex_lock(&w->cell->gate_lock);
	while (!w->cell->gate_state)
		pthread_cond_wait(&w->cell->gate, &w->cell->gate_lock);
	r = w->cell->gate_state;
	pthread_mutex_unlock(&w->cell->gate_lock);
	if (r < 0) {
		atomic_store(&w->done, true);
		return NULL;
	}

	for (;;) {
		struct host_phases ph = { 0 };
		uint64_t t_exit, gpa, npages, attrs, k;
		bool to_private, hc = false;

		r = __vcpu_run(w->vcpu);
		t_exit = rdtsc();
		if (r == -EFAULT && run->exit_reason == KVM_EXIT_MEMORY_ERROR) {
			struct kvm_run_memory_exit *m = kvm_run_memory(run);

			gpa = m->gpa;
			npages = m->size / GUEST_CONV_PAGE;
			to_private = m->flags & KVM_MEMORY_EXIT_FLAG_PRIVATE;
		} else if (r == -EINTR) {
			struct kvm_regs regs = { 0 };

			__vcpu_get_regs(w->vcpu, &regs);
			snprintf(w->error, sizeof(w->error),
				 "vCPU %u: stopped: no progress for %u s (guest rip %#llx, %llu exits handled, %llu iterations done)",
				 w->vcpu->id, w->cell->p->stall_s,
				 (unsigned long long)regs.rip,
				 (unsigned long long)atomic_load(&w->progress),
				 (unsigned long long)w->args->done_iters);
			break;
		} else if (r) {
			snprintf(w->error, sizeof(w->error),
				 "vCPU %u: KVM_RUN: %s (exit reason %u, %s)",
				 w->vcpu->id, strerror(-r), run->exit_reason,
				 exit_reason_str(run->exit_reason));
			break;
		} else if (get_map_gpa_range(w->vcpu, &gpa, &npages, &attrs)) {
			to_private = attrs & KVM_MAP_GPA_RANGE_ENCRYPTED;
			hc = true;
		} else if (run->exit_reason == KVM_EXIT_IO) {
			r = handle_ucall(w);
			atomic_fetch_add(&w->progress, 1);
			if (r <= 0)
				break;
			continue;
		} else {
			snprintf(w->error, sizeof(w->error),
				 "vCPU %u: unexpected exit %u (%s)", w->vcpu->id,
				 run->exit_reason,
				 exit_reason_str(run->exit_reason));
			break;
		}

		k = current_k(w, &hc_count, hc);
		if (w->cell->p->trace_set)
			/* until the next exit, kernel work is this conversion's */
			w->cell->p->trace_set(w->cell->p->trace_arg,
					      k < 2 * w->cell->p->warmup ? 0 :
					      w->cell->p->trace_ctx +
					      (to_private ? DIR_TO_PRIVATE :
					       DIR_TO_SHARED));
		r = host_conv_convert(conv, gpa, npages * GUEST_CONV_PAGE,
				      to_private, hc, &ph);
		if (hc)
			run->hypercall.ret = 0;
		if (r) {
			snprintf(w->error, sizeof(w->error),
				 "vCPU %u: converting gpa %#llx+%#llx to %s: %s%s",
				 w->vcpu->id, (unsigned long long)gpa,
				 (unsigned long long)(npages * GUEST_CONV_PAGE),
				 to_private ? "private" : "shared", strerror(-r),
				 conv->detail);
			break;
		}
		if (k < w->max_k) {
			struct host_phases *h = &w->host[k];

			h->exits++;
			h->record += ph.record;
			h->mem += ph.mem;
			h->release += ph.release;
			/* handler = exit back to userspace .. next KVM_RUN */
			h->handler += rdtsc() - t_exit;
		}
		atomic_fetch_add(&w->progress, 1);
	}
	atomic_store(&w->done, true);
	return NULL;
}

static int thp_set(const char *mode, char *old, size_t len)
{
	const char *path = "/sys/kernel/mm/transparent_hugepage/shmem_enabled";
	char buf[128] = "", *b, *e;
	FILE *f = fopen(path, "r");

	if (old)
		snprintf(old, len, "unknown");
	if (!f)
		return -errno;
	if (fgets(buf, sizeof(buf), f) && old) {
		/* "always [within_size] advise never deny force" */
		b = strchr(buf, '[');
		e = b ? strchr(b, ']') : NULL;
		if (b && e)
			snprintf(old, len, "%.*s", (int)(e - b - 1), b + 1);
	}
	fclose(f);
	if (!mode)
		return 0;
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fputs(mode, f);
	return fclose(f) ? -errno : 0;
}

static void cell_free(struct cell *c)
{
	host_conv_destroy(&c->conv);
	if (c->vm)
		kvm_vm_free(c->vm);
}

/* watch the workers: duration, SIGINT and stalls; no busy wait */
static void cell_watch(struct cell *c, struct cell_result *res)
{
	const struct cell_params *p = c->p;
	uint64_t last_progress = 0, last_change = 0, now;
	struct timespec t0, t;
	unsigned int i, done;
	bool stopping = false;

	clock_gettime(CLOCK_MONOTONIC_RAW, &t0);
	for (;;) {
		struct timespec tick = { 0, 100 * 1000 * 1000 };
		uint64_t progress = 0;

		nanosleep(&tick, NULL);
		clock_gettime(CLOCK_MONOTONIC_RAW, &t);
		now = (t.tv_sec - t0.tv_sec) * 1000 +
		      (t.tv_nsec - t0.tv_nsec) / 1000000;
		for (i = 0, done = 0; i < p->vcpus; i++) {
			done += atomic_load(&c->w[i].done);
			progress += atomic_load(&c->w[i].progress) +
				    c->w[i].args->done_iters;
		}
		if (done == p->vcpus)
			break;
		if (!stopping && (stop_requested ||
		    (p->duration_s > 0 && now >= p->duration_s * 1000))) {
			for (i = 0; i < p->vcpus; i++)
				c->w[i].args->stop = 1;
			stopping = true;
		}
		if (progress != last_progress) {
			last_progress = progress;
			last_change = now;
		} else if (now - last_change > p->stall_s * 1000ULL) {
			for (i = 0; i < p->vcpus; i++) {
				if (atomic_load(&c->w[i].done))
					continue;
				c->w[i].vcpu->run->immediate_exit = 1;
				pthread_kill(c->w[i].thread, KICK_SIGNAL);
			}
			last_change = now;	/* kick again later if needed */
		}
	}
	res->wall_s = now / 1000.0;
}

int mode_supported(enum conv_mode m, char *why, size_t len)
{
	int r = kvm_check_cap(KVM_CAP_PRIVATE_MEM);

	if (r < 0) {
		snprintf(why, len, "cannot open /dev/kvm: %s", strerror(-r));
		return r;
	}
	if (r == 0 || kvm_check_cap(KVM_CAP_PRIVATE_MEM_SW_GFN) <= 0) {
		snprintf(why, len, "this kernel lacks the private-memory series "
			 "(KVM_CAP_PRIVATE_MEM and KVM_CAP_PRIVATE_MEM_SW_GFN)");
		return -ENOTSUP;
	}
	if (m == MODE_INPLACE && kvm_check_cap(KVM_CAP_PRIVATE_MEM_INPLACE) <= 0) {
		snprintf(why, len, "this kernel does not offer in-place conversion "
			 "(no KVM_CAP_PRIVATE_MEM_INPLACE)");
		return -ENOTSUP;
	}
	return 0;
}

static int cell_setup(struct cell *c, struct cell_result *res)
{
	const struct cell_params *p = c->p;
	uint64_t stride = (p->size + SZ_2M - 1) & ~(SZ_2M - 1);
	uint64_t slot_size = stride * p->vcpus;
	uint64_t per_vcpu = p->size + MAX_SAMPLES * sizeof(struct guest_sample) +
			    sizeof(struct guest_args) + 2 * GUEST_PAGE_SIZE;
	struct vm_opts opts = {
		.mem_size = (VM_DEFAULT_MEM_SIZE + per_vcpu * p->vcpus +
			     SZ_2M - 1) & ~(SZ_2M - 1),
	};
	uint64_t max_iters;
	unsigned int i;
	int r;

	if (opts.mem_size > VM_MAX_MEM_SIZE)
		return snprintf(res->error, sizeof(res->error),
				"%u vCPUs x %llu bytes do not fit in slot 0",
				p->vcpus, (unsigned long long)p->size), -E2BIG;
	r = __vm_create(&c->vm, &opts);
	if (r)
		return snprintf(res->error, sizeof(res->error),
				"creating the VM: %s", strerror(-r)), r;
	r = p->trigger == TRIGGER_EXPLICIT ?
	    __vm_enable_exit_map_gpa_range(c->vm) : 0;
	if (r)
		return snprintf(res->error, sizeof(res->error),
				"enabling KVM_CAP_EXIT_HYPERCALL: %s",
				strerror(-r)), r;
	r = host_conv_init(&c->conv, c->vm, PRIV_SLOT, p, PRIV_GPA, slot_size,
			   stride);
	if (r)
		return snprintf(res->error, sizeof(res->error),
				"setting up private memory: %s%s",
				strerror(-r), c->conv.detail), r;

	max_iters = p->warmup + (p->iterations ? p->iterations : MAX_SAMPLES / 2);
	for (i = 0; i < p->vcpus; i++) {
		struct worker *w = &c->w[i];
		uint64_t args_gpa = __vm_alloc(c->vm, sizeof(*w->args), 64);
		uint64_t samples = __vm_alloc(c->vm, MAX_SAMPLES *
					      sizeof(struct guest_sample), 64);
		uint64_t scratch = __vm_alloc(c->vm, p->size, GUEST_PAGE_SIZE);

		if (!args_gpa || !samples || !scratch)
			return snprintf(res->error, sizeof(res->error),
					"guest memory for vCPU %u", i), -ENOMEM;
		w->cell = c;
		w->base = PRIV_GPA + i * stride;
		w->args = addr_gpa2hva(c->vm, args_gpa);
		*w->args = (struct guest_args) {
			.base = w->base,
			.size = p->size,
			.scratch = scratch,
			.samples = (void *)(uintptr_t)samples,
			.max_samples = MAX_SAMPLES,
			.max_iters = max_iters,
			.warmup = p->warmup,
			.seed = p->seed * 0x100000001b3ULL + i + 1,
			.dir_mask = p->dir_mask,
			.implicit = p->trigger == TRIGGER_IMPLICIT,
			.preserve = p->preserve,
			.inplace = p->mode == MODE_INPLACE,
		};
		w->max_k = 2 * max_iters;
		w->host = calloc(w->max_k, sizeof(*w->host));
		if (!w->host)
			return snprintf(res->error, sizeof(res->error),
					"out of memory"), -ENOMEM;
		r = __vm_vcpu_add(c->vm, i, guest_conv_main, &w->vcpu);
		if (!r)
			r = __vcpu_args_set(w->vcpu, 1, &args_gpa);
		if (r)
			return snprintf(res->error, sizeof(res->error),
					"adding vCPU %u: %s", i, strerror(-r)), r;
		/* the watchdog bounds runs: no timer syscalls per exit */
		vcpu_set_timeout(w->vcpu, 0);
	}
	return 0;
}

/* guest and host halves of each recorded conversion, in ns */
static int cell_collect(struct cell *c, struct cell_result *res)
{
	const struct cell_params *p = c->p;
	uint64_t total = 0, i, j;

	for (i = 0; i < p->vcpus; i++)
		total += c->w[i].args->nsamples;
	res->samples = calloc(total ? total : 1, sizeof(*res->samples));
	if (!res->samples)
		return -ENOMEM;
	for (i = 0; i < p->vcpus; i++) {
		struct worker *w = &c->w[i];
		struct guest_sample *gs = addr_gpa2hva(c->vm,
					(uint64_t)(uintptr_t)w->args->samples);

		res->conversions += 2 * w->args->done_iters;
		for (j = 0; j < w->args->nsamples; j++) {
			struct conv_sample *s = &res->samples[res->n++];
			struct host_phases *h = gs[j].k < w->max_k ?
						&w->host[gs[j].k] : NULL;

			s->vcpu = i;
			s->iter = gs[j].k / 2 - p->warmup;
			s->dir = gs[j].dir;
			s->total = gs[j].total;
			s->first = gs[j].first;
			s->copy = gs[j].copy;
			s->exit_rt = gs[j].exit_rt;
			s->fault_in = gs[j].fault_in;
			if (h) {
				s->exits = h->exits;
				s->host = h->handler;
				s->host_record = h->record;
				s->host_mem = h->mem;
				s->host_release = h->release;
			}
		}
	}
	return 0;
}

static void gate_open(struct cell *c, int state)
{
	pthread_mutex_lock(&c->gate_lock);
	c->gate_state = state;
	pthread_cond_broadcast(&c->gate);
	pthread_mutex_unlock(&c->gate_lock);
}

int cell_run(const struct cell_params *p, struct cell_result *res)
{
	struct cell *c = calloc(1, sizeof(*c));
	struct sigaction sa = { .sa_handler = kick_handler };
	char old_thp[32] = "";
	unsigned int i, started = 0;
	bool thp_changed;
	int r, khz;

	memset(res, 0, sizeof(*res));
	res->p = *p;
	if (!c)
		return -ENOMEM;
	c->p = &res->p;
	pthread_mutex_init(&c->gate_lock, NULL);
	pthread_cond_init(&c->gate, NULL);
	sigemptyset(&sa.sa_mask);
	sigaction(KICK_SIGNAL, &sa, NULL);

	/*
	 * shmem THP only for 2M-aligned sizes: a 4K fallocate must not
	 * allocate (and a 4K punch split) a 2M folio
	 */
	r = thp_set(p->size % SZ_2M ? "never" : "within_size", old_thp,
		    sizeof(old_thp));
	thp_changed = !r;
	thp_set(NULL, res->thp, sizeof(res->thp));

	r = cell_setup(c, res);
	if (r)
		goto out;
	khz = ioctl(c->w[0].vcpu->fd, KVM_GET_TSC_KHZ, 0);
	res->tsc_khz = khz > 0 ? khz : 0;

	for (i = 0; i < p->vcpus; i++) {
		r = -pthread_create(&c->w[i].thread, NULL, worker_main, &c->w[i]);
		if (r) {
			snprintf(res->error, sizeof(res->error),
				 "starting vCPU thread %u: %s", i, strerror(-r));
			break;
		}
		started++;
	}
	gate_open(c, r ? -1 : 1);
	if (!r)
		cell_watch(c, res);
	for (i = 0; i < started; i++)
		pthread_join(c->w[i].thread, NULL);
	if (r)
		goto out;
	for (i = 0; i < p->vcpus; i++) {
		if (c->w[i].error[0] && !res->error[0])
			snprintf(res->error, sizeof(res->error), "%s",
				 c->w[i].error);
	}
	r = cell_collect(c, res);
	if (!r && res->error[0])
		r = -EIO;
out:
	for (i = 0; i < VM_MAX_VCPUS; i++)
		free(c->w[i].host);
	cell_free(c);
	pthread_cond_destroy(&c->gate);
	pthread_mutex_destroy(&c->gate_lock);
	free(c);
	if (thp_changed)
		thp_set(old_thp, NULL, 0);
	return r;
}

void cell_result_free(struct cell_result *res)
{
	free(res->samples);
	res->samples = NULL;
	res->n = 0;
}
