// SPDX-License-Identifier: GPL-2.0
/*
 * convstress's verdicts (tests/stress/verdict.h and the guest's data
 * rules in stress.h), fed the outcomes the series promises and the ones
 * a kernel bug would give: each wrong outcome must be called wrong. A
 * successful call leaves errno as it was, so "it read the page" is fed
 * with a stale EPERM too: the De Morgan slip that once let a private
 * read pass as refused shows exactly there.
 */
#include <errno.h>
#include <string.h>

#include "stress.h"
#include "tap.h"
#include "verdict.h"

#define PAGE	4096

static void private_io(void)
{
	tap_result(sv_private_io_refused(-1, EPERM),
		   "private io: -1/EPERM is refused");
	tap_result(!sv_private_io_refused(PAGE, EPERM),
		   "private io: a whole page read (errno a stale EPERM) is not refused");
	tap_result(!sv_private_io_refused(PAGE, 0),
		   "private io: a whole page read is not refused");
	tap_result(!sv_private_io_refused(0, EPERM),
		   "private io: 0 bytes (a hole read as EOF) is not refused");
	tap_result(!sv_private_io_refused(-1, EFAULT),
		   "private io: -1/EFAULT is a failure, not the refusal");
	tap_result(!sv_private_io_refused(-1, EACCES),
		   "private io: -1/EACCES is not EPERM");

	tap_result(sv_private_touch_refused(-1),
		   "private load: SIGBUS is refused");
	tap_result(!sv_private_touch_refused(0),
		   "private load: a load that went through is not refused");

	tap_result(sv_private_page_ok(-1, EPERM, -1),
		   "private page: pread EPERM and load SIGBUS hold");
	tap_result(!sv_private_page_ok(-1, EPERM, 0),
		   "private page: pread refused but the load went through");
	tap_result(!sv_private_page_ok(PAGE, EPERM, -1),
		   "private page: the load refused but pread read the page");
	tap_result(!sv_private_page_ok(PAGE, 0, 0),
		   "private page: both went through");
}

static void forbid(void)
{
	static const struct {
		bool shared;
		ssize_t n;
		int err, probe;
		enum sv_forbid want;
		const char *what;
	} c[] = {
		{ false, -1, EPERM, -1, SV_FORBID_OK, "private: both refused" },
		{ false, PAGE, EPERM, -1, SV_FORBID_PRIVATE_READ,
		  "private: pread read the page (stale EPERM)" },
		{ false, PAGE, 0, -1, SV_FORBID_PRIVATE_READ,
		  "private: pread read the page" },
		{ false, -1, EIO, -1, SV_FORBID_PRIVATE_READ,
		  "private: pread failed with EIO, not EPERM" },
		{ false, -1, EPERM, 0, SV_FORBID_PRIVATE_LOAD,
		  "private: a load went through" },
		{ false, PAGE, 0, 0, SV_FORBID_PRIVATE_READ,
		  "private: pread and a load went through" },
		{ true, PAGE, 0, 0, SV_FORBID_OK, "shared: a whole page" },
		{ true, PAGE, EPERM, 0, SV_FORBID_OK,
		  "shared: a whole page (errno stale)" },
		{ true, 100, 0, 0, SV_FORBID_SHARED_READ, "shared: short read" },
		{ true, 0, 0, 0, SV_FORBID_SHARED_READ, "shared: EOF" },
		{ true, -1, EPERM, 0, SV_FORBID_SHARED_READ,
		  "shared: refused with EPERM" },
	};
	unsigned int i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		enum sv_forbid got = sv_forbid_check(c[i].shared, c[i].n,
						     c[i].err, c[i].probe, PAGE);

		tap_result(got == c[i].want, "forbid: %s (verdict %d, want %d)",
			   c[i].what, got, c[i].want);
	}
}

