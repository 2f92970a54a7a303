// SPDX-License-Identifier: GPL-2.0
/*
 * convstress: random private<->shared conversions on several vCPUs, in
 * both modes, while host threads attack the same private fds. Every
 * conversion's data is verified by the guest; every host operation's
 * result by the thread that did it. See stress.h for the layout.
 *
 *   convstress [--duration=S] [--seed=N] [--start-op=N[,N...]]
 *              [--vcpus=N] [--range-mb=N] [--no-loop] [-v]
 *
 * Threads: one per vCPU (runs it, converts for it: record, then punch/
 * fallocate or MEMFD_IOC_CONVERT_RANGE, retrying while a pin makes the
 * fd busy), one per fd for its host region (host_region.c), one that
 * pins shared pages of the vCPUs' in-place ranges (vmsplice, O_DIRECT
 * from a loop device), one that compacts memory and drops caches, and
 * one that tries to read private offsets of the vCPUs' ranges.
 *
 * Exit 0 when nothing went wrong, 1 on the first failure (data mismatch,
 * an access that should have been refused, a hung vCPU), 2 bad option.
 * The seed is printed first; the same seed replays each thread's choices.
 * The main thread watches the vCPUs: one that stays in KVM_RUN for 30 s
 * hangs, and before anything stops, diag.c reports where every vCPU and
 * its thread are; a SHUTDOWN exit gets the same report. At the end each
 * vCPU's position is printed ("# positions: --start-op=..."): a storm
 * that the emulator stopped can continue from there in a fresh VM.
 * Kernel reports (WARNING, BUG, KASAN, lockdep) are the VM runner's job.
 */
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <linux/loop.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "inplace.h"
#include "inplace_check.h"
#include "stress_host.h"
#include "verdict.h"

#define PAGE		STRESS_PAGE
#define GPA_D		0x40000000ULL
#define GPA_I		0x60000000ULL
#define HOST_REGION	(16ULL << 20)
/* the vCPU's own bound, should the main thread's watch not see a hang */
#define RUN_BACKSTOP_MS	(opt.crawl_ms + 30000)
#define DIAG_WINDOW_MS	2000	/* between the two looks of a report */
#define DIAG_KICK_MS	5000	/* for every vCPU to leave KVM_RUN */
#define SHUTDOWN_WAIT_MS 30000	/* a SHUTDOWN waits this long for its report */
#define BUSY_RETRY_US	200
#define BUSY_MAX_US	5000000	/* a pin that stays this long is a failure */
#define LOOP_SIZE	(16ULL << 20)
#define MAX_VCPUS	16

static struct {
	double duration;
	uint64_t seed;
	uint64_t start_op[MAX_VCPUS];	/* --start-op, per vCPU */
	unsigned int nstart;		/* how many were given */
	unsigned int vcpus;
	unsigned int range_mb;
	unsigned int hang_ms;		/* no exit, no fault fixed: a hang */
	unsigned int crawl_ms;		/* one KVM_RUN this long: a failure */
	uint32_t inject;		/* --inject, on vCPU 0 */
	uint64_t inject_op;
	bool loop;
	bool verbose;
} opt = { .duration = 600, .vcpus = 4, .range_mb = 8, .hang_ms = 30000,
	  .crawl_ms = 120000, .loop = true };

/* KVM_RUNs past the hang timeout whose faults KVM fixed: crawls */
static unsigned int crawls;
static uint64_t longest_run_us;

static struct stress st;
static uint64_t hseed;		/* the host threads' (host_seed()) */
static struct kvm_vm *vm;
static struct stress_vcpu vcpus[MAX_VCPUS];

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return ts.tv_sec * 1000000ULL + ts.tv_nsec / 1000;
}

static void sleep_us(uint64_t us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

void stress_fail(struct stress *s, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&s->msg_lock);
	if (!atomic_load(&s->failed)) {
		va_start(ap, fmt);
		vsnprintf(s->msg, sizeof(s->msg), fmt, ap);
		va_end(ap);
		atomic_store(&s->fail_us, now_us());
		atomic_store(&s->failed, true);
	}
	pthread_mutex_unlock(&s->msg_lock);
	atomic_store(&s->stop, true);
}

/* ------------------------------------------------------------------ */
/* the VMM's conversion: convbench's own (bench/modes/host_conv.c)    */

/*
 * A pin of the pin thread, or a page cache walker's reference, is short:
 * wait it out (convbench fails instead), up to BUSY_MAX_US
 */
static bool busy_retry(struct conv_ctx *c, enum conv_busy why,
		       unsigned int tries)
{
	struct stress_slot *sl = (struct stress_slot *)
		((char *)c - offsetof(struct stress_slot, conv));

	(void)tries;
	if (now_us() - sl->busy_t0 >= BUSY_MAX_US)
		return false;
	stress_count(&st, why == CONV_BUSY_PUNCH ? C_PUNCH_RETRY :
		     C_CONV_BUSY_RETRY, 1);
	sleep_us(BUSY_RETRY_US);
	return true;
}

