/* SPDX-License-Identifier: GPL-2.0 */
/*
 * convstress's verdicts, as pure functions of what an access, a run or
 * a conversion returned: what the storm calls a refused private access,
 * a good shared read, the data a page must hold, a hang, and what a
 * hung vCPU was doing. The storm's threads decide through these alone,
 * so that tests/unit/test_stress_verdict.c can feed each one right and
 * wrong outcomes: a lenient verdict would let a kernel bug through.
 *
 * Each sv_*_ok() returns true when the outcome is the one the series
 * promises. The guest's part (the words a page must hold) is in
 * stress.h: guest and host share it.
 */
#ifndef CONVBENCH_STRESS_VERDICT_H
#define CONVBENCH_STRESS_VERDICT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * read()/pread()/write()/pwrite() of a private page: n is what the call
 * returned, err the errno right after it (stale when it succeeded).
 * Refused means -1 with EPERM.
 */
bool sv_private_io_refused(ssize_t n, int err);

/*
 * A load or store through a mapping of a private page: probe_r is
 * stress_probe_read()/_write()'s result, -1 when it raised SIGBUS.
 * Refused means SIGBUS.
 */
bool sv_private_touch_refused(int probe_r);

/* pread() and a load of a private page: both refused */
bool sv_private_page_ok(ssize_t n, int err, int probe_r);

/*
 * A read of a shared page, by pread() (n bytes back) or through a
 * mapping (n: the page size, or -1 when it raised SIGBUS): the whole
 * page came back and bad_words of its words differ from what it holds.
 */
bool sv_shared_read_ok(ssize_t n, uint64_t page, uint64_t bad_words);

/*
 * A page the forbid thread read while the VMM's lock held its state:
 * shared (only in-place slots share the fd's page) must read whole;
 * private must refuse pread (n, err) and a load (probe_r).
 */
enum sv_forbid {
	SV_FORBID_OK,
	SV_FORBID_PRIVATE_READ,		/* pread of a private page not refused */
	SV_FORBID_PRIVATE_LOAD,		/* a load of a private page went through */
	SV_FORBID_SHARED_READ,		/* pread of a shared page short or failed */
};
enum sv_forbid sv_forbid_check(bool shared, ssize_t n, int err, int probe_r,
			       uint64_t page);

/*
 * An O_DIRECT write from a page to the loop device (the device pins and
 * reads it): a shared page goes through whole, a private one fails.
 */
bool sv_odirect_ok(bool shared, ssize_t n, uint64_t page);

/*
 * What one KVM_RUN of a storm vCPU came back with:
 *   run_r        __vcpu_run()'s result (0, -ETIMEDOUT, -errno)
 *   exit_reason  kvm_run's exit reason
 *   map_gpa      the exit is KVM_HC_MAP_GPA_RANGE (get_map_gpa_range())
 *   ucall        get_ucall()'s command (UCALL_NONE when not one)
 *   sync0        a UCALL_SYNC's first argument
 */
enum sv_exit {
	SV_EXIT_CONVERT,	/* the guest asks for a conversion */
	SV_EXIT_DONE,		/* the guest finished */
	SV_EXIT_HANG,		/* no exit within the run timeout */
	SV_EXIT_BAD_DATA,	/* the guest found a word it did not expect */
	SV_EXIT_HC_FAILED,	/* the guest saw its conversion fail */
	SV_EXIT_SHUTDOWN,	/* a triple fault */
	SV_EXIT_UNEXPECTED,	/* anything else is a failure too */
};
enum sv_exit sv_classify_exit(int run_r, uint32_t exit_reason, bool map_gpa,
			      uint64_t ucall, uint64_t sync0);

/*
 * What a vCPU that does not come back from KVM_RUN is doing, from two
 * looks some time apart at KVM's per-vCPU statistics and at its thread
 * (/proc/self/task/TID/stat: CPU time in the L1 kernel and in the
 * guest). Faults KVM neither fixes, emulates nor calls spurious are
 * retried (RET_PF_RETRY).
 */
struct sv_progress {
	bool have_stats;	/* KVM's binary stats could be read */
	uint64_t exits;		/* exits KVM handled (all, in the kernel) */
	uint64_t pf_taken, pf_fixed, pf_emulate, pf_spurious;
	bool have_times;	/* the thread's stat could be read */
	uint64_t stime;		/* clock ticks in the L1 kernel */
	uint64_t guest_time;	/* clock ticks running the guest */
};

enum sv_hang {
	SV_HANG_FAULT_RETRY,	/* faults taken, none fixed: a retry livelock */
	SV_HANG_FAULT_CRAWL,	/* most faults retried, a few fixed: a crawl */
	SV_HANG_FAULT_REFIX,	/* faults handled, taken again, no exit out */
	SV_HANG_EXITS,		/* exits handled in KVM, no page faults, the
				 * thread mostly in the kernel */
	SV_HANG_IN_GUEST,	/* the thread mostly runs the guest (its exits,
				 * if any, are interrupts) */
	SV_HANG_IN_KERNEL,	/* no exit; the thread runs in the L1 kernel */
	SV_HANG_STILL,		/* nothing moves: the thread does not run */
	SV_HANG_UNKNOWN,	/* no statistics to tell */
};
enum sv_hang sv_hang_kind(const struct sv_progress *before,
			  const struct sv_progress *after);
const char *sv_hang_str(enum sv_hang h);

/*
 * The main thread's watch over one vCPU, called every 100 ms or so: a
 * vCPU in KVM_RUN hangs when, for hang_us, it neither exits nor gets a
 * page fault fixed or emulated by KVM (with no statistics: no exit for
 * hang_us); one that still gets faults fixed crawls, noted once per
 * KVM_RUN after hang_us, and fails when one KVM_RUN lasts crawl_us.
 * progress: KVM's pf_fixed + pf_emulate of the vCPU, now.
 */
struct sv_watch {
	uint64_t run_since_us;	/* the KVM_RUN watched, 0: none */
	uint64_t progress;	/* the count at its last move */
	uint64_t moved_us;	/* when it last moved */
	bool crawl_noted;
};

enum sv_watch_verdict {
	SV_WATCH_OK,
	SV_WATCH_CRAWL,		/* past hang_us, faults fixed: note it, once */
	SV_WATCH_HANG,		/* no exit, no fault fixed for hang_us */
	SV_WATCH_CRAWL_LIMIT,	/* one KVM_RUN of crawl_us */
};
enum sv_watch_verdict sv_watch(struct sv_watch *w, bool in_run,
			       uint64_t run_since_us, bool have_stats,
			       uint64_t progress, uint64_t now_us,
			       uint64_t hang_us, uint64_t crawl_us);

#endif /* CONVBENCH_STRESS_VERDICT_H */
