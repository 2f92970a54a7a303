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
#include "convstress.h"
#include "stress_host.h"
#include "verdict.h"

struct stress_opts opt = { .duration = 600, .vcpus = 4, .range_mb = 8, .hang_ms = 30000,
	  .crawl_ms = 120000, .loop = true };

/* KVM_RUNs past the hang timeout whose faults KVM fixed: crawls */
unsigned int crawls;
uint64_t longest_run_us;

struct stress st;
uint64_t hseed;		/* the host threads' (host_seed()) */
struct kvm_vm *vm;
struct stress_vcpu vcpus[MAX_VCPUS];

uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return ts.tv_sec * 1000000ULL + ts.tv_nsec / 1000;
}

void sleep_us(uint64_t us)
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
/* report, main                                                        */

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
	int hung;
	char why[600];
	unsigned int i, out;
	int culprit;

	for (;;) {
		uint64_t now = now_us();

		if (*next_progress && now >= *next_progress) {
			progress((now - t0) / 1e6);
			*next_progress += 10000000;
		}
		culprit = hung = -1;
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
				hung = i;
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
		/* the hang is checked only when it is the failure */
		if (hung >= 0 && strcmp(st.msg, why))
			hung = -1;
		if (atomic_load(&st.failed)) {
			/* after any failure: every vCPU out, where it was */
			if (!regs_done)
				stress_diag_regs(&st, vcpus, opt.vcpus, hung,
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
