// SPDX-License-Identifier: GPL-2.0
/*
 * Host side of the conversion workload: builds the VM of one cell, runs
 * one thread per vCPU (started together by a barrier; the threads and
 * their watchdog are in vcpu_worker.c), and collects the samples.
 *
 * Memory: slot 0 holds code, stacks, guest arguments, copy buffers and
 * sample arrays. Slot 1 at PRIV_GPA is KVM_MEM_PRIVATE: its private part
 * is an MFD_INACCESSIBLE fd, its shared part anonymous memory
 * (destructive) or the fd itself mapped MAP_SHARED (in place, where the
 * shared page is the private page after conversion). In gmem mode the
 * VM is software-protected and slot 1 is a KVM_MEM_GUEST_MEMFD slot of
 * Linux 6.8+: a guest_memfd and anonymous memory. vCPU i owns
 * [PRIV_GPA + i * stride, + size).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "churn.h"
#include "stats.h"
#include "vcpu_worker.h"

#define PRIV_SLOT	1
#define PRIV_GPA	(1ULL << 30)
#define MAX_SAMPLES	200000ULL	/* per vCPU, both directions */

/*
 * An implicit conversion faults at most once per 4K page, an explicit
 * one exits once: twice that plus slack is no legitimate conversion,
 * and still ends a livelock (a handler that never makes the range
 * usable, the guest faulting forever) in milliseconds.
 */
uint32_t cell_max_exits(const struct cell_params *p)
{
	uint64_t n = 2 * (p->size / GUEST_CONV_PAGE) + 16;

	if (p->max_exits)
		return p->max_exits;
	return n > UINT32_MAX ? UINT32_MAX : n;
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

/*
 * The in-place variant's merge back (kernel/patches 0048): "1" or "0"
 * into shmem.convert_merge, its value before in *old ('?': none).
 * -ENOENT: the kernel has no such switch.
 */
static int merge_set(char val, char *old)
{
	char buf[8] = "";
	FILE *f = fopen(CHURN_MERGE_SWITCH, "r");

	*old = '?';
	if (!f)
		return -errno;
	if (fgets(buf, sizeof(buf), f))
		*old = buf[0] == 'Y' || buf[0] == '1' ? '1' : '0';
	fclose(f);
	f = fopen(CHURN_MERGE_SWITCH, "w");
	if (!f)
		return -errno;
	fputc(val, f);
	return fclose(f) ? -errno : 0;
}

/*
 * Write every page of a fresh array now: the handler's first write to a
 * page would otherwise fault inside a timed exit (and count as the
 * conversion's host fault with --counts).
 */
static void prefault(void *p, size_t len)
{
	volatile char *c = p;
	size_t off;

	for (off = 0; off < len; off += 4096)
		c[off] = 0;
}

/*
 * The calibration's fault pages: allocated by the host now (so a fault
 * on them is KVM's mapping only, no host fault), in 4K host pages (so
 * KVM maps each one on its own)
 */
static void cal_prepare(void *hva)
{
	volatile char *c = hva;
	size_t off;

	madvise(hva, GUEST_CAL_BUF, MADV_NOHUGEPAGE);
	for (off = 0; off < GUEST_CAL_BUF; off += GUEST_CAL_STRIDE)
		c[off] = 0;
}

/* --busy-vcpus: each one's buffer, touched page by page */
#define BUSY_BYTES	(64 * 1024)

/* the calibration's medians over the cell's vCPUs, in ns */
static void cal_collect(struct cell *c, struct cell_result *res)
{
	uint64_t v[VM_MAX_VCPUS * GUEST_CAL_N];
	unsigned int k, i;
	double med;
	size_t n, j;

	for (k = 0; k < CAL_NR; k++) {
		for (i = 0, n = 0; i < c->p->vcpus; i++) {
			const struct guest_args *a = c->w[i].args;

			for (j = 0; j < a->cal_n[k] && j < GUEST_CAL_N; j++)
				v[n++] = a->cal[k][j];
		}
		res->cal_n[k] = n;
		res->cal_ns[k] = NAN;
		if (res->tsc_khz && !stats_percentile_u64(v, n, 50, &med))
			res->cal_ns[k] = med * 1e6 / res->tsc_khz;
	}
}

/* IPIs the kernel took so far: RES, CAL and TLB of /proc/interrupts */
static bool ipis_read(uint64_t *sum)
{
	static const char *const rows[] = { "RES:", "CAL:", "TLB:" };
	char line[4096], *p, *end;
	unsigned int k, found = 0;
	FILE *f = fopen("/proc/interrupts", "r");

	*sum = 0;
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		p = line + strspn(line, " ");
		for (k = 0; k < 3 && strncmp(p, rows[k], 4); k++)
			;
		if (k == 3)
			continue;
		found++;
		/* the per-CPU counts, up to the row's description */
		for (p += 4;; p = end) {
			unsigned long long v = strtoull(p, &end, 10);

			if (end == p)
				break;
			*sum += v;
		}
	}
	fclose(f);
	return found > 0;
}