static int convert(struct stress_vcpu *v, uint64_t gpa, uint64_t npages,
		   bool to_private)
{
	unsigned int s = v->g->req_slot, preserve = v->g->req_preserve;
	struct host_phases ph = { 0 };
	struct stress_slot *sl;
	uint64_t off, len = npages * PAGE, p;
	int r;

	if (s >= STRESS_SLOTS)
		return -EINVAL;
	sl = &st.slot[s];
	off = gpa - sl->gpa;

	pthread_rwlock_wrlock(&sl->lock);
	sl->conv.preserve = preserve;
	sl->busy_t0 = now_us();
	/* the record, then the memory: as convbench's explicit trigger */
	r = host_conv_convert(&sl->conv, gpa, len, to_private, true, &ph);
	if (!r)
		for (p = off / PAGE; p < (off + len) / PAGE; p++)
			sl->shadow[p] = !to_private;
	pthread_rwlock_unlock(&sl->lock);
	if (r)
		return r;
	stress_count(&st, s == STRESS_SLOT_D ?
		     (to_private ? C_CONV_D_PRIVATE : C_CONV_D_SHARED) :
		     (to_private ? C_CONV_I_PRIVATE : C_CONV_I_SHARED), 1);
	stress_count(&st, preserve ? C_CONV_PRESERVE : C_CONV_ZERO, 1);
	stress_count(&st, C_CONV_PAGES, npages);
	return 0;
}

/* what the host knows of the page a memory exit names */
static void describe_memory_exit(struct stress_vcpu *v,
				 const struct kvm_run_memory_exit *m,
				 char *buf, size_t len)
{
	unsigned int s = m->gpa >= GPA_I ? STRESS_SLOT_I : STRESS_SLOT_D;
	struct stress_slot *sl = &st.slot[s];
	uint64_t off = m->gpa - sl->gpa, p = off / PAGE;
	off_t data = lseek(sl->fd, off, SEEK_DATA);
	uint64_t gp = (m->gpa - v->g->base[s]) / PAGE;
	const uint8_t *gstate = addr_gpa2hva(vm, (uintptr_t)v->g->state[s]);

	snprintf(buf, len, "gpa %#llx (slot %c page %llu) size %#llx flags %#x, after op %llu; the fd %s there, the host's record says %s, the guest's %s",
		 (unsigned long long)m->gpa, s ? 'I' : 'D',
		 (unsigned long long)p, (unsigned long long)m->size, m->flags,
		 (unsigned long long)v->g->ops,
		 data == (off_t)off ? "has a page" : "has no page",
		 p < sl->guest_bytes / PAGE ?
		 (sl->shadow[p] ? "shared" : "private") : "?",
		 gp < v->g->npages ? (gstate[gp] ? "shared" : "private") : "?");
}

/*
 * A SHUTDOWN: say why, then wait for the main thread's report (it looks
 * at every vCPU while the others still run) and for the failure it
 * records; should it not come, fail here.
 */
static void vcpu_shutdown(struct stress_vcpu *v)
{
	char tables[160] = "";
	uint64_t waited = 0;

	/*
	 * KVM (SVM) resets the vCPU at a SHUTDOWN: its registers say
	 * nothing. The guest's tables in memory and its own note of what
	 * it was doing stay. --inject's fault is the guest's, not the
	 * emulator's, and is said so.
	 */
	if (v->g->phase == STRESS_PHASE_INJECT)
		snprintf(tables, sizeof(tables),
			 "the guest's own triple fault (--inject)");
	else
		x86_check_tables(vm, tables, sizeof(tables));
	snprintf(v->why, sizeof(v->why),
		 "vCPU %u: KVM_RUN 0, exit SHUTDOWN: %s (op %llu, %s)",
		 v->id, tables, (unsigned long long)v->g->ops + 1,
		 stress_phase_str(v->g->phase));
	atomic_store(&v->shutdown, true);
	while (!atomic_load(&st.failed) && waited < SHUTDOWN_WAIT_MS) {
		sleep_us(10000);
		waited += 10;
	}
	stress_fail(&st, "%s", v->why);
}

