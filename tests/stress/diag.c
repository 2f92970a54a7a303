// SPDX-License-Identifier: GPL-2.0
/*
 * convstress's hang and SHUTDOWN reports: where every vCPU and its
 * thread are, so that a fault-retry livelock in the L1 kernel (KVM
 * takes the same page fault again and again, no exit) is told apart
 * from an emulator stall (nothing moves) and from a guest that loops.
 *
 * Every line starts "# diag: ". What a look reads, for each vCPU:
 *   - its thread in the L1 kernel (root in the VM): the state and CPU
 *     times (kernel, guest) of /proc/self/task/TID/stat, the kernel
 *     stack of /proc/self/task/TID/stack (CONFIG_STACKTRACE; for a
 *     thread on a CPU it is where it last slept or was preempted);
 *   - KVM's binary statistics of the vCPU: exits handled in KVM, page
 *     faults taken, fixed, emulated, spurious (the rest were retried);
 *   - the guest's own struct: the op in flight, its phase and range.
 * Two looks some time apart give the rates; kvm:kvm_page_fault traced
 * in between names the faulting addresses; sysrq-l (backtraces of the
 * running CPUs) and sysrq-w (blocked tasks) go to the kernel log, which
 * the VM runner prints after the command (console.log). Then each vCPU
 * is kicked out of KVM_RUN with a signal and its registers are read.
 */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>

#include "diag_faults.h"
#include "inplace_check.h"
#include "stress_host.h"
#include "verdict.h"

#define TRACE		"/sys/kernel/tracing"
#define TRACE_MS	500	/* of the window, traced */
#define STACK_MAX	4096

struct look {
	struct sv_progress p;	/* times in clock ticks */
	struct sv_progress entry; /* the vCPU's at its KVM_RUN entry */
	uint64_t hypercalls, io_exits, runs;
	uint64_t utime_us, stime_us;	/* user (with guest) and kernel */
	bool in_run;
	uint64_t run_ms;
	uint64_t at_us;		/* when it was taken */
	char state;		/* R, S, D, ... of the thread; ? unknown */
};

/* convstress's clock (run_since_us) */
static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return ts.tv_sec * 1000000ULL + ts.tv_nsec / 1000;
}

/*
 * state, kernel and guest clock ticks of a thread, and its user time
 * (guest time included): false if unreadable
 */
static bool thread_times(int tid, char *state, uint64_t *stime,
			 uint64_t *guest, uint64_t *utime)
{
	char path[64], buf[1024], *p;
	unsigned long long v;
	unsigned int field;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	if (read_text(path, buf, sizeof(buf)) <= 0)
		return false;
	/* the name may hold spaces and parentheses: fields after the last ) */
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ')
		return false;
	p += 2;
	*state = *p;
	/* field 3 is the state; 14 utime, 15 stime, 43 guest_time */
	for (field = 3; *p; field++) {
		if (field == 14 || field == 15 || field == 43) {
			if (sscanf(p, "%llu", &v) != 1)
				return false;
			*(field == 14 ? utime : field == 15 ? stime : guest) = v;
			if (field == 43)
				return true;
		}
		p = strchr(p, ' ');
		if (!p)
			break;
		p++;
	}
	return false;
}

static void stats_into(struct kvm_stats *s, struct sv_progress *p)
{
	p->exits = kvm_stats_value(s, "exits");
	p->pf_taken = kvm_stats_value(s, "pf_taken");
	p->pf_fixed = kvm_stats_value(s, "pf_fixed");
	p->pf_emulate = kvm_stats_value(s, "pf_emulate");
	p->pf_spurious = kvm_stats_value(s, "pf_spurious");
}

bool stress_fault_counts(struct stress_vcpu *v, unsigned int n,
			 uint64_t *taken, uint64_t *retried)
{
	struct sv_progress p;
	unsigned int i;

	*taken = *retried = 0;
	for (i = 0; i < n; i++) {
		if (!v[i].have_stats || kvm_stats_read(&v[i].stats))
			return false;
		stats_into(&v[i].stats, &p);
		*taken += p.pf_taken;
		*retried += p.pf_taken - p.pf_fixed - p.pf_emulate -
			    p.pf_spurious;
	}
	return true;
}