static void shared_reads(void)
{
	tap_result(sv_shared_read_ok(PAGE, PAGE, 0),
		   "shared read: a whole page, every word right");
	tap_result(!sv_shared_read_ok(PAGE, PAGE, 1),
		   "shared read: one wrong word fails");
	tap_result(!sv_shared_read_ok(PAGE - 8, PAGE, 0),
		   "shared read: a short read fails");
	tap_result(!sv_shared_read_ok(-1, PAGE, 0),
		   "shared read: SIGBUS or an error fails");

	tap_result(sv_odirect_ok(true, PAGE, PAGE),
		   "O_DIRECT: a shared page goes through");
	tap_result(!sv_odirect_ok(true, -1, PAGE),
		   "O_DIRECT: a shared page refused fails");
	tap_result(!sv_odirect_ok(true, 512, PAGE),
		   "O_DIRECT: a shared page written short fails");
	tap_result(sv_odirect_ok(false, -1, PAGE),
		   "O_DIRECT: a private page refused");
	tap_result(!sv_odirect_ok(false, PAGE, PAGE),
		   "O_DIRECT: a private page written fails");
	tap_result(!sv_odirect_ok(false, 0, PAGE),
		   "O_DIRECT: a private page 'written' as 0 bytes fails");
}

static void exits(void)
{
	static const struct {
		int r;
		uint32_t reason;
		bool map;
		uint64_t ucall, sync0;
		enum sv_exit want;
		const char *what;
	} c[] = {
		{ -ETIMEDOUT, KVM_EXIT_IO, false, UCALL_NONE, 0, SV_EXIT_HANG,
		  "the run timed out: a hang" },
		{ -ETIMEDOUT, KVM_EXIT_HYPERCALL, true, UCALL_NONE, 0,
		  SV_EXIT_HANG, "a timeout whatever the stale exit reason" },
		{ -EINTR, KVM_EXIT_INTR, false, UCALL_NONE, 0,
		  SV_EXIT_UNEXPECTED, "EINTR (not the timer's): not a hang, not ok" },
		{ 0, KVM_EXIT_HYPERCALL, true, UCALL_NONE, 0, SV_EXIT_CONVERT,
		  "MAP_GPA_RANGE: a conversion" },
		{ 0, KVM_EXIT_HYPERCALL, false, UCALL_NONE, 0,
		  SV_EXIT_UNEXPECTED, "another hypercall" },
		{ 0, KVM_EXIT_IO, false, UCALL_DONE, 0, SV_EXIT_DONE,
		  "GUEST_DONE" },
		{ 0, KVM_EXIT_IO, false, UCALL_SYNC, STRESS_SYNC_BAD,
		  SV_EXIT_BAD_DATA, "the guest's bad word" },
		{ 0, KVM_EXIT_IO, false, UCALL_SYNC, STRESS_SYNC_HCFAIL,
		  SV_EXIT_HC_FAILED, "the guest's failed hypercall" },
		{ 0, KVM_EXIT_IO, false, UCALL_SYNC, 7, SV_EXIT_UNEXPECTED,
		  "a sync the storm never sends" },
		{ 0, KVM_EXIT_IO, false, UCALL_ABORT, 0, SV_EXIT_UNEXPECTED,
		  "a guest assert" },
		{ 0, KVM_EXIT_IO, false, UCALL_EXCEPTION, 14,
		  SV_EXIT_UNEXPECTED, "a guest exception" },
		{ 0, KVM_EXIT_IO, false, UCALL_NONE, 0, SV_EXIT_UNEXPECTED,
		  "port IO that is no ucall" },
		{ 0, KVM_EXIT_SHUTDOWN, false, UCALL_NONE, 0, SV_EXIT_SHUTDOWN,
		  "a triple fault" },
		{ 0, KVM_EXIT_HLT, false, UCALL_NONE, 0, SV_EXIT_UNEXPECTED,
		  "HLT" },
		{ 0, KVM_EXIT_MMIO, false, UCALL_NONE, 0, SV_EXIT_UNEXPECTED,
		  "MMIO" },
		{ -EFAULT, KVM_EXIT_MEMORY_ERROR, false, UCALL_NONE, 0,
		  SV_EXIT_UNEXPECTED, "a memory error exit" },
		{ 0, KVM_EXIT_MEMORY_ERROR, false, UCALL_DONE, 0,
		  SV_EXIT_UNEXPECTED, "a stale DONE under another exit" },
	};
	unsigned int i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		enum sv_exit got = sv_classify_exit(c[i].r, c[i].reason,
						    c[i].map, c[i].ucall,
						    c[i].sync0);

		tap_result(got == c[i].want, "exit: %s (verdict %d, want %d)",
			   c[i].what, got, c[i].want);
	}
}