static void *vcpu_main(void *arg)
{
	struct stress_vcpu *v = arg;
	uint64_t gpa = 0, npages = 0, attrs = 0;
	struct ucall uc = { 0 };
	char buf[512], name[16];
	bool map;
	int r;

	atomic_store(&v->tid, gettid());
	snprintf(name, sizeof(name), "vcpu%u", v->id);
	pthread_setname_np(pthread_self(), name);
	while (!atomic_load(&st.failed)) {
		if (atomic_load(&st.stop))
			v->g->stop = 1;
		stress_entry_look(v);
		atomic_store(&v->run_since_us, now_us());
		atomic_store(&v->in_run, true);
		r = __vcpu_run(v->vcpu);
		atomic_store(&v->in_run, false);
		atomic_fetch_add(&v->runs, 1);
		atomic_store(&v->last_exit, v->vcpu->run->exit_reason);
		/* kicked out by the main thread's report */
		if (r == -EINTR && atomic_load(&st.failed))
			break;
		map = !r && get_map_gpa_range(v->vcpu, &gpa, &npages, &attrs);
		uc.cmd = UCALL_NONE;
		if (!r && !map)
			get_ucall(v->vcpu, &uc);
		switch (sv_classify_exit(r, v->vcpu->run->exit_reason, map,
					 uc.cmd, uc.args[0])) {
		case SV_EXIT_CONVERT:
			r = convert(v, gpa, npages,
				    attrs & KVM_MAP_GPA_RANGE_ENCRYPTED);
			if (r) {
				stress_fail(&st, "vCPU %u op %llu: converting %#llx+%llu pages of slot %c: %s",
					    v->id, (unsigned long long)v->g->ops + 1,
					    (unsigned long long)gpa,
					    (unsigned long long)npages,
					    v->g->req_slot ? 'I' : 'D', strerror(-r));
				goto out;
			}
			v->vcpu->run->hypercall.ret = 0;
			continue;
		case SV_EXIT_DONE:
			goto out;
		case SV_EXIT_HANG:
			/* the main thread's watch missed it: no report */
			stress_fail(&st, "vCPU %u hung: no exit for %u s (op %llu)",
				    v->id, RUN_BACKSTOP_MS / 1000,
				    (unsigned long long)v->g->ops);
			goto out;
		case SV_EXIT_BAD_DATA:
			stress_fail(&st, "vCPU %u op %llu: gpa %#llx holds %#llx, want %#llx",
				    v->id, (unsigned long long)uc.args[1],
				    (unsigned long long)uc.args[2],
				    (unsigned long long)uc.args[3],
				    (unsigned long long)uc.args[4]);
			goto out;
		case SV_EXIT_HC_FAILED:
			stress_fail(&st, "vCPU %u op %llu: the conversion hypercall returned %lld",
				    v->id, (unsigned long long)uc.args[1],
				    (long long)uc.args[2]);
			goto out;
		case SV_EXIT_SHUTDOWN:
			vcpu_shutdown(v);
			goto out;
		case SV_EXIT_UNEXPECTED:
			break;
		}
		buf[0] = '\0';
		if (!r && uc.cmd != UCALL_NONE)
			ucall_describe(vm, &uc, buf, sizeof(buf));
		else if (r && v->vcpu->run->exit_reason == KVM_EXIT_MEMORY_ERROR)
			describe_memory_exit(v, kvm_run_memory(v->vcpu->run),
					     buf, sizeof(buf));
		stress_fail(&st, "vCPU %u: KVM_RUN %s, exit %s%s%s", v->id,
			    r ? strerror(-r) : "0",
			    exit_reason_str(v->vcpu->run->exit_reason),
			    buf[0] ? ": " : "", buf);
		break;
	}
out:
	stress_count(&st, C_GUEST_VERIFIED, v->g->verified);
	atomic_store(&v->out, true);
	return NULL;
}

/* ------------------------------------------------------------------ */
/* attackers of the vCPUs' ranges                                      */

/* vmsplice and O_DIRECT pins of in-place pages, short and random */
static void *pin_main(void *arg)
{
	uint64_t rng = hseed ^ 0x70696e73ULL, p, off;
	struct stress_slot *sl = &st.slot[STRESS_SLOT_I];
	uint64_t npages = sl->guest_bytes / PAGE;
	int pfd[2];
	ssize_t n;

	(void)arg;
	pthread_setname_np(pthread_self(), "pin");
	while (!atomic_load(&st.stop)) {
		struct iovec iov;

		p = stress_rand(&rng) % npages;
		iov.iov_base = sl->shared + p * PAGE;
		iov.iov_len = PAGE;
		if ((stress_rand(&rng) & 1) && st.loop_fd >= 0) {
			off = (stress_rand(&rng) % (st.loop_size / PAGE)) * PAGE;
			/* the device reads the page, pinned during the I/O */
			n = pwrite(st.loop_fd, iov.iov_base, PAGE, off);
			stress_count(&st, n == PAGE ? C_PIN_ODIRECT : C_PIN_REFUSED, 1);
		} else if (!pipe(pfd)) {
			n = vmsplice(pfd[1], &iov, 1, SPLICE_F_NONBLOCK);
			stress_count(&st, n == PAGE ? C_PIN_VMSPLICE : C_PIN_REFUSED, 1);
			sleep_us(stress_rand(&rng) % 2000);
			close(pfd[0]);
			close(pfd[1]);
		}
		sleep_us(stress_rand(&rng) % 1000);
	}
	return NULL;
}

/* reads and loads of the vCPUs' private pages must be refused */
static void *forbid_main(void *arg)
{
	uint64_t rng = hseed ^ 0x666f7262ULL, buf[PAGE / 8];
	unsigned int s;
	uint64_t p;
	ssize_t n;
	int err, probe;

	(void)arg;
	pthread_setname_np(pthread_self(), "forbid");
	while (!atomic_load(&st.stop)) {
		struct stress_slot *sl;
		enum sv_forbid v;
		bool shared;

		s = stress_rand(&rng) & 1;
		sl = &st.slot[s];
		p = stress_rand(&rng) % (sl->guest_bytes / PAGE);
		pthread_rwlock_rdlock(&sl->lock);
		/* the fd's state: destructive conversions never share it */
		shared = sl->inplace && sl->shadow[p];
		n = pread(sl->fd, buf, PAGE, p * PAGE);
		err = errno;
		/* a load only of a private page: a shared one may be a hole */
		probe = shared ? 0 : stress_probe_read(sl->fdmap + p * PAGE,
						       0, 8, NULL);
		v = sv_forbid_check(shared, n, err, probe, PAGE);
		pthread_rwlock_unlock(&sl->lock);
		if (v == SV_FORBID_PRIVATE_READ)
			stress_fail(&st, "pread of private page %llu of slot %c: %zd (%s), want EPERM",
				    (unsigned long long)p, s ? 'I' : 'D', n,
				    n < 0 ? strerror(err) : "it read the page");
		else if (v == SV_FORBID_PRIVATE_LOAD)
			stress_fail(&st, "a load of private page %llu of slot %c went through",
				    (unsigned long long)p, s ? 'I' : 'D');
		else if (v == SV_FORBID_SHARED_READ)
			stress_fail(&st, "pread of shared page %llu of slot I: %zd (%s)",
				    (unsigned long long)p, n,
				    n < 0 ? strerror(err) : "short");
		if (v != SV_FORBID_OK)
			break;
		stress_count(&st, shared ? C_SHARED_READ : C_FORBID_READ, 1);
		if (!shared)
			stress_count(&st, C_FORBID_TOUCH, 1);
		sleep_us(stress_rand(&rng) % 500);
	}
	return NULL;
}