bool stress_progress_count(struct stress_vcpu *v, uint64_t *count)
{
	struct sv_progress p;

	if (!v->have_stats || kvm_stats_read(&v->stats))
		return false;
	stats_into(&v->stats, &p);
	*count = p.pf_fixed + p.pf_emulate;
	return true;
}

void stress_entry_look(struct stress_vcpu *v)
{
	struct sv_progress e = { 0 };
	struct rusage ru;

	e.have_stats = v->have_stats && !kvm_stats_read(&v->run_stats);
	if (e.have_stats)
		stats_into(&v->run_stats, &e);
	e.have_times = !getrusage(RUSAGE_THREAD, &ru);
	e.stime = ru.ru_stime.tv_sec * 1000000ULL + ru.ru_stime.tv_usec;
	e.guest_time = ru.ru_utime.tv_sec * 1000000ULL + ru.ru_utime.tv_usec;
	/* a seqcount: the main thread reads it while we run */
	atomic_fetch_add(&v->entry_seq, 1);
	v->entry = e;
	atomic_fetch_add(&v->entry_seq, 1);
}

static void entry_of(struct stress_vcpu *v, struct sv_progress *e)
{
	unsigned int seq, tries = 0;

	do {
		seq = atomic_load(&v->entry_seq);
		*e = v->entry;
	} while ((seq & 1 || seq != atomic_load(&v->entry_seq)) &&
		 ++tries < 1000);
	if (tries == 1000)
		e->have_stats = e->have_times = false;
}

static void look_at(struct stress_vcpu *v, struct look *l)
{
	uint64_t since = atomic_load(&v->run_since_us);

	uint64_t utime = 0;
	long tck = sysconf(_SC_CLK_TCK);

	memset(l, 0, sizeof(*l));
	l->at_us = now_us();
	l->in_run = atomic_load(&v->in_run);
	/* written by the vCPU before in_run: as of this KVM_RUN */
	entry_of(v, &l->entry);
	l->run_ms = l->in_run && since ? (l->at_us - since) / 1000 : 0;
	l->runs = atomic_load(&v->runs);
	l->p.have_stats = v->have_stats && !kvm_stats_read(&v->stats);
	if (l->p.have_stats) {
		stats_into(&v->stats, &l->p);
		l->hypercalls = kvm_stats_value(&v->stats, "hypercalls");
		l->io_exits = kvm_stats_value(&v->stats, "io_exits");
	}
	l->state = '?';
	l->p.have_times = atomic_load(&v->tid) &&
			  thread_times(atomic_load(&v->tid), &l->state,
				       &l->p.stime, &l->p.guest_time, &utime);
	l->utime_us = utime * 1000000ULL / tck;
	l->stime_us = l->p.stime * 1000000ULL / tck;
}

/* a vCPU in KVM_RUN at the look: what happened since it entered it */
static void print_since_entry(const struct look *l)
{
	struct sv_progress now = l->p;
	const struct sv_progress *e = &l->entry;
	uint64_t taken, handled;

	if (!l->in_run)
		return;
	now.stime = l->stime_us;
	now.guest_time = l->utime_us;
	taken = now.pf_taken - e->pf_taken;
	handled = (now.pf_fixed - e->pf_fixed) +
		  (now.pf_emulate - e->pf_emulate) +
		  (now.pf_spurious - e->pf_spurious);
	printf("# diag:   in this KVM_RUN for %.1f s", l->run_ms / 1000.0);
	/* the entry's times are exact, the look's in clock ticks */
	now.stime = now.stime > e->stime ? now.stime : e->stime;
	now.guest_time = now.guest_time > e->guest_time ? now.guest_time :
			 e->guest_time;
	if (e->have_stats && now.have_stats)
		printf(": exits +%llu, pf_taken +%llu (fixed +%llu, emulated +%llu, spurious +%llu, retried +%llu)",
		       (unsigned long long)(now.exits - e->exits),
		       (unsigned long long)taken,
		       (unsigned long long)(now.pf_fixed - e->pf_fixed),
		       (unsigned long long)(now.pf_emulate - e->pf_emulate),
		       (unsigned long long)(now.pf_spurious - e->pf_spurious),
		       (unsigned long long)(taken > handled ? taken - handled : 0));
	if (e->have_times && now.have_times)
		printf("; L1 kernel +%.2f s, guest +%.2f s",
		       (now.stime - e->stime) / 1e6,
		       (now.guest_time - e->guest_time) / 1e6);
	printf("\n# diag:   verdict since it entered: %s\n",
	       sv_hang_str(sv_hang_kind(e, &now)));
}