static void data(void)
{
	const uint64_t w = 0x1234567890abcdefULL;
	uint64_t page[PAGE / 8], got = 0;
	unsigned int from, to, ok = 0;

	/* PRESERVE keeps every word, in every transition */
	for (from = 0; from < 2; from++)
		for (to = 0; to < 2; to++)
			ok += stress_want_after(w, from, to, true) == w;
	tap_result(ok == 4, "data: PRESERVE keeps the word in all 4 transitions");
	tap_result(stress_want_after(w, false, true, false) == 0 &&
		   stress_want_after(w, true, false, false) == 0,
		   "data: ZERO clears a page that changes state");
	tap_result(stress_want_after(w, false, false, false) == w &&
		   stress_want_after(w, true, true, false) == w,
		   "data: ZERO keeps a page that stays as it was");

	memset(page, 0, sizeof(page));
	tap_result(stress_first_bad(page, PAGE / 8, 0, &got) == PAGE / 8,
		   "data: a page of the word it must hold passes");
	tap_result(stress_first_bad(page, PAGE / 8, w, &got) == 0 && got == 0,
		   "data: a zeroed page where a word must be fails at word 0");
	for (from = 0; from < PAGE / 8; from++)
		page[from] = w;
	page[PAGE / 8 - 1] = w ^ 1;
	tap_result(stress_first_bad(page, PAGE / 8, w, &got) == PAGE / 8 - 1 &&
		   got == (w ^ 1),
		   "data: one flipped bit in the last word is found, with its value");
	page[PAGE / 8 - 1] = w;
	page[17] = 0;
	tap_result(stress_first_bad(page, PAGE / 8, w, &got) == 17 && got == 0,
		   "data: a zero word in the middle is found");
}

/* a continued storm (--start-op) draws what the first run would have */
static void positions(void)
{
	uint64_t seed = 0x5eed, rng = seed, skipped, a = 0, b = 0;
	unsigned int i;

	for (i = 0; i < 1000 * STRESS_RAND_PER_OP; i++)
		stress_rand(&rng);
	skipped = stress_rand_skip(seed, 1000 * STRESS_RAND_PER_OP);
	for (i = 0; i < 8; i++) {
		a ^= stress_rand(&rng) * (i + 1);
		b ^= stress_rand(&skipped) * (i + 1);
	}
	tap_result(a == b, "positions: skipping 1000 ops' draws gives op 1001's numbers");
	skipped = stress_rand_skip(seed, 999 * STRESS_RAND_PER_OP);
	b = 0;
	for (i = 0; i < 8; i++)
		b ^= stress_rand(&skipped) * (i + 1);
	tap_result(a != b, "positions: skipping one op fewer does not");
	tap_result(stress_rand_skip(seed, 0) == seed,
		   "positions: --start-op=0 is the storm from its start");
}