/* the cell's VM-wide counts now (ipis_read(), KVM's flush requests) */
static bool vm_counts_read(struct kvm_stats *st, uint64_t *ipis,
			   uint64_t *tlb)
{
	if (!ipis_read(ipis) || kvm_stats_read(st))
		return false;
	*tlb = kvm_stats_value(st, "remote_tlb_flush_requests");
	return true;
}

static void cell_free(struct cell *c)
{
	host_conv_destroy(&c->conv);
	if (c->vm)
		kvm_vm_free(c->vm);
}

/*
 * The conversion workload's guest arguments and buffers of vCPU i (its
 * worker's base set), its host phases allocated: 0 or -errno
 */
static int conv_setup_worker(struct cell *c, struct worker *w,
			     unsigned int i, uint64_t max_iters,
			     bool null_exits, uint64_t *args_gpa,
			     struct cell_result *res)
{
	const struct cell_params *p = c->p;
	uint64_t args = __vm_alloc(c->vm, sizeof(*w->args), 64);
	uint64_t samples = __vm_alloc(c->vm, MAX_SAMPLES *
				      sizeof(struct guest_sample), 64);
	uint64_t scratch = __vm_alloc(c->vm, p->size, GUEST_PAGE_SIZE);
	uint64_t cal = __vm_alloc(c->vm, GUEST_CAL_BUF, GUEST_CAL_STRIDE);

	if (!args || !samples || !scratch || !cal)
		return snprintf(res->error, sizeof(res->error),
				"guest memory for vCPU %u", i), -ENOMEM;
	w->args = addr_gpa2hva(c->vm, args);
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
		.inplace = conv_modes[p->mode]->shared_is_private,
		.hang_k = p->inject.kind == INJECT_HANG && !i ?
			  p->inject.k : GUEST_NO_HANG,
		.cal_gpa = null_exits ? cal : 0,
		.cal_buf = cal,
	};
	w->cal_gpa = w->args->cal_gpa;
	cal_prepare(addr_gpa2hva(c->vm, cal));
	w->max_k = 2 * max_iters;
	w->host = calloc(w->max_k, sizeof(*w->host));
	if (!w->host)
		return snprintf(res->error, sizeof(res->error),
				"out of memory"), -ENOMEM;
	*args_gpa = args;
	return 0;
}

/*
 * vCPU i of worker w, running entry(args at gpa args); the watchdog
 * bounds its runs (no timer syscalls per exit). 0 or -errno with
 * res->error naming what (e.g. "vCPU", "busy vCPU")
 */
static int cell_add_vcpu(struct cell *c, struct worker *w, unsigned int i,
			 void *entry, uint64_t args, const char *what,
			 struct cell_result *res)
{
	int r = __vm_vcpu_add(c->vm, i, entry, &w->vcpu);

	if (!r)
		r = __vcpu_args_set(w->vcpu, 1, &args);
	if (r)
		return snprintf(res->error, sizeof(res->error),
				"adding %s %u: %s", what, i, strerror(-r)), r;
	vcpu_set_timeout(w->vcpu, 0);
	return 0;
}

/* --busy-vcpus: vCPUs vcpus.. that only run (guest_busy_main()); 0 or -errno */
static int busy_setup(struct cell *c, struct cell_result *res)
{
	const struct cell_params *p = c->p;
	unsigned int i;
	int r;

	for (i = p->vcpus; i < p->vcpus + p->busy_vcpus; i++) {
		struct worker *w = &c->w[i];
		uint64_t args = __vm_alloc(c->vm, sizeof(*w->args), 64);
		uint64_t buf = __vm_alloc(c->vm, BUSY_BYTES, GUEST_PAGE_SIZE);

		if (!args || !buf)
			return snprintf(res->error, sizeof(res->error),
					"guest memory for busy vCPU %u", i), -ENOMEM;
		w->cell = c;
		w->args = addr_gpa2hva(c->vm, args);
		*w->args = (struct guest_args) {
			.base = buf, .size = BUSY_BYTES, .hang_k = GUEST_NO_HANG,
		};
		r = cell_add_vcpu(c, w, i, (void *)guest_busy_main, args,
				  "busy vCPU", res);
		if (r)
			return r;
	}
	return 0;
}