void stress_diag_crawl(struct stress_vcpu *v)
{
	struct look l;

	look_at(v, &l);
	printf("# crawl: vCPU %u (op %llu %s, slot %c gpa %#llx+%llu pages): no exit, but KVM fixes its page faults\n",
	       v->id, (unsigned long long)v->g->ops + 1,
	       stress_phase_str(v->g->phase),
	       v->g->cur_slot == STRESS_SLOT_D ? 'D' : 'I',
	       (unsigned long long)v->g->cur_gpa,
	       (unsigned long long)v->g->cur_pages);
	print_since_entry(&l);
	fflush(stdout);
}

/* the kernel stack of a thread, one "# diag:" line per frame */
static void print_stack(int tid, const char *who, unsigned int max_frames)
{
	char path[64], buf[STACK_MAX], *line, *save = NULL;
	unsigned int n = 0;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stack", tid);
	if (read_text(path, buf, sizeof(buf)) < 0) {
		printf("# diag: %s: no kernel stack (%s: %s)\n", who, path,
		       strerror(errno));
		return;
	}
	printf("# diag: %s, kernel stack:%s\n", who, buf[0] ? "" :
	       " none (on a CPU now: sysrq-l has its backtrace)");
	for (line = strtok_r(buf, "\n", &save); line && n < max_frames;
	     line = strtok_r(NULL, "\n", &save), n++) {
		/* "[<0>] func+0x1c3/0x9a0 [kvm]" */
		char *f = strstr(line, "] ");

		printf("# diag:     %s\n", f ? f + 2 : line);
	}
}

const char *stress_phase_str(uint32_t p)
{
	static const char *const names[STRESS_PHASE_NR] = {
		[STRESS_PHASE_INIT] = "filling its ranges",
		[STRESS_PHASE_FILL] = "filling the range",
		[STRESS_PHASE_COPY_OUT] = "copying the range aside",
		[STRESS_PHASE_CONVERT] = "in the conversion hypercall",
		[STRESS_PHASE_COPY_BACK] = "copying the range back",
		[STRESS_PHASE_VERIFY] = "verifying the range",
		[STRESS_PHASE_VERIFY_ALL] = "verifying both whole ranges",
		[STRESS_PHASE_DONE] = "done",
		[STRESS_PHASE_INJECT] = "in --inject's fault or loop",
	};

	return p < STRESS_PHASE_NR && names[p] ? names[p] : "?";
}

/* the process's other threads: name, state, and the stack when blocked */
static void print_other_threads(struct stress_vcpu *v, unsigned int n)
{
	struct dirent *d;
	DIR *dir = opendir("/proc/self/task");
	unsigned int i;

	if (!dir)
		return;
	while ((d = readdir(dir))) {
		int tid = atoi(d->d_name);
		char path[64], name[32] = "?", who[64], state = '?';
		uint64_t st, gt, ut;

		if (tid <= 0 || tid == gettid())
			continue;
		for (i = 0; i < n && atomic_load(&v[i].tid) != tid; i++)
			;
		if (i < n)
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%d/comm", tid);
		if (read_text(path, name, sizeof(name)) > 0)
			name[strcspn(name, "\n")] = '\0';
		thread_times(tid, &state, &st, &gt, &ut);
		snprintf(who, sizeof(who), "thread %s (tid %d) %c", name, tid,
			 state);
		if (state == 'D')
			print_stack(tid, who, 12);
		else
			printf("# diag: %s\n", who);
	}
	closedir(dir);
}

