// SPDX-License-Identifier: GPL-2.0
/* convstress's verdicts: see verdict.h */
#include <errno.h>

#include "stress.h"
#include "verdict.h"

bool sv_private_io_refused(ssize_t n, int err)
{
	return n == -1 && err == EPERM;
}

bool sv_private_touch_refused(int probe_r)
{
	return probe_r == -1;
}

bool sv_private_page_ok(ssize_t n, int err, int probe_r)
{
	return sv_private_io_refused(n, err) &&
	       sv_private_touch_refused(probe_r);
}

bool sv_shared_read_ok(ssize_t n, uint64_t page, uint64_t bad_words)
{
	return n >= 0 && (uint64_t)n == page && !bad_words;
}

enum sv_forbid sv_forbid_check(bool shared, ssize_t n, int err, int probe_r,
			       uint64_t page)
{
	if (shared)
		return n >= 0 && (uint64_t)n == page ? SV_FORBID_OK :
		       SV_FORBID_SHARED_READ;
	if (!sv_private_io_refused(n, err))
		return SV_FORBID_PRIVATE_READ;
	if (!sv_private_touch_refused(probe_r))
		return SV_FORBID_PRIVATE_LOAD;
	return SV_FORBID_OK;
}

bool sv_odirect_ok(bool shared, ssize_t n, uint64_t page)
{
	if (shared)
		return n >= 0 && (uint64_t)n == page;
	return n < 0;
}

enum sv_exit sv_classify_exit(int run_r, uint32_t exit_reason, bool map_gpa,
			      uint64_t ucall, uint64_t sync0)
{
	if (run_r == -ETIMEDOUT)
		return SV_EXIT_HANG;
	if (run_r)
		return SV_EXIT_UNEXPECTED;
	if (map_gpa && exit_reason == KVM_EXIT_HYPERCALL)
		return SV_EXIT_CONVERT;
	if (exit_reason == KVM_EXIT_SHUTDOWN)
		return SV_EXIT_SHUTDOWN;
	if (exit_reason != KVM_EXIT_IO)
		return SV_EXIT_UNEXPECTED;
	if (ucall == UCALL_DONE)
		return SV_EXIT_DONE;
	if (ucall == UCALL_SYNC && sync0 == STRESS_SYNC_BAD)
		return SV_EXIT_BAD_DATA;
	if (ucall == UCALL_SYNC && sync0 == STRESS_SYNC_HCFAIL)
		return SV_EXIT_HC_FAILED;
	return SV_EXIT_UNEXPECTED;
}

/* b - a, 0 when a counter went backwards (it cannot: a torn read) */
static uint64_t delta(uint64_t a, uint64_t b)
{
	return b > a ? b - a : 0;
}

enum sv_hang sv_hang_kind(const struct sv_progress *a,
			  const struct sv_progress *b)
{
	bool stats = a->have_stats && b->have_stats;
	bool times = a->have_times && b->have_times;
	uint64_t guest = times ? delta(a->guest_time, b->guest_time) : 0;
	uint64_t kernel = times ? delta(a->stime, b->stime) : 0;
	bool exits;

	/*
	 * a guest that mostly runs: its faults, if any, are incidental (a
	 * livelock or crawl of faults spends most of its time in KVM)
	 */
	if (times && guest > 2 * kernel)
		return SV_HANG_IN_GUEST;
	if (stats) {
		uint64_t taken = delta(a->pf_taken, b->pf_taken);
		uint64_t fixed = delta(a->pf_fixed, b->pf_fixed);
		uint64_t done = fixed + delta(a->pf_emulate, b->pf_emulate) +
				delta(a->pf_spurious, b->pf_spurious);

		if (taken && !done)
			return SV_HANG_FAULT_RETRY;
		/* most faults were neither fixed, emulated nor spurious */
		if (taken > 2 * done)
			return SV_HANG_FAULT_CRAWL;
		if (taken)
			return SV_HANG_FAULT_REFIX;
	}
	exits = stats && delta(a->exits, b->exits);
	if (times && (guest || kernel)) {
		/* a looping guest still exits for interrupts */
		if (guest >= kernel)
			return SV_HANG_IN_GUEST;
		return exits ? SV_HANG_EXITS : SV_HANG_IN_KERNEL;
	}
	if (exits)
		return SV_HANG_EXITS;
	return stats && times ? SV_HANG_STILL : SV_HANG_UNKNOWN;
}

enum sv_watch_verdict sv_watch(struct sv_watch *w, bool in_run,
			       uint64_t run_since_us, bool have_stats,
			       uint64_t progress, uint64_t now_us,
			       uint64_t hang_us, uint64_t crawl_us)
{
	if (!in_run || !run_since_us) {
		w->run_since_us = 0;
		return SV_WATCH_OK;
	}
	if (w->run_since_us != run_since_us) {
		*w = (struct sv_watch){ .run_since_us = run_since_us,
					.progress = progress,
					.moved_us = run_since_us };
	}
	if (have_stats && progress != w->progress) {
		w->progress = progress;
		w->moved_us = now_us;
	}
	if (now_us < run_since_us)
		return SV_WATCH_OK;
	if (now_us - w->moved_us >= hang_us)
		return SV_WATCH_HANG;
	if (now_us - run_since_us >= crawl_us)
		return SV_WATCH_CRAWL_LIMIT;
	if (now_us - run_since_us >= hang_us && !w->crawl_noted) {
		w->crawl_noted = true;
		return SV_WATCH_CRAWL;
	}
	return SV_WATCH_OK;
}

const char *sv_hang_str(enum sv_hang h)
{
	switch (h) {
	case SV_HANG_FAULT_RETRY:
		return "fault-retry livelock: KVM takes page faults and fixes none";
	case SV_HANG_FAULT_CRAWL:
		return "fault-retry crawl: KVM retries most page faults, fixes a few";
	case SV_HANG_FAULT_REFIX:
		return "faults handled (fixed, emulated or spurious) and taken again, no exit out";
	case SV_HANG_EXITS:
		return "exits handled in KVM without page faults, none to userspace";
	case SV_HANG_IN_GUEST:
		return "the thread runs the guest, no exit to the VMM (a guest loop, or the emulator delivers no exit)";
	case SV_HANG_IN_KERNEL:
		return "no exits: the thread runs in the L1 kernel";
	case SV_HANG_STILL:
		return "nothing moves: the thread does not run (an emulator stall, or blocked: see its stack)";
	case SV_HANG_UNKNOWN:
		break;
	}
	return "unknown: no statistics to tell";
}