/* the host's mm moves and drops what it may */
static void *mm_main(void *arg)
{
	uint64_t rng = hseed ^ 0x6d6dULL, t;

	(void)arg;
	pthread_setname_np(pthread_self(), "mm");
	while (!atomic_load(&st.stop)) {
		t = now_us() + 500000 + stress_rand(&rng) % 2000000;
		while (!atomic_load(&st.stop) && now_us() < t)
			sleep_us(50000);
		if (atomic_load(&st.stop))
			break;
		if (stress_rand(&rng) % 4) {
			if (write_file("/proc/sys/vm/compact_memory", "1"))
				stress_count(&st, C_COMPACT, 1);
		} else if (write_file("/proc/sys/vm/drop_caches", "3")) {
			stress_count(&st, C_DROP_CACHES, 1);
		}
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* setup                                                               */

/* an O_DIRECT fd of a loop device over a tmpfs file, or -1 */
static int loop_open(void)
{
	char path[64];
	int ctl, nr, file, dev = -1;

	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		return -1;
	nr = ioctl(ctl, LOOP_CTL_GET_FREE);
	close(ctl);
	if (nr < 0)
		return -1;
	file = open("/tmp/convstress-loop", O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (file < 0 || ftruncate(file, LOOP_SIZE)) {
		if (file >= 0)
			close(file);
		return -1;
	}
	snprintf(path, sizeof(path), "/dev/loop%d", nr);
	dev = open(path, O_RDWR | O_CLOEXEC);
	if (dev >= 0 && ioctl(dev, LOOP_SET_FD, file)) {
		close(dev);
		dev = -1;
	}
	close(file);
	unlink("/tmp/convstress-loop");
	if (dev < 0)
		return -1;
	close(dev);
	/* O_DIRECT on the block device: user pages are pinned for the I/O */
	dev = open(path, O_RDWR | O_DIRECT | O_CLOEXEC);
	if (dev >= 0)
		st.loop_size = LOOP_SIZE;
	return dev;
}

static int slot_setup(unsigned int s, uint32_t id, uint64_t gpa, uint64_t size,
		      uint64_t guest_bytes)
{
	struct stress_slot *sl = &st.slot[s];
	size_t len = size + SZ_2M;
	uint8_t *base;
	int r;

	sl->gpa = gpa;
	sl->size = size;
	sl->guest_bytes = guest_bytes;
	sl->inplace = s == STRESS_SLOT_I;
	pthread_rwlock_init(&sl->lock, NULL);
	sl->shadow = calloc(guest_bytes / PAGE, 1);
	sl->fd = memfd_inaccessible_create(s ? "convstress-I" : "convstress-D",
					   size);
	if (sl->fd < 0 || !sl->shadow)
		return sl->fd < 0 ? sl->fd : -ENOMEM;
	base = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED)
		return -errno;
	sl->shared = (uint8_t *)(((uintptr_t)base + SZ_2M - 1) & ~(SZ_2M - 1));
	if (sl->inplace) {
		r = inplace_map_shared(sl->fd, 0, size, sl->shared);
		sl->fdmap = sl->shared;
	} else {
		madvise(sl->shared, size, MADV_HUGEPAGE);
		sl->fdmap = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
				 sl->fd, 0);
		r = sl->fdmap == MAP_FAILED ? -errno : 0;
	}
	if (!r)
		r = __vm_set_private_memory_region(vm, id, KVM_MEM_PRIVATE, gpa,
						   size, sl->shared, sl->fd, 0);
	if (!r)
		r = __vm_set_sw_private(vm, gpa, size, true);
	if (!r)
		r = __private_fallocate(sl->fd, 0, size);
	/*
	 * huge stays false: a to-private drops the shared pages of the
	 * converted range only, as convstress always did
	 */
	sl->conv = (struct conv_ctx) {
		.vm = vm,
		.mode = sl->inplace ? MODE_INPLACE : MODE_DESTRUCTIVE,
		.fd = sl->fd,
		.gpa = gpa,
		.slot_size = guest_bytes,
		.size = PAGE,
		.shared = sl->shared,
		.retry = busy_retry,
	};
	return r;
}

static int setup(void)
{
	uint64_t range = (uint64_t)opt.range_mb << 20;
	uint64_t per_vcpu = sizeof(struct stress_guest) + SZ_2M +
			    2 * (range / PAGE) * (1 + sizeof(uint64_t)) + 4 * PAGE;
	struct vm_opts o = {
		.mem_size = (VM_DEFAULT_MEM_SIZE + opt.vcpus * per_vcpu +
			     SZ_2M - 1) & ~(SZ_2M - 1),
	};
	uint64_t size = opt.vcpus * range + HOST_REGION;
	unsigned int i, s;
	int r;

	r = __vm_create(&vm, &o);
	if (!r)
		r = __vm_enable_exit_map_gpa_range(vm);
	if (!r)
		r = slot_setup(STRESS_SLOT_D, 1, GPA_D, size, opt.vcpus * range);
	if (!r)
		r = slot_setup(STRESS_SLOT_I, 2, GPA_I, size, opt.vcpus * range);
	for (i = 0; !r && i < opt.vcpus; i++) {
		struct stress_vcpu *v = &vcpus[i];
		uint64_t g_gpa = __vm_alloc(vm, sizeof(*v->g), 64);
		uint64_t scratch = __vm_alloc(vm, SZ_2M, PAGE);
		uint64_t arrays[STRESS_SLOTS][2];

		for (s = 0; s < STRESS_SLOTS; s++) {
			arrays[s][0] = __vm_alloc(vm, range / PAGE, 64);
			arrays[s][1] = __vm_alloc(vm, range / PAGE * 8, 64);
			if (!arrays[s][0] || !arrays[s][1])
				r = -ENOMEM;
		}
		if (r || !g_gpa || !scratch)
			return -ENOMEM;
		v->id = i;
		v->g = addr_gpa2hva(vm, g_gpa);
		*v->g = (struct stress_guest) {
			.base = { GPA_D + i * range, GPA_I + i * range },
			.npages = range / PAGE,
			.scratch = scratch,
			.state = { (void *)(uintptr_t)arrays[0][0],
				   (void *)(uintptr_t)arrays[1][0] },
			.want = { (void *)(uintptr_t)arrays[0][1],
				  (void *)(uintptr_t)arrays[1][1] },
			.seed = st.seed * 0x100000001b3ULL + i + 1,
			.start_op = opt.start_op[opt.nstart > 1 ? i : 0],
			.inject = i ? STRESS_INJECT_NONE : opt.inject,
			.inject_op = i ? 0 : opt.inject_op,
		};
		v->g->ops = v->g->start_op;
		r = __vm_vcpu_add(vm, i, stress_guest_main, &v->vcpu);
		if (!r)
			r = __vcpu_args_set(v->vcpu, 1, &g_gpa);
		if (!r)
			vcpu_set_timeout(v->vcpu, RUN_BACKSTOP_MS);
		/* a kernel without binary stats: the reports say so */
		v->have_stats = !r && !kvm_stats_open(&v->stats, v->vcpu->fd) &&
				!kvm_stats_open(&v->run_stats, v->vcpu->fd);
	}
	st.loop_fd = opt.loop ? loop_open() : -1;
	return r;
}

/* ------------------------------------------------------------------ */
/* options, report, main                                               */

static void usage(FILE *f)
{
	fprintf(f,
"usage: convstress [--duration=S] [--seed=N] [--start-op=N[,N...]]\n"
"                  [--vcpus=N] [--range-mb=N] [--no-loop] [-v]\n"
"Random private<->shared conversions (both modes, 4K..2M, PRESERVE and\n"
"ZERO) on N vCPUs (default 4) while host threads punch, convert, pin,\n"
"map, compact and try to read private memory. Every conversion is\n"
"verified. --duration: seconds (default 600); --seed: default from the\n"
"clock, printed first (the same seed replays every thread's choices);\n"
"--start-op: the ops each vCPU did before (one number, or one per vCPU,\n"
"as the end's '# positions:' line prints them): its guest continues the\n"
"seed's sequence from there, in a fresh VM;\n"
"--hang-timeout: seconds without an exit or a page fault fixed that make\n"
"a hang (default 30); --crawl-timeout: seconds of one KVM_RUN whose\n"
"faults KVM fixes, too slowly, that fail the storm (default 120; each\n"
"past --hang-timeout is noted, '# crawl:');\n"
"--inject=spin@OP|triple@OP: vCPU 0's guest loops without an exit, or\n"
"faults without an IDT, at op OP (the hang and SHUTDOWN reports' test);\n"
"--range-mb: each vCPU's range per slot (default 8); --no-loop: no\n"
"O_DIRECT pins through a loop device. Exit 0 ok, 1 a failure, 2 bad\n"
"option, 4 the kernel lacks the in-place variant.\n");
}

static int parse_u64(const char *name, const char *s, uint64_t min,
		     uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "convstress: %s expects an integer in %llu..%llu, got '%s'\n",
			name, (unsigned long long)min, (unsigned long long)max, s);
		return -1;
	}
	*out = v;
	return 0;
}