/* one vCPU (v[i]) at the two looks x and y of stress_diag_live() */
static void print_vcpu(struct stress *st, struct stress_vcpu *v,
		       unsigned int i, int culprit, const struct look *x,
		       const struct look *y, struct fault_sum *f, bool traced,
		       unsigned int trace_ms)
{
	uint64_t taken = y->p.pf_taken - x->p.pf_taken;
	uint64_t handled = (y->p.pf_fixed - x->p.pf_fixed) +
			   (y->p.pf_emulate - x->p.pf_emulate) +
			   (y->p.pf_spurious - x->p.pf_spurious);
	const struct stress_guest *g = v[i].g;
	double secs = (y->at_us - x->at_us) / 1e6;
	char who[64];

	printf("# diag: vCPU %u%s (tid %d, %c): %s; op %llu done, op %llu %s (slot %c gpa %#llx+%llu pages)\n",
	       v[i].id, (int)i == culprit ? " [this report]" : "",
	       atomic_load(&v[i].tid), y->state,
	       y->in_run ? "in KVM_RUN" :
	       atomic_load(&v[i].shutdown) ? "stopped at its SHUTDOWN exit" :
	       atomic_load(&v[i].out) ? "out of its loop" :
	       "in the VMM (converting)",
	       (unsigned long long)g->ops,
	       (unsigned long long)g->ops + 1, stress_phase_str(g->phase),
	       g->cur_slot == STRESS_SLOT_D ? 'D' : 'I',
	       (unsigned long long)g->cur_gpa,
	       (unsigned long long)g->cur_pages);
	print_since_entry(x);
	if (y->p.have_stats && x->p.have_stats)
		printf("# diag:   KVM over the %.1f s between the looks: exits +%llu, pf_taken +%llu (fixed +%llu, emulated +%llu, spurious +%llu, retried +%llu), hypercalls +%llu, io_exits +%llu; KVM_RUN returned %llu times\n",
		       secs,
		       (unsigned long long)(y->p.exits - x->p.exits),
		       (unsigned long long)taken,
		       (unsigned long long)(y->p.pf_fixed - x->p.pf_fixed),
		       (unsigned long long)(y->p.pf_emulate - x->p.pf_emulate),
		       (unsigned long long)(y->p.pf_spurious - x->p.pf_spurious),
		       (unsigned long long)(taken > handled ? taken - handled : 0),
		       (unsigned long long)(y->hypercalls - x->hypercalls),
		       (unsigned long long)(y->io_exits - x->io_exits),
		       (unsigned long long)(y->runs - x->runs));
	else
		printf("# diag:   no KVM statistics\n");
	if (y->p.have_times && x->p.have_times)
		printf("# diag:   thread CPU time between the looks: L1 kernel +%.2f s, guest +%.2f s\n",
		       (y->p.stime - x->p.stime) / (double)sysconf(_SC_CLK_TCK),
		       (y->p.guest_time - x->p.guest_time) /
		       (double)sysconf(_SC_CLK_TCK));
	printf("# diag:   verdict between the looks: %s\n", y->runs != x->runs ?
	       "it comes back to the VMM: progressing" :
	       !y->in_run ?
	       "not in KVM_RUN: in the VMM or stopped (its state and stack say where)" :
	       sv_hang_str(sv_hang_kind(&x->p, &y->p)));
	if (traced)
		print_faults(st, v[i].id, f, trace_ms);
	snprintf(who, sizeof(who), "vCPU %u thread", v[i].id);
	if (atomic_load(&v[i].tid))
		print_stack(atomic_load(&v[i].tid), who, 24);
}

