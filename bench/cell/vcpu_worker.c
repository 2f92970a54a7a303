// SPDX-License-Identifier: GPL-2.0
/*
 * The vCPU threads of a cell and their watchdog. A vCPU thread runs its
 * vCPU and handles each exit the way the mode says, crediting the host's
 * phases to the conversion the exit belongs to. Nothing here may hang or
 * abort: a conversion that takes more than max_exits exits or more than
 * stall_s seconds fails the cell with a message naming the vCPU, the
 * conversion, the guest's RIP and the last exit, and SIGINT/SIGTERM
 * stop the threads within a second, keeping every verified conversion.
 *
 * Stopping a thread (a "kick"): the watchdog sets w->kick, then
 * run->immediate_exit and a signal without SA_RESTART, so KVM_RUN
 * returns EINTR; the thread looks at w->kick before every KVM_RUN. A
 * kick that lands between that look and KVM_RUN is lost, so the
 * watchdog repeats it every tick until the thread is done.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <sys/resource.h>

#include "gmem_uapi.h"
#include "vcpu_worker.h"

/* SIGINT/SIGTERM: the watchdog stops the cell, convbench starts no other */
static volatile sig_atomic_t stop_requested;

void cell_request_stop(void)
{
	stop_requested = 1;
}

bool cell_stop_requested(void)
{
	return stop_requested;
}

#define KICK_SIGNAL	(SIGRTMIN + 5)
#define WATCH_TICK_MS	100

static void kick_handler(int sig)
{
	(void)sig;	/* only interrupts KVM_RUN */
}

void worker_signals_init(void)
{
	struct sigaction sa = { .sa_handler = kick_handler };

	sigemptyset(&sa.sa_mask);
	sigaction(KICK_SIGNAL, &sa, NULL);
}

/*
 * The trace context of conversion k in direction dir: warm-up
 * conversions have their own (trace_ctx + TRACE_CTX_WARMUP), recorded
 * ones one per direction
 */