static int cell_setup(struct cell *c, struct cell_result *res)
{
	const struct cell_params *p = c->p;
	uint64_t stride = (p->size + SZ_2M - 1) & ~(SZ_2M - 1);
	uint64_t slot_size = stride * p->vcpus;
	uint64_t per_vcpu = p->churn ? churn_guest_bytes(p) :
			    p->size + MAX_SAMPLES * sizeof(struct guest_sample) +
			    sizeof(struct guest_args) + 2 * GUEST_PAGE_SIZE +
			    GUEST_CAL_BUF + GUEST_CAL_STRIDE;
	struct vm_opts opts = {
		.mem_size = (VM_DEFAULT_MEM_SIZE + per_vcpu * p->vcpus +
			     p->busy_vcpus * (BUSY_BYTES + 2 * GUEST_PAGE_SIZE) +
			     SZ_2M - 1) & ~(SZ_2M - 1),
		.type = conv_modes[p->mode]->vm_type,
	};
	uint64_t max_iters;
	bool null_exits;
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
	/*
	 * explicit conversions exit on the hypercall; every cell's
	 * calibration does (null exits), where the kernel lets it
	 */
	r = __vm_enable_exit_map_gpa_range(c->vm);
	if (r && p->trigger == TRIGGER_EXPLICIT)
		return snprintf(res->error, sizeof(res->error),
				"enabling KVM_CAP_EXIT_HYPERCALL: %s",
				strerror(-r)), r;
	null_exits = !r;
	r = host_conv_init(&c->conv, c->vm, PRIV_SLOT, p, PRIV_GPA, slot_size,
			   stride);
	if (r)
		return snprintf(res->error, sizeof(res->error),
				"setting up private memory: %s%s",
				strerror(-r), c->conv.detail), r;
	c->conv.exact = p->churn != NULL;

	max_iters = p->warmup + (p->iterations ? p->iterations : MAX_SAMPLES / 2);
	for (i = 0; i < p->vcpus; i++) {
		struct worker *w = &c->w[i];
		uint64_t args_gpa;

		w->cell = c;
		w->base = PRIV_GPA + i * stride;
		r = p->churn ? churn_setup_worker(c, w, i, &args_gpa, res) :
			       conv_setup_worker(c, w, i, max_iters, null_exits,
						 &args_gpa, res);
		if (r)
			return r;
		prefault(w->host, w->max_k * sizeof(*w->host));
		r = cell_add_vcpu(c, w, i, p->churn ? (void *)guest_churn_main :
				  (void *)guest_conv_main, args_gpa, "vCPU", res);
		if (r)
			return r;
		if (!p->counts)
			continue;
		w->snap_k = ~0ULL;
		w->work = calloc(w->max_k, sizeof(*w->work));
		if (w->work)
			prefault(w->work, w->max_k * sizeof(*w->work));
		r = w->work ? kvm_stats_open(&w->stats, w->vcpu->fd) : -ENOMEM;
		if (r)
			return snprintf(res->error, sizeof(res->error),
					"--counts: vCPU %u statistics: %s", i,
					strerror(-r)), r;
	}
	return busy_setup(c, res);
}