void stress_diag_live(struct stress *st, struct stress_vcpu *v,
		      unsigned int n, int culprit, const char *why,
		      unsigned int window_ms)
{
	struct look *a = calloc(n, sizeof(*a)), *b = calloc(n, sizeof(*b));
	struct fault_sum *faults = calloc(n, sizeof(*faults));
	uint64_t count0[C_NR], count1[C_NR];
	struct unmap_sum unmap;
	unsigned int i, trace_ms = window_ms < TRACE_MS ? window_ms : TRACE_MS;
	bool traced;
	uint64_t t0;

	if (!a || !b || !faults) {
		printf("# diag: out of memory\n");
		goto out;
	}
	printf("# diag: %s; where every vCPU and its thread are, two looks %u ms apart:\n",
	       why, window_ms);
	t0 = now_us();
	for (i = 0; i < n; i++)
		look_at(&v[i], &a[i]);
	for (i = 0; i < C_NR; i++)
		count0[i] = atomic_load(&st->count[i]);
	traced = trace_faults(st, faults, n, &unmap, trace_ms);
	sleep_ms(window_ms > trace_ms ? window_ms - trace_ms : 0);
	for (i = 0; i < n; i++)
		look_at(&v[i], &b[i]);
	for (i = 0; i < C_NR; i++)
		count1[i] = atomic_load(&st->count[i]) - count0[i];
	/* each of these moves KVM's invalidation sequence: faults retry */
	printf("# diag: between the looks: vCPU conversions +%llu, host-region conversions +%llu, punches +%llu, fallocates +%llu, mmap/munmap +%llu, compactions +%llu\n",
	       (unsigned long long)(count1[C_CONV_D_SHARED] + count1[C_CONV_D_PRIVATE] +
				    count1[C_CONV_I_SHARED] + count1[C_CONV_I_PRIVATE]),
	       (unsigned long long)count1[C_HR_CONVERT],
	       (unsigned long long)count1[C_HR_PUNCH],
	       (unsigned long long)count1[C_HR_FALLOCATE],
	       (unsigned long long)count1[C_HR_MMAP],
	       (unsigned long long)count1[C_COMPACT]);
	if (traced) {
		printf("# diag: kvm:kvm_unmap_hva_range (the MMU notifier) in %u ms: %llu",
		       trace_ms, (unsigned long long)unmap.count);
		for (i = 0; i < unmap.ncomm; i++)
			printf("%s%s %llu", i ? ", " : " (", unmap.comm[i].comm,
			       (unsigned long long)unmap.comm[i].count);
		printf("%s\n", unmap.ncomm ? ")" : "");
	}

	for (i = 0; i < n; i++)
		print_vcpu(st, v, i, culprit, &a[i], &b[i], &faults[i], traced,
			   trace_ms);
	if (!traced)
		printf("# diag: no kvm:kvm_page_fault trace (%s)\n", TRACE);
	print_other_threads(v, n);
	if (write_file("/proc/sysrq-trigger", "l") &&
	    write_file("/proc/sysrq-trigger", "w"))
		printf("# diag: sysrq-l (running CPUs) and sysrq-w (blocked tasks): in the kernel log (console.log)\n");
	else
		printf("# diag: no sysrq: /proc/sysrq-trigger: %s\n",
		       strerror(errno));
	printf("# diag: the looks took %.1f s\n", (now_us() - t0) / 1e6);
out:
	free(a);
	free(b);
	free(faults);
	fflush(stdout);
}

static void kick_handler(int sig)
{
	(void)sig;
}