static unsigned int trace_ctx_of(const struct cell_params *p, uint64_t k,
				 unsigned int dir)
{
	return p->trace_ctx + (k < 2 * p->warmup ? TRACE_CTX_WARMUP : dir);
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

static uint64_t guest_rip(struct worker *w)
{
	struct kvm_regs regs = { 0 };

	__vcpu_get_regs(w->vcpu, &regs);
	return regs.rip;
}

/* --counts: KVM's counters and the thread's page faults, now */
static void work_read(struct worker *w, struct work_snap *now)
{
	struct rusage ru;

	kvm_stats_read(&w->stats);
	getrusage(RUSAGE_THREAD, &ru);
	*now = (struct work_snap) {
		/*
		 * external interrupts exit whenever a timer fires: time,
		 * not work (a 2M conversion takes more of them than a 4K)
		 */
		.exits = kvm_stats_value(&w->stats, "exits") -
			 kvm_stats_value(&w->stats, "irq_exits"),
		.pf_taken = kvm_stats_value(&w->stats, "pf_taken"),
		.pf_fixed = kvm_stats_value(&w->stats, "pf_fixed"),
		.faults = ru.ru_minflt + ru.ru_majflt,
	};
}

/*
 * --counts: conversion k starts (k = ~0: the guest is done) as of now,
 * a snapshot taken as its exit came back. The counts since the last
 * start are the work of the conversion that started then: it runs until
 * the guest asks for the next one (fill and verify in between take no
 * exit and no fault, the range being mapped writable).
 */
static void work_mark(struct worker *w, uint64_t k, const struct work_snap *now)
{
	if (!w->cell->p->counts)
		return;
	if (w->snap_k < w->max_k) {
		struct conv_work *c = &w->work[w->snap_k];

		c->exits = now->exits - w->snap.exits;
		c->npt_faults = now->pf_taken - w->snap.pf_taken;
		c->npt_fixed = now->pf_fixed - w->snap.pf_fixed;
		c->host_faults = now->faults - w->snap.faults;
	}
	w->snap = *now;
	w->snap_k = k;
}

/* the watchdog stopped this thread: say why, if it is an error */
static void kicked(struct worker *w, int why)
{
	const struct cell_params *p = w->cell->p;
	uint64_t k = w->args->done_convs;	/* the one in progress */

	if (why == KICK_STOP) {
		w->interrupted = true;
		return;
	}
	fail(w, "vCPU %u: conversion %llu (%s) did not finish within %u s "
	     "(guest rip %#llx, last exit %s, %llu exits handled): is the "
	     "guest stalled?", w->vcpu->id, (unsigned long long)k,
	     conv_dir_name(k & 1), p->stall_s,
	     (unsigned long long)guest_rip(w), exit_reason_str(w->last_exit),
	     (unsigned long long)w->exits);
}

/* a ucall from the guest: 1 = keep running, 0 = done, -1 = error */
static int handle_ucall(struct worker *w)
{
	struct ucall uc;
	char buf[512];
	uint64_t k;

	switch (get_ucall(w->vcpu, &uc)) {
	case UCALL_DONE:
		work_mark(w, ~0ULL, &w->io_snap);
		return 0;
	case UCALL_SYNC:
		k = uc.args[1];
		if (uc.args[0] == GUEST_SYNC_FLIP) {
			const struct cell_params *p = w->cell->p;
			uint64_t t0;
			int r;

			/* the accesses that fault next belong to k */
			w->cur_k = k;
			w->cur_exits = 0;
			work_mark(w, k, &w->io_snap);
			if (p->trace_set)
				p->trace_set(p->trace_arg, trace_ctx_of(p, k,
					     uc.args[2]));
			t0 = rdtsc();
			r = host_conv_flip(&w->cell->conv, w->base,
					   uc.args[2] == GUEST_DIR_TO_PRIVATE);
			/*
			 * On TDX the record update is the memory-error
			 * exit's work: its time goes into the sample
			 * (cell_collect()) and into the handler's. gmem's
			 * flip is only the stand-in for the guest's bit:
			 * its handler sets the attributes, timed there.
			 */
			if (k < w->max_k && conv_modes[p->mode]->flip_is_record) {
				w->host[k].record = rdtsc() - t0;
				w->host[k].handler += w->host[k].record;
			}
			if (r)
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
		if (w->cell->sync_hook)
			return w->cell->sync_hook(w, uc.args);
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
 * The handler of one conversion exit, with the test hooks of --inject
 * (vCPU 0, conversion k): 0 or -errno, conv->detail saying where.
 */
static int convert(struct worker *w, uint64_t k, uint64_t gpa, uint64_t len,
		   bool to_private, bool hc, struct host_phases *ph)
{
	const struct inject *inj = &w->cell->p->inject;
	struct conv_ctx *conv = &w->cell->conv;
	bool hit = inj->kind != INJECT_NONE && !w->vcpu->id && k == inj->k;
	uint64_t target = w->base + inj->off;
	int r;

	if (hit && inj->kind == INJECT_FAIL) {
		snprintf(conv->detail, sizeof(conv->detail),
			 " (injected failure)");
		return -EIO;
	}
	if (hit && inj->kind == INJECT_SKIP)
		/* the record changes, the memory does not */
		return hc ? host_conv_flip(conv, gpa, to_private) : 0;
	r = host_conv_convert(conv, gpa, len, to_private, hc, ph);
	if (!r && hit && inj->kind == INJECT_CORRUPT && !to_private &&
	    target >= gpa && target < gpa + len)
		host_conv_corrupt(conv, target, INJECT_XOR);
	return r;
}

/* wait at the cell's start gate: 1 go, -1 abort */
static int wait_gate(struct worker *w)
{
	int r;

	pthread_mutex_lock(&w->cell->gate_lock);
	while (!w->cell->gate_state)
		pthread_cond_wait(&w->cell->gate, &w->cell->gate_lock);
	r = w->cell->gate_state;
	pthread_mutex_unlock(&w->cell->gate_lock);
	return r;
}

/* a conversion an exit asks for */
struct conv_req {
	uint64_t gpa, npages;
	bool to_private;
	bool hc;		/* a hypercall: the guest's next conversion */
};

enum exit_kind {
	EXIT_CONVERSION,	/* req filled in */
	EXIT_HANDLED,		/* a ucall: run again */
	EXIT_END,		/* done, or w->error says why */
};

/* what KVM_RUN's return r and the exit ask of the host */
static enum exit_kind exit_of(struct worker *w, int r, struct conv_req *req)
{
	const struct cell_params *p = w->cell->p;
	struct kvm_run *run = w->vcpu->run;
	uint64_t attrs;

	if (r == -EFAULT && run->exit_reason == KVM_EXIT_MEMORY_ERROR) {
		struct kvm_run_memory_exit *m = kvm_run_memory(run);

		req->gpa = m->gpa;
		req->npages = m->size / GUEST_CONV_PAGE;
		req->to_private = m->flags & KVM_MEMORY_EXIT_FLAG_PRIVATE;
	} else if (r == -EFAULT &&
		   run->exit_reason == GMEM_EXIT_MEMORY_FAULT) {
		/* guest_memfd's (6.8+): the same exit, another layout */
		struct gmem_memory_fault *m = gmem_run_fault(run);

		req->gpa = m->gpa;
		req->npages = m->size / GUEST_CONV_PAGE;
		req->to_private = m->flags & GMEM_MEMORY_EXIT_FLAG_PRIVATE;
	} else if (r) {
		snprintf(w->error, sizeof(w->error),
			 "vCPU %u: KVM_RUN: %s (exit reason %u, %s; guest rip %#llx)",
			 w->vcpu->id, strerror(-r), run->exit_reason,
			 exit_reason_str(run->exit_reason),
			 (unsigned long long)guest_rip(w));
		return EXIT_END;
	} else if (get_map_gpa_range(w->vcpu, &req->gpa, &req->npages,
				     &attrs)) {
		if (w->cal_gpa && req->gpa == w->cal_gpa) {
			/* a null exit of the calibration: no work, no conversion */
			run->hypercall.ret = 0;
			w->cal_exits++;
			w->last_exit = run->exit_reason;
			return EXIT_HANDLED;
		}
		req->to_private = attrs & KVM_MAP_GPA_RANGE_ENCRYPTED;
		req->hc = true;
	} else if (run->exit_reason == KVM_EXIT_IO) {
		/* before the ucall is read: the host's own work */
		if (p->counts)
			work_read(w, &w->io_snap);
		w->last_exit = run->exit_reason;
		return handle_ucall(w) <= 0 ? EXIT_END : EXIT_HANDLED;
	} else {
		char tables[96] = "";

		if (run->exit_reason == KVM_EXIT_SHUTDOWN)
			x86_check_tables(w->vcpu->vm, tables, sizeof(tables));
		snprintf(w->error, sizeof(w->error),
			 "vCPU %u: unexpected exit %u (%s; guest rip %#llx%s%s)",
			 w->vcpu->id, run->exit_reason,
			 exit_reason_str(run->exit_reason),
			 (unsigned long long)guest_rip(w),
			 *tables ? "; " : "", tables);
		return EXIT_END;
	}
	return EXIT_CONVERSION;
}

/*
 * Do the conversion an exit asked for, timed into w->host[k] from the
 * exit (t_exit); false when the vCPU thread must stop
 */
static bool do_conversion(struct worker *w, const struct conv_req *req,
			  uint64_t *hc_count, uint64_t t_exit)
{
	const struct cell_params *p = w->cell->p;
	struct kvm_run *run = w->vcpu->run;
	struct host_phases ph = { 0 };
	uint64_t k, len = req->npages * GUEST_CONV_PAGE;
	int r, why;

	w->last_exit = run->exit_reason;
	w->last_gpa = req->gpa;

	/*
	 * The conversion an exit belongs to: a hypercall starts the
	 * next one, in the guest's order; faults belong to the one
	 * in progress (the last hypercall's, or the last flip's).
	 */
	if (req->hc) {
		struct work_snap now;

		w->cur_k = (*hc_count)++;
		w->cur_exits = 0;
		if (p->counts) {
			work_read(w, &now);
			work_mark(w, w->cur_k, &now);
		}
	}
	k = w->cur_k;
	if (++w->cur_exits > w->cell->max_exits) {
		fail(w, "vCPU %u: conversion %llu (%s) took more than %u exits (guest rip %#llx, last exit %s at gpa %#llx): the handler does not make the range usable",
		     w->vcpu->id, (unsigned long long)k,
		     conv_dir_name(k & 1), w->cell->max_exits,
		     (unsigned long long)guest_rip(w),
		     exit_reason_str(w->last_exit),
		     (unsigned long long)req->gpa);
		return false;
	}
	if (p->trace_set)
		/* until the next exit, kernel work is this conversion's */
		p->trace_set(p->trace_arg, trace_ctx_of(p, k, req->to_private ?
			     DIR_TO_PRIVATE : DIR_TO_SHARED));
	r = convert(w, k, req->gpa, len, req->to_private, req->hc, &ph);
	if (req->hc)
		run->hypercall.ret = 0;
	why = atomic_load(&w->kick);
	if (r == -EINTR && why) {
		/*
		 * the kick landed in the handler's syscall (shmem's
		 * fallocate() stops at a pending signal): a stop, not
		 * a failed conversion; the guest never verified it
		 */
		kicked(w, why);
		return false;
	}
	if (r) {
		fail(w, "vCPU %u: conversion %llu: converting gpa %#llx+%#llx to %s: %s%s",
		     w->vcpu->id, (unsigned long long)k,
		     (unsigned long long)req->gpa, (unsigned long long)len,
		     req->to_private ? "private" : "shared", strerror(-r),
		     w->cell->conv.detail);
		return false;
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
	return true;
}

void *worker_main(void *arg)
{
	struct worker *w = arg;
	uint64_t hc_count = 0, t_exit;
	enum exit_kind kind;
	sigset_t set;
	int r, why;

	sigemptyset(&set);
	sigaddset(&set, KICK_SIGNAL);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	if (wait_gate(w) < 0) {
		atomic_store(&w->done, true);
		return NULL;
	}
	for (;;) {
		struct conv_req req = { 0 };

		why = atomic_load(&w->kick);
		if (why) {
			kicked(w, why);
			break;
		}
		r = __vcpu_run(w->vcpu);
		t_exit = rdtsc();
		if (r == -EINTR)
			continue;	/* a kick (seen above) or a stray signal */
		w->exits++;
		kind = exit_of(w, r, &req);
		if (kind == EXIT_END)
			break;
		if (kind == EXIT_HANDLED)
			continue;
		if (!do_conversion(w, &req, &hc_count, t_exit))
			break;
	}
	atomic_store(&w->done, true);
	return NULL;
}

static void kick(struct worker *w, int why)
{
	int none = KICK_NONE;

	atomic_compare_exchange_strong(&w->kick, &none, why);
	w->vcpu->run->immediate_exit = 1;
	pthread_kill(w->thread, KICK_SIGNAL);
}

static uint64_t ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC_RAW, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 +
	       (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/*
 * --busy-vcpus: the converting vCPUs are done; the busy ones stop at
 * their next loop, or are kicked out after the stall timeout
 */
static void busy_stop(struct cell *c)
{
	const struct cell_params *p = c->p;
	unsigned int i, done, n = p->vcpus + p->busy_vcpus;
	uint64_t waited = 0;

	for (i = p->vcpus; i < n; i++)
		c->w[i].args->stop = 1;
	for (;;) {
		struct timespec tick = { 0, WATCH_TICK_MS * 1000 * 1000 };

		for (i = p->vcpus, done = 0; i < n; i++)
			done += atomic_load(&c->w[i].done);
		if (done == p->busy_vcpus)
			return;
		if (waited > p->stall_s * 1000ULL || cell_stop_requested()) {
			for (i = p->vcpus; i < n; i++)
				if (!atomic_load(&c->w[i].done))
					kick(&c->w[i], KICK_STOP);
			return;
		}
		nanosleep(&tick, NULL);
		waited += WATCH_TICK_MS;
	}
}

void cell_watch(struct cell *c, struct cell_result *res)
{
	const struct cell_params *p = c->p;
	uint64_t last_done[VM_MAX_VCPUS] = { 0 }, since[VM_MAX_VCPUS] = { 0 };
	uint64_t now = 0, convs;
	struct timespec t0;
	unsigned int i, done;
	bool ending = false;

	clock_gettime(CLOCK_MONOTONIC_RAW, &t0);
	for (;;) {
		struct timespec tick = { 0, WATCH_TICK_MS * 1000 * 1000 };

		nanosleep(&tick, NULL);
		now = ms_since(&t0);
		for (i = 0, done = 0, convs = 0; i < p->vcpus; i++) {
			done += atomic_load(&c->w[i].done);
			convs += c->w[i].args->done_convs;
		}
		if (done == p->vcpus)
			break;
		if (p->progress)
			p->progress(p->progress_arg, convs);
		/* --duration: finish the round trip, then GUEST_DONE */
		if (!ending && p->duration_s > 0 && now >= p->duration_s * 1000) {
			for (i = 0; i < p->vcpus; i++)
				c->w[i].args->stop = 1;
			ending = true;
		}
		for (i = 0; i < p->vcpus; i++) {
			struct worker *w = &c->w[i];
			uint64_t d = w->args->done_convs;

			if (atomic_load(&w->done))
				continue;
			if (cell_stop_requested()) {
				kick(w, KICK_STOP);
			} else if (d != last_done[i]) {
				last_done[i] = d;
				since[i] = now;
			} else if (now - since[i] > p->stall_s * 1000ULL) {
				kick(w, KICK_TIMEOUT);
			}
		}
	}
	res->wall_s = now / 1000.0;
	busy_stop(c);
}