/* guest and host halves of each recorded conversion, in ns */
static int cell_collect(struct cell *c, struct cell_result *res)
{
	const struct cell_params *p = c->p;
	uint64_t total = 0, i, j;

	if (p->churn)
		return churn_collect(c, res);
	for (i = 0; i < p->vcpus; i++)
		total += c->w[i].args->nsamples;
	res->samples = calloc(total ? total : 1, sizeof(*res->samples));
	if (p->counts)
		res->work = calloc(total ? total : 1, sizeof(*res->work));
	if (!res->samples || (p->counts && !res->work))
		return -ENOMEM;
	for (i = 0; i < p->vcpus; i++) {
		struct worker *w = &c->w[i];
		struct guest_sample *gs = addr_gpa2hva(c->vm,
					(uint64_t)(uintptr_t)w->args->samples);

		res->conversions += w->args->done_convs;
		res->interrupted |= w->interrupted;
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
			/*
			 * implicit: the record update is the exit's work
			 * (gmem's handler's is inside the guest's window)
			 */
			if (h && p->trigger == TRIGGER_IMPLICIT &&
			    conv_modes[p->mode]->flip_is_record) {
				s->total += h->record;
				s->first += h->record;
			}
			/* --inject=skew: what --debug must catch */
			if (h && !i && p->inject.kind == INJECT_SKEW &&
			    gs[j].k == p->inject.k)
				s->host = s->total + s->exit_rt + 1000;
			if (res->work && gs[j].k < w->max_k) {
				res->work[res->n - 1] = w->work[gs[j].k];
				res->work[res->n - 1].bytes_copied = gs[j].copied;
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
	char old_thp[32] = "";
	unsigned int i, started = 0;
	struct kvm_stats vm_st = { 0 };
	uint64_t ipi0 = 0, tlb0 = 0;
	bool thp_changed, merge_changed = false, have_vm;
	char old_merge = '0';
	int r, khz;

	memset(res, 0, sizeof(*res));
	res->p = *p;
	if (!c)
		return -ENOMEM;
	c->p = &res->p;
	c->max_exits = cell_max_exits(p);
	pthread_mutex_init(&c->gate_lock, NULL);
	pthread_cond_init(&c->gate, NULL);
	worker_signals_init();

	/*
	 * shmem THP only for 2M-aligned sizes: a 4K fallocate must not
	 * allocate (and a 4K punch split) a 2M folio. Churn's range is
	 * 2M-aligned and meant to start huge.
	 */
	r = thp_set(p->size % SZ_2M ? "never" : "within_size", old_thp,
		    sizeof(old_thp));
	thp_changed = !r;
	thp_set(NULL, res->thp, sizeof(res->thp));
	/*
	 * churn in place: the merge back as asked, off unless --churn-merge
	 * (where the kernel has the switch; asked for, it must)
	 */
	if (p->churn && p->mode == MODE_INPLACE) {
		r = merge_set(p->churn->merge ? '1' : '0', &old_merge);
		if (r && p->churn->merge) {
			snprintf(res->error, sizeof(res->error),
				 "--churn-merge: %s: %s (the kernel has no merge back, kernel/patches 0048)",
				 CHURN_MERGE_SWITCH, strerror(-r));
			r = -ENOTSUP;
			goto out;
		}
		merge_changed = !r;
	}

	r = cell_setup(c, res);
	if (r)
		goto out;
	khz = ioctl(c->w[0].vcpu->fd, KVM_GET_TSC_KHZ, 0);
	res->tsc_khz = khz > 0 ? khz : 0;

	for (i = 0; i < p->vcpus + p->busy_vcpus; i++) {
		r = -pthread_create(&c->w[i].thread, NULL, worker_main, &c->w[i]);
		if (r) {
			snprintf(res->error, sizeof(res->error),
				 "starting vCPU thread %u: %s", i, strerror(-r));
			break;
		}
		started++;
	}
	have_vm = !r && !kvm_stats_open(&vm_st, c->vm->fd);
	have_vm = have_vm && vm_counts_read(&vm_st, &ipi0, &tlb0);
	gate_open(c, r ? -1 : 1);
	if (!r)
		cell_watch(c, res);
	for (i = 0; i < started; i++)
		pthread_join(c->w[i].thread, NULL);
	if (have_vm && vm_counts_read(&vm_st, &res->ipis, &res->tlb_flush_req)) {
		res->vm_counts = true;
		res->ipis -= ipi0;
		res->tlb_flush_req -= tlb0;
	}
	if (vm_st.names)
		kvm_stats_close(&vm_st);
	/* what follows (collecting, freeing the VM) is the cell's teardown */
	if (p->trace_set)
		p->trace_set(p->trace_arg, p->trace_ctx + TRACE_CTX_TEARDOWN);
	if (r)
		goto out;
	for (i = 0; i < p->vcpus; i++) {
		if (c->w[i].error[0] && !res->error[0])
			snprintf(res->error, sizeof(res->error), "%s",
				 c->w[i].error);
	}
	r = cell_collect(c, res);
	cal_collect(c, res);
	if (!r && res->error[0])
		r = -EIO;
out:
	for (i = 0; i < VM_MAX_VCPUS; i++) {
		free(c->w[i].host);
		free(c->w[i].work);
		if (p->counts && c->w[i].stats.names)
			kvm_stats_close(&c->w[i].stats);
	}

	cell_free(c);
	pthread_cond_destroy(&c->gate);
	pthread_mutex_destroy(&c->gate_lock);
	free(c);
	if (thp_changed)
		thp_set(old_thp, NULL, 0);
	if (merge_changed)
		merge_set(old_merge, &old_merge);
	return r;
}

void cell_result_free(struct cell_result *res)
{
	free(res->samples);
	free(res->work);
	churn_result_free(res->churn);
	res->samples = NULL;
	res->work = NULL;
	res->churn = NULL;
	res->n = 0;
}