/* --inject=spin@OP or triple@OP */
static int parse_inject(const char *arg)
{
	const char *at = strchr(arg, '@');
	size_t kind = at ? (size_t)(at - arg) : 0;

	if (kind == 4 && !strncmp(arg, "spin", 4)) {
		opt.inject = STRESS_INJECT_SPIN;
	} else if (kind == 6 && !strncmp(arg, "triple", 6)) {
		opt.inject = STRESS_INJECT_TRIPLE;
	} else {
		fprintf(stderr, "convstress: --inject expects spin@OP or triple@OP, got '%s'\n",
			arg);
		return -1;
	}
	return parse_u64("--inject's OP", at + 1, 1, 1ULL << 48,
			 &opt.inject_op);
}

/* --start-op=N or N,N,...: one position per vCPU */
static int parse_start_ops(const char *arg)
{
	char buf[512], *tok, *save = NULL;

	if (strlen(arg) >= sizeof(buf)) {
		fprintf(stderr, "convstress: --start-op is too long\n");
		return -1;
	}
	strcpy(buf, arg);
	opt.nstart = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (opt.nstart == MAX_VCPUS) {
			fprintf(stderr, "convstress: --start-op takes at most %d positions\n",
				MAX_VCPUS);
			return -1;
		}
		if (parse_u64("--start-op", tok, 0, 1ULL << 48,
			      &opt.start_op[opt.nstart]))
			return -1;
		opt.nstart++;
	}
	if (!opt.nstart || arg[strlen(arg) - 1] == ',') {
		fprintf(stderr, "convstress: --start-op expects N or N,N,..., got '%s'\n",
			arg);
		return -1;
	}
	return 0;
}