void stress_kick_init(void)
{
	struct sigaction sa = { .sa_handler = kick_handler };

	/* no SA_RESTART: KVM_RUN returns EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(STRESS_KICK_SIGNAL, &sa, NULL);
}

/*
 * The guest sets no cr3 of its own: its page table root is the one the
 * VMM gave it (kvm_x86.c). A hung vCPU whose cr3 is another one runs on
 * state its guest cannot produce. Under QEMU TCG with nested SVM it was
 * seen once in a 10-minute storm: the L2 vCPU resumed at the
 * instruction after VMRUN in L1's __svm_vcpu_run with L1's own cr3,
 * its page walk faulting without end. Whose fault that is (the
 * emulator's, or a write of ours into memory it should no longer
 * reach) is open: the failure says it, and stands (tests/lib/
 * emu_retry.sh).
 */
static void foreign_state(struct stress *st, const struct stress_vcpu *v,
			  const struct kvm_regs *r, const struct kvm_sregs *sr)
{
	uint64_t root = v->vcpu->vm->pml4_gpa;
	size_t len;

	if (sr->cr3 == root)
		return;
	printf("# diag: vCPU %u: cr3 %#llx is not its guest's page table %#llx, which the guest never changes: state its guest cannot produce\n",
	       v->id, (unsigned long long)sr->cr3, (unsigned long long)root);
	pthread_mutex_lock(&st->msg_lock);
	len = strlen(st->msg);
	snprintf(st->msg + len, sizeof(st->msg) - len,
		 "; state its guest cannot produce: cr3 %#llx, not the guest's page table %#llx, rip %#llx",
		 (unsigned long long)sr->cr3, (unsigned long long)root,
		 (unsigned long long)r->rip);
	pthread_mutex_unlock(&st->msg_lock);
}

void stress_diag_regs(struct stress *st, struct stress_vcpu *v,
		      unsigned int n, int hung, unsigned int wait_ms)
{
	uint64_t t0 = now_us(), waited;
	unsigned int i, left;

	/* a signal that lands just before KVM_RUN is lost: send again */
	do {
		for (i = left = 0; i < n; i++)
			if (!atomic_load(&v[i].out)) {
				pthread_kill(v[i].thread, STRESS_KICK_SIGNAL);
				left++;
			}
		if (left)
			sleep_ms(20);
		waited = (now_us() - t0) / 1000;
	} while (left && waited < wait_ms);

	for (i = left = 0; i < n; i++) {
		const struct stress_guest *g = v[i].g;
		struct kvm_sregs sr;
		struct kvm_regs r;
		char who[128];

		if (!atomic_load(&v[i].out)) {
			left++;
			snprintf(who, sizeof(who),
				 "vCPU %u: still in KVM_RUN %u ms after signals: its thread does not come back",
				 v[i].id, wait_ms);
			print_stack(atomic_load(&v[i].tid), who, 24);
			continue;
		}
		if (__vcpu_get_regs(v[i].vcpu, &r) ||
		    ioctl(v[i].vcpu->fd, KVM_GET_SREGS, &sr)) {
			printf("# diag: vCPU %u: registers unreadable: %s\n",
			       v[i].id, strerror(errno));
			continue;
		}
		if (atomic_load(&v[i].last_exit) == KVM_EXIT_SHUTDOWN) {
			printf("# diag: vCPU %u: registers reset by KVM at the SHUTDOWN; op %llu %s\n",
			       v[i].id, (unsigned long long)g->ops + 1,
			       stress_phase_str(g->phase));
			continue;
		}
		printf("# diag: vCPU %u: guest rip %#llx rsp %#llx rflags %#llx cr2 %#llx cr3 %#llx; rax %#llx rcx %#llx rdx %#llx rsi %#llx rdi %#llx; op %llu %s; last exit %s\n",
		       v[i].id, (unsigned long long)r.rip,
		       (unsigned long long)r.rsp, (unsigned long long)r.rflags,
		       (unsigned long long)sr.cr2, (unsigned long long)sr.cr3,
		       (unsigned long long)r.rax, (unsigned long long)r.rcx,
		       (unsigned long long)r.rdx, (unsigned long long)r.rsi,
		       (unsigned long long)r.rdi, (unsigned long long)g->ops + 1,
		       stress_phase_str(g->phase),
		       exit_reason_str(atomic_load(&v[i].last_exit)));
		if ((int)i == hung)
			foreign_state(st, &v[i], &r, &sr);
	}
	printf("# diag: %u of %u vCPUs out of KVM_RUN %llu ms after the first signal\n",
	       n - left, n, (unsigned long long)(now_us() - t0) / 1000);
	fflush(stdout);
}