static void hangs(void)
{
	const struct sv_progress base = {
		.have_stats = true, .exits = 1000000, .pf_taken = 500000,
		.pf_fixed = 400000, .pf_emulate = 100, .pf_spurious = 5000,
		.have_times = true, .stime = 30000, .guest_time = 20000,
	};
	struct sv_progress b;

	b = base;
	b.exits += 20000;
	b.pf_taken += 20000;
	tap_result(sv_hang_kind(&base, &b) == SV_HANG_FAULT_RETRY,
		   "hang: faults taken, none fixed: a retry livelock");
	b = base;
	b.exits += 100;
	b.pf_taken += 100;
	b.pf_fixed += 1;
	tap_result(sv_hang_kind(&base, &b) == SV_HANG_FAULT_CRAWL,
		   "hang: 99 of 100 faults retried, one fixed: a crawl, not none fixed");
	b.pf_fixed += 39;
	tap_result(sv_hang_kind(&base, &b) == SV_HANG_FAULT_CRAWL,
		   "hang: 60 of 100 faults retried: a crawl");
	b.pf_fixed += 20;
	tap_result(sv_hang_kind(&base, &b) == SV_HANG_FAULT_REFIX,
		   "hang: 60 of 100 fixed: faults fixed and taken again");
	b = base;
	b.pf_taken += 500;
	b.pf_spurious += 500;
	tap_result(sv_hang_kind(&base, &b) == SV_HANG_FAULT_REFIX,
		   "hang: spurious faults again and again: taken again");
	b = base;
	b.exits += 50;
	tap_result(sv_hang_kind(&base, &b) == SV_HANG_EXITS,
		   "hang: exits without faults");
	b.stime += 100;
	b.guest_time += 20;
	tap_result(sv_hang_kind(&base, &b) == SV_HANG_EXITS,
		   "hang: exits without faults, the thread mostly in the kernel");
	b = base;
	b.exits += 245;
	b.guest_time += 170;
	b.stime += 5;
	tap_result(sv_hang_kind(&base, &b) == SV_HANG_IN_GUEST,
		   "hang: a guest loop interrupted by exits: in the guest");
	b = base;
	b.guest_time += 10;
	b.stime += 3;
	tap_result(sv_hang_kind(&base, &b) == SV_HANG_IN_GUEST,
		   "hang: no exits, guest time moves: in the guest");
	b = base;
	b.stime += 10;
	tap_result(sv_hang_kind(&base, &b) == SV_HANG_IN_KERNEL,
		   "hang: no exits, kernel time moves: in the kernel");
	tap_result(sv_hang_kind(&base, &base) == SV_HANG_STILL,
		   "hang: large counters that do not move: nothing moves");
	b = base;
	b.have_stats = false;
	b.have_times = false;
	tap_result(sv_hang_kind(&base, &b) == SV_HANG_UNKNOWN,
		   "hang: without statistics nothing is claimed");
	b = base;
	b.have_stats = false;
	b.pf_taken += 1000;
	b.guest_time += 5;
	tap_result(sv_hang_kind(&base, &b) == SV_HANG_IN_GUEST,
		   "hang: KVM's stats unreadable: only the thread's times count");
	b = base;
	b.have_times = false;
	tap_result(sv_hang_kind(&base, &b) == SV_HANG_UNKNOWN,
		   "hang: no KVM work and no thread times: unknown, not still");
	b = base;
	b.pf_taken += 527;
	b.pf_fixed += 142;
	b.exits += 535;
	tap_result(sv_hang_kind(&base, &b) == SV_HANG_FAULT_CRAWL,
		   "hang: the debug kernel's storm (527 taken, 142 fixed): a crawl");
	b = base;
	b.exits += 5451;
	b.pf_taken += 5353;
	b.pf_fixed += 245;
	b.stime += 987;
	b.guest_time += 365;
	tap_result(sv_hang_kind(&base, &b) == SV_HANG_FAULT_CRAWL,
		   "hang: a crawl with its CPU times (kernel 9.9 s, guest 3.7 s): a crawl");
	b = base;
	b.exits += 1234;
	b.pf_taken += 133;
	b.pf_fixed += 128;
	b.stime += 13;
	b.guest_time += 417;
	tap_result(sv_hang_kind(&base, &b) == SV_HANG_IN_GUEST,
		   "hang: a guest that loops after a few faults: in the guest");
	tap_result(strstr(sv_hang_str(SV_HANG_FAULT_RETRY), "livelock") &&
		   strstr(sv_hang_str(SV_HANG_STILL), "emulator"),
		   "hang: the verdicts name a livelock and an emulator stall");
}

