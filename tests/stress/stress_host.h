/* SPDX-License-Identifier: GPL-2.0 */
/* convstress, host side: what its threads share (see stress.h) */
#ifndef CONVBENCH_STRESS_HOST_H
#define CONVBENCH_STRESS_HOST_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "conv_mode.h"
#include "kvm_stats.h"
#include "stress.h"
#include "verdict.h"

/* what the run did, per operation; printed at the end */
enum stress_count {
	C_CONV_D_SHARED, C_CONV_D_PRIVATE, C_CONV_I_SHARED, C_CONV_I_PRIVATE,
	C_CONV_PRESERVE, C_CONV_ZERO, C_CONV_PAGES, C_CONV_BUSY_RETRY,
	C_PUNCH_RETRY,
	C_GUEST_VERIFIED,
	C_HR_CONVERT, C_HR_CONVERT_BUSY, C_HR_PUNCH, C_HR_PUNCH_BUSY,
	C_HR_FALLOCATE,
	C_HR_WRITE, C_HR_READ, C_HR_MMAP, C_HR_PIN, C_HR_ODIRECT,
	C_PIN_VMSPLICE, C_PIN_ODIRECT, C_PIN_REFUSED,
	C_FORBID_READ, C_FORBID_TOUCH, C_SHARED_READ,
	C_COMPACT, C_DROP_CACHES,
	C_NR,
};

struct stress_slot {
	int fd;			/* the private MFD_INACCESSIBLE fd */
	uint64_t gpa;		/* slot base; the fd maps from offset 0 */
	uint64_t size;		/* slot and fd size */
	uint64_t guest_bytes;	/* [0, guest_bytes): the vCPUs' ranges */
	uint8_t *shared;	/* the slot's shared part */
	uint8_t *fdmap;		/* a MAP_SHARED mapping of the whole fd */
	/* per page of the guest part: 1 shared, as the handler converted */
	uint8_t *shadow;
	/* the handler writes around a conversion, checkers read */
	pthread_rwlock_t lock;
	bool inplace;
	/* the VMM's conversion of the slot: convbench's (bench/modes/) */
	struct conv_ctx conv;
	uint64_t busy_t0;	/* a busy conversion waits from here */
};

/* a vCPU of the storm and the thread that runs it */
struct stress_vcpu {
	unsigned int id;
	struct kvm_vcpu *vcpu;
	struct stress_guest *g;	/* host view of the guest's struct */
	pthread_t thread;
	atomic_int tid;		/* the thread's id (/proc/self/task), 0 before */
	struct kvm_stats stats;	/* KVM's statistics of this vCPU (main thread) */
	bool have_stats;
	/*
	 * the same, read by the vCPU's thread as it enters KVM_RUN, with
	 * its CPU time (microseconds: guest_time is user + guest, as a
	 * thread in KVM_RUN runs no user code): a hang's report counts
	 * from there
	 */
	struct kvm_stats run_stats;
	struct sv_progress entry;
	atomic_uint entry_seq;	/* odd while entry is written */
	/* the thread, as it goes */
	atomic_bool in_run;	/* inside KVM_RUN */
	atomic_ullong run_since_us; /* when this KVM_RUN began */
	atomic_ullong runs;	/* KVM_RUN calls returned */
	atomic_uint last_exit;	/* exit reason of the last one */
	atomic_bool out;	/* left its loop */
	struct sv_watch watch;	/* the main thread's watch (verdict.h) */
	/* a SHUTDOWN: the thread waits for the report before it leaves */
	atomic_bool shutdown;
	char why[512];		/* its failure, written before shutdown */
};

struct stress {
	struct stress_slot slot[STRESS_SLOTS];
	int loop_fd;		/* O_DIRECT fd of a loop device, or -1 */
	uint64_t loop_size;
	uint64_t seed;
	atomic_bool stop;
	atomic_bool failed;
	pthread_mutex_t msg_lock;
	char msg[1024];		/* the first failure */
	atomic_ullong count[C_NR];
	atomic_ullong fail_us;	/* CLOCK_MONOTONIC_RAW of the first failure */
};

/* record the first failure and stop every thread */
void stress_fail(struct stress *st, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Where every vCPU and its thread are (diag.c), printed as "# diag: "
 * lines: while they run, two looks window_ms apart at each thread (its
 * L1 kernel stack, its CPU time in the kernel and in the guest) and at
 * KVM's counters of each vCPU, a trace of KVM's page faults in between,
 * sysrq-l and -w into the kernel log; culprit (-1: none) is the vCPU
 * the report is about.
 */
void stress_diag_live(struct stress *st, struct stress_vcpu *v,
		      unsigned int n, int culprit, const char *why,
		      unsigned int window_ms);
/*
 * After the failure is recorded: kick each vCPU still in KVM_RUN out
 * with a signal (EINTR), wait up to wait_ms, print each one's guest
 * registers (rip, rsp, cr2...) and what the guest was doing. The
 * vCPU hung (its index, or -1) is checked for state its guest cannot
 * produce, and the failure says so.
 */
void stress_diag_regs(struct stress *st, struct stress_vcpu *v,
		      unsigned int n, int hung, unsigned int wait_ms);
/*
 * KVM's page faults of all vCPUs so far (main thread): taken, and those
 * neither fixed, emulated nor spurious (retried); false without stats
 */
bool stress_fault_counts(struct stress_vcpu *v, unsigned int n,
			 uint64_t *taken, uint64_t *retried);
/* KVM's faults fixed and emulated of a vCPU, now: false without stats */
bool stress_progress_count(struct stress_vcpu *v, uint64_t *count);
/* a vCPU in KVM_RUN past the hang timeout that KVM gets on: one line */
void stress_diag_crawl(struct stress_vcpu *v);
/* the vCPU's thread, before KVM_RUN: KVM's counters and its CPU time */
void stress_entry_look(struct stress_vcpu *v);
/* a signal with a handler and no SA_RESTART: it ends a KVM_RUN (EINTR) */
#define STRESS_KICK_SIGNAL	SIGUSR1
void stress_kick_init(void);

static inline void stress_count(struct stress *st, enum stress_count c,
				uint64_t n)
{
	atomic_fetch_add_explicit(&st->count[c], n, memory_order_relaxed);
}

/*
 * A load or store through a mapping that may SIGBUS: 0, or -1 when it
 * raised SIGBUS (caught per thread). n bytes, a multiple of 8.
 */
int stress_probe_read(const void *p, uint64_t want, uint64_t n,
		      uint64_t *bad);
int stress_probe_write(void *p, uint64_t val, uint64_t n);
void stress_catch_sigbus(void);

/* host-region thread of a slot's fd: arg is struct hr_arg */
struct hr_arg {
	struct stress *st;
	unsigned int slot;
	uint64_t seed;
};
void *stress_host_region(void *arg);

#endif /* CONVBENCH_STRESS_HOST_H */