static int parse_options(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "seed", required_argument, NULL, 's' },
		{ "start-op", required_argument, NULL, 'o' },
		{ "hang-timeout", required_argument, NULL, 'H' },
		{ "crawl-timeout", required_argument, NULL, 'C' },
		{ "inject", required_argument, NULL, 'I' },
		{ "vcpus", required_argument, NULL, 'c' },
		{ "range-mb", required_argument, NULL, 'r' },
		{ "no-loop", no_argument, NULL, 'L' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	uint64_t v;
	int c;

	opt.seed = now_us() ^ ((uint64_t)getpid() << 32);
	while ((c = getopt_long(argc, argv, "vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (parse_u64("--duration", optarg, 1, 86400, &v))
				return 2;
			opt.duration = v;
			break;
		case 's':
			if (parse_u64("--seed", optarg, 0, UINT64_MAX, &v))
				return 2;
			opt.seed = v;
			break;
		case 'o':
			if (parse_start_ops(optarg))
				return 2;
			break;
		case 'H':
			if (parse_u64("--hang-timeout", optarg, 1, 600, &v))
				return 2;
			opt.hang_ms = v * 1000;
			break;
		case 'C':
			if (parse_u64("--crawl-timeout", optarg, 1, 3600, &v))
				return 2;
			opt.crawl_ms = v * 1000;
			break;
		case 'I':
			if (parse_inject(optarg))
				return 2;
			break;
		case 'c':
			if (parse_u64("--vcpus", optarg, 1, MAX_VCPUS, &v))
				return 2;
			opt.vcpus = v;
			break;
		case 'r':
			if (parse_u64("--range-mb", optarg, 2, 64, &v) ||
			    (v % 2 && (fprintf(stderr, "convstress: --range-mb expects a multiple of 2\n"), 1)))
				return 2;
			opt.range_mb = v;
			break;
		case 'L':
			opt.loop = false;
			break;
		case 'v':
			opt.verbose = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "convstress: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (opt.crawl_ms < opt.hang_ms) {
		fprintf(stderr, "convstress: --crawl-timeout (%u s) is shorter than --hang-timeout (%u s)\n",
			opt.crawl_ms / 1000, opt.hang_ms / 1000);
		return 2;
	}
	if (opt.nstart > 1 && opt.nstart != opt.vcpus) {
		fprintf(stderr, "convstress: --start-op gives %u positions for %u vCPUs (one, or one per vCPU)\n",
			opt.nstart, opt.vcpus);
		return 2;
	}
	return 0;
}

static uint64_t cnt(enum stress_count c)
{
	return atomic_load(&st.count[c]);
}

/* KVM's page faults, and the share it retried, in words */
static void fault_share(char *buf, size_t len)
{
	uint64_t taken, retried;

	if (stress_fault_counts(vcpus, opt.vcpus, &taken, &retried))
		snprintf(buf, len, "%llu KVM page faults, %.0f%% retried",
			 (unsigned long long)taken,
			 taken ? 100.0 * retried / taken : 0.0);
	else
		snprintf(buf, len, "no KVM statistics");
}

static void progress(double t)
{
	char faults[96];

	fault_share(faults, sizeof(faults));
	fprintf(stderr, "convstress: %.0f s: %llu conversions (%llu pages), %llu busy retries, %llu host-region ops, %llu refused accesses, %llu compactions, %s\n",
		t, (unsigned long long)(cnt(C_CONV_D_SHARED) + cnt(C_CONV_D_PRIVATE) +
					cnt(C_CONV_I_SHARED) + cnt(C_CONV_I_PRIVATE)),
		(unsigned long long)cnt(C_CONV_PAGES),
		(unsigned long long)cnt(C_CONV_BUSY_RETRY),
		(unsigned long long)(cnt(C_HR_CONVERT) + cnt(C_HR_PUNCH) +
				     cnt(C_HR_FALLOCATE) + cnt(C_HR_WRITE) +
				     cnt(C_HR_MMAP) + cnt(C_HR_PIN)),
		(unsigned long long)(cnt(C_FORBID_READ) + cnt(C_FORBID_TOUCH)),
		(unsigned long long)cnt(C_COMPACT), faults);
}

static void report(double wall)
{
	char faults[96];
	static const struct { enum stress_count c; const char *what; } rows[] = {
		{ C_CONV_D_SHARED, "guest: destructive to-shared" },
		{ C_CONV_D_PRIVATE, "guest: destructive to-private" },
		{ C_CONV_I_SHARED, "guest: in-place to-shared" },
		{ C_CONV_I_PRIVATE, "guest: in-place to-private" },
		{ C_CONV_PRESERVE, "guest: ... with PRESERVE" },
		{ C_CONV_ZERO, "guest: ... with ZERO" },
		{ C_CONV_PAGES, "guest: pages converted" },
		{ C_GUEST_VERIFIED, "guest: pages verified" },
		{ C_CONV_BUSY_RETRY, "vmm: in-place busy, retried" },
		{ C_PUNCH_RETRY, "vmm: punch busy (EAGAIN), retried" },
		{ C_HR_CONVERT, "host region: in-place conversions" },
		{ C_HR_CONVERT_BUSY, "host region: to-private refused, pinned" },
		{ C_HR_PUNCH, "host region: PUNCH_HOLE" },
		{ C_HR_PUNCH_BUSY, "host region: PUNCH_HOLE busy, pinned" },
		{ C_HR_FALLOCATE, "host region: fallocate" },
		{ C_HR_WRITE, "host region: writes to shared pages" },
		{ C_HR_READ, "host region: shared pages checked" },
		{ C_HR_MMAP, "host region: mmap/munmap" },
		{ C_HR_PIN, "host region: vmsplice pins" },
		{ C_HR_ODIRECT, "host region: O_DIRECT writes" },
		{ C_PIN_VMSPLICE, "pins of guest pages: vmsplice" },
		{ C_PIN_ODIRECT, "pins of guest pages: O_DIRECT" },
		{ C_PIN_REFUSED, "pins of guest pages: refused (private)" },
		{ C_FORBID_READ, "private pages: read() refused" },
		{ C_FORBID_TOUCH, "private pages: load through a mapping SIGBUS" },
		{ C_SHARED_READ, "shared guest pages read" },
		{ C_COMPACT, "compact_memory" },
		{ C_DROP_CACHES, "drop_caches" },
	};
	unsigned int i;

	printf("# %-44s %12s\n", "operation", "count");
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		printf("# %-44s %12llu\n", rows[i].what,
		       (unsigned long long)cnt(rows[i].c));
	fault_share(faults, sizeof(faults));
	printf("# %s\n", faults);
	printf("# wall %.1f s, seed %llu%s\n", wall,
	       (unsigned long long)st.seed,
	       st.loop_fd < 0 ? ", no loop device: no O_DIRECT pins" : "");
}

/*
 * The main thread's watch over the vCPUs until the deadline (0: until
 * every vCPU thread has left its loop), or a failure: a vCPU in KVM_RUN
 * for --hang-timeout hangs, and it and a SHUTDOWN get the report of
 * where every vCPU and its thread are, taken before anything stops.
 */
static void watch(uint64_t t0, uint64_t deadline, uint64_t *next_progress)
{
	static bool regs_done;
	char why[600];
	unsigned int i, out;
	int culprit;

	for (;;) {
		uint64_t now = now_us();

		if (*next_progress && now >= *next_progress) {
			progress((now - t0) / 1e6);
			*next_progress += 10000000;
		}
		culprit = -1;
		for (i = out = 0; i < opt.vcpus; i++) {
			struct stress_vcpu *v = &vcpus[i];
			uint64_t since = atomic_load(&v->run_since_us);
			bool in_run = atomic_load(&v->in_run), stats;
			uint64_t fixed = 0;
			enum sv_watch_verdict w;

			out += atomic_load(&v->out);
			stats = in_run && stress_progress_count(v, &fixed);
			w = sv_watch(&v->watch, in_run, since, stats, fixed,
				     now, opt.hang_ms * 1000ULL,
				     opt.crawl_ms * 1000ULL);
			if (culprit < 0 && atomic_load(&v->shutdown)) {
				culprit = i;
				snprintf(why, sizeof(why), "%s", v->why);
			} else if (culprit < 0 && w == SV_WATCH_HANG) {
				culprit = i;
				snprintf(why, sizeof(why),
					 "vCPU %u hung: no exit%s for %u s (op %llu)",
					 i, stats ? " and no page fault fixed" : "",
					 opt.hang_ms / 1000,
					 (unsigned long long)v->g->ops);
			} else if (culprit < 0 && w == SV_WATCH_CRAWL_LIMIT) {
				culprit = i;
				snprintf(why, sizeof(why),
					 "vCPU %u crawled: no exit for %u s, KVM fixing its page faults too slowly (op %llu)",
					 i, opt.crawl_ms / 1000,
					 (unsigned long long)v->g->ops);
			} else if (w == SV_WATCH_CRAWL) {
				crawls++;
				stress_diag_crawl(v);
			}
			if (in_run && v->watch.crawl_noted && now - since > longest_run_us)
				longest_run_us = now - since;
		}
		if (culprit >= 0 && !atomic_load(&st.failed)) {
			stress_diag_live(&st, vcpus, opt.vcpus, culprit, why,
					 DIAG_WINDOW_MS);
			stress_fail(&st, "%s", why);
		}
		if (atomic_load(&st.failed)) {
			/* after any failure: every vCPU out, where it was */
			if (!regs_done)
				stress_diag_regs(&st, vcpus, opt.vcpus,
						 DIAG_KICK_MS);
			regs_done = true;
			return;
		}
		if ((deadline && now >= deadline) ||
		    (!deadline && out == opt.vcpus))
			return;
		sleep_us(100000);
	}
}

/* each vCPU's last op: where a continuation starts */
static void print_positions(void)
{
	unsigned int i;

	printf("# positions: --start-op=");
	for (i = 0; i < opt.vcpus; i++)
		printf("%s%llu", i ? "," : "",
		       (unsigned long long)vcpus[i].g->ops);
	printf("\n");
}

/*
 * The host threads' seed: --seed's, mixed with the positions of a
 * continuation, so that a continued storm does not repeat the host's
 * first choices (and replays with the same options)
 */
static uint64_t host_seed(void)
{
	uint64_t h = st.seed;
	unsigned int i;

	for (i = 0; i < opt.nstart; i++) {
		h ^= opt.start_op[i];
		h = stress_rand(&h);
	}
	return h;
}

int main(int argc, char **argv)
{
	struct hr_arg hr[STRESS_SLOTS];
	pthread_t hr_t[STRESS_SLOTS], pin_t, forbid_t, mm_t;
	uint64_t t0, next;
	unsigned int i;
	char starts[256] = "";
	double storm;
	int r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	r = parse_options(argc, argv);
	if (r)
		return r;
	st.seed = opt.seed;
	hseed = host_seed();
	pthread_mutex_init(&st.msg_lock, NULL);
	for (i = 0; i < opt.nstart; i++)
		snprintf(starts + strlen(starts), sizeof(starts) - strlen(starts),
			 "%s%llu", i ? "," : " --start-op=",
			 (unsigned long long)opt.start_op[i]);
	if (opt.hang_ms != 30000)
		snprintf(starts + strlen(starts), sizeof(starts) - strlen(starts),
			 " --hang-timeout=%u", opt.hang_ms / 1000);
	if (opt.crawl_ms != 120000)
		snprintf(starts + strlen(starts), sizeof(starts) - strlen(starts),
			 " --crawl-timeout=%u", opt.crawl_ms / 1000);
	printf("# convstress: seed %llu, %.0f s, %u vCPUs, %u MiB per vCPU and slot%s\n",
	       (unsigned long long)st.seed, opt.duration, opt.vcpus,
	       opt.range_mb, opt.nstart ? ", continuing" : "");
	printf("# replay: convstress --seed=%llu --duration=%.0f --vcpus=%u --range-mb=%u%s%s\n",
	       (unsigned long long)st.seed, opt.duration, opt.vcpus,
	       opt.range_mb, opt.loop ? "" : " --no-loop", starts);
	if (!inplace_supported()) {
		printf("ok 1 - convstress # SKIP KVM_CAP_PRIVATE_MEM_INPLACE is absent: the kernel lacks the series or the in-place variant\n");
		printf("0 passed, 0 failed, 1 skipped\n");
		return 4;
	}
	stress_catch_sigbus();
	stress_kick_init();
	r = setup();
	if (r) {
		printf("not ok 1 - setup: %s\n", strerror(-r));
		printf("0 passed, 1 failed\n");
		return 1;
	}

	t0 = now_us();
	for (i = 0; i < opt.vcpus; i++)
		pthread_create(&vcpus[i].thread, NULL, vcpu_main, &vcpus[i]);
	for (i = 0; i < STRESS_SLOTS; i++) {
		hr[i] = (struct hr_arg) { &st, i, hseed ^ (0x6872ULL << 16) ^ i };
		pthread_create(&hr_t[i], NULL, stress_host_region, &hr[i]);
	}
	pthread_create(&pin_t, NULL, pin_main, NULL);
	pthread_create(&forbid_t, NULL, forbid_main, NULL);
	pthread_create(&mm_t, NULL, mm_main, NULL);

	next = t0 + 10000000;
	watch(t0, t0 + opt.duration * 1e6, &next);
	atomic_store(&st.stop, true);
	for (i = 0; i < opt.vcpus; i++)
		vcpus[i].g->stop = 1;
	/* the vCPUs finish their op: a hang there is one too */
	next = 0;
	watch(t0, 0, &next);
	for (i = 0; i < opt.vcpus; i++)
		pthread_join(vcpus[i].thread, NULL);
	for (i = 0; i < STRESS_SLOTS; i++)
		pthread_join(hr_t[i], NULL);
	pthread_join(pin_t, NULL);
	pthread_join(forbid_t, NULL);
	pthread_join(mm_t, NULL);

	report((now_us() - t0) / 1e6);
	/* the storm's own time: to the deadline, or to its failure */
	storm = ((atomic_load(&st.fail_us) ?: now_us()) - t0) / 1e6;
	printf("# storm: %.1f s\n", storm < opt.duration ? storm : opt.duration);
	printf("# crawls: %u (KVM_RUNs past %u s without an exit while KVM fixed their faults; the longest %.1f s, none may reach %u s)\n",
	       crawls, opt.hang_ms / 1000, longest_run_us / 1e6,
	       opt.crawl_ms / 1000);
	print_positions();
	if (atomic_load(&st.failed)) {
		printf("not ok 1 - convstress: %s\n", st.msg);
		printf("# replay: convstress --seed=%llu%s\n",
		       (unsigned long long)st.seed, starts);
		printf("0 passed, 1 failed\n");
		return 1;
	}
	printf("ok 1 - %llu guest conversions verified (%llu pages verified), host regions as expected, every private access refused\n",
	       (unsigned long long)(cnt(C_CONV_D_SHARED) + cnt(C_CONV_D_PRIVATE) +
				    cnt(C_CONV_I_SHARED) + cnt(C_CONV_I_PRIVATE)),
	       (unsigned long long)cnt(C_GUEST_VERIFIED));
	printf("1 passed, 0 failed\n");
	return 0;
}