/* the watch over one vCPU, fed a KVM_RUN's life: s is seconds */
static void watch(void)
{
	const uint64_t s = 1000000, hang = 30 * s, crawl = 120 * s;
	struct sv_watch w = { 0 };
	enum sv_watch_verdict v = SV_WATCH_OK;
	uint64_t t, fixed = 100;
	bool crawled = false;

	/* a vCPU that comes back now and then is never flagged */
	for (t = 0; t < 600 * s && v == SV_WATCH_OK; t += s / 10)
		v = sv_watch(&w, (t / s) % 20 != 19, (t / s) / 20 * 20 * s + 1,
			     true, fixed, t + 1, hang, crawl);
	tap_result(v == SV_WATCH_OK, "watch: exits every 19 s: fine for 600 s");

	/* nothing fixed and no exit: a hang at 30 s, not before */
	w = (struct sv_watch){ 0 };
	for (t = 0, v = SV_WATCH_OK; v == SV_WATCH_OK && t < 100 * s; t += s / 10)
		v = sv_watch(&w, true, 5 * s, true, fixed, 5 * s + t, hang, crawl);
	tap_result(v == SV_WATCH_HANG && t >= 30 * s && t <= 30 * s + s / 5,
		   "watch: no exit, nothing fixed: a hang after 30 s (%.1f s)",
		   t / 1e6);

	/* faults fixed all along: a crawl noted once at 30 s, fails at 120 s */
	w = (struct sv_watch){ 0 };
	for (t = 0, v = SV_WATCH_OK; (v == SV_WATCH_OK || v == SV_WATCH_CRAWL) &&
	     t < 200 * s; t += s / 10) {
		v = sv_watch(&w, true, 5 * s, true, fixed + t / s, 5 * s + t,
			     hang, crawl);
		if (v == SV_WATCH_CRAWL) {
			tap_result(!crawled && t >= 30 * s && t < 31 * s,
				   "watch: fixing faults past 30 s: a crawl, noted once (at %.1f s)",
				   t / 1e6);
			crawled = true;
		}
	}
	tap_result(crawled && v == SV_WATCH_CRAWL_LIMIT && t >= 120 * s &&
		   t <= 120 * s + s / 5,
		   "watch: a crawl of 120 s fails (%.1f s)", t / 1e6);

	/* fixed for a while, then stuck: a hang 30 s after the last fix */
	w = (struct sv_watch){ 0 };
	for (t = 0, v = SV_WATCH_OK; v == SV_WATCH_OK || v == SV_WATCH_CRAWL;
	     t += s / 10)
		v = sv_watch(&w, true, 5 * s, true,
			     fixed + (t < 50 * s ? t / s : 50), 5 * s + t, hang,
			     crawl);
	tap_result(v == SV_WATCH_HANG && t >= 80 * s && t <= 80 * s + s / 5,
		   "watch: fixes stop at 50 s: a hang at 80 s (%.1f s)", t / 1e6);

	/* without statistics: no exit for 30 s is a hang */
	w = (struct sv_watch){ 0 };
	for (t = 0, v = SV_WATCH_OK; v == SV_WATCH_OK && t < 100 * s; t += s / 10)
		v = sv_watch(&w, true, 5 * s, false, fixed + t, 5 * s + t,
			     hang, crawl);
	tap_result(v == SV_WATCH_HANG && t <= 30 * s + s / 5,
		   "watch: no statistics: no exit for 30 s is a hang (%.1f s)",
		   t / 1e6);

	/* a new KVM_RUN starts the clocks again */
	w = (struct sv_watch){ 0 };
	sv_watch(&w, true, 1 * s, true, fixed, 29 * s, hang, crawl);
	v = sv_watch(&w, true, 29 * s + 1, true, fixed, 45 * s, hang, crawl);
	tap_result(v == SV_WATCH_OK, "watch: a new KVM_RUN at 29 s is not 44 s old");
	v = sv_watch(&w, false, 0, true, fixed, 70 * s, hang, crawl);
	tap_result(v == SV_WATCH_OK, "watch: out of KVM_RUN is never a hang");
}

int main(void)
{
	private_io();
	forbid();
	shared_reads();
	exits();
	data();
	positions();
	hangs();
	watch();
	return tap_finish(false);
}
