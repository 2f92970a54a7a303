/* SPDX-License-Identifier: GPL-2.0 */
/*
 * convstress: random conversions of private memory under host attack.
 * The guest/host contract of the vCPUs (plain types: both sides include
 * it) and what the host threads share.
 *
 * Each vCPU owns a range of each private slot: slot D converts
 * destructively (PUNCH_HOLE / fallocate, the shared part is anonymous
 * memory), slot I in place (MEMFD_IOC_CONVERT_RANGE, the shared part is
 * the VMM's mapping of the private fd). The guest picks each conversion
 * (slot, offset, 4K..2M, direction, PRESERVE or ZERO) from its own PRNG,
 * fills the range, asks for it with KVM_HC_MAP_GPA_RANGE and verifies
 * every word afterwards, and every so often its whole ranges. Behind the
 * vCPUs' ranges each fd has a host region that host threads alone use.
 */
#ifndef CONVBENCH_STRESS_H
#define CONVBENCH_STRESS_H

#include <stdint.h>

#include "kvm_util.h"

/* the guest draws from lib/rng.h's splitmix64 too: compile it as guest code */
#define RNG_CODE	GUEST_CODE
#include "rng.h"

#define STRESS_PAGE		4096ULL
#define STRESS_SLOTS		2
#define STRESS_SLOT_D		0	/* destructive */
#define STRESS_SLOT_I		1	/* in place */
#define STRESS_MAX_ORDER	9	/* conversions of 4K .. 2M */
#define STRESS_FULL_EVERY	32	/* verify whole ranges every N ops */

/* first argument of a UCALL_SYNC from the stress guest */
enum {
	STRESS_SYNC_BAD = 0x53545200,	/* op, gpa, got, want */
	STRESS_SYNC_HCFAIL,		/* op, hypercall return value */
};

/* what the guest is doing, for the host's hang and SHUTDOWN reports */
enum stress_phase {
	STRESS_PHASE_INIT,	/* filling every page of its ranges */
	STRESS_PHASE_FILL,	/* new words into the op's range */
	STRESS_PHASE_COPY_OUT,	/* destructive PRESERVE: range -> scratch */
	STRESS_PHASE_CONVERT,	/* the hypercall */
	STRESS_PHASE_COPY_BACK,	/* destructive PRESERVE: scratch -> range */
	STRESS_PHASE_VERIFY,	/* every word of the op's range */
	STRESS_PHASE_VERIFY_ALL, /* every word of both whole ranges */
	STRESS_PHASE_DONE,
	STRESS_PHASE_INJECT,	/* convstress --inject's fault or loop */
	STRESS_PHASE_NR,
};

/* what the phase says the guest is doing, in words (host side) */
const char *stress_phase_str(uint32_t phase);

struct stress_guest {
	uint64_t base[STRESS_SLOTS];	/* this vCPU's range in each slot */
	uint64_t npages;		/* pages per range */
	uint64_t scratch;		/* 2M: destructive PRESERVE copies */
	uint8_t *state[STRESS_SLOTS];	/* per page: 1 shared, 0 private */
	uint64_t *want[STRESS_SLOTS];	/* per page: what its words hold */
	uint64_t seed;
	/*
	 * ops already done before this run (convstress --start-op): the
	 * guest's PRNG and op numbers continue from there
	 */
	uint64_t start_op;
	/* the request in flight, read by the host at the hypercall exit */
	volatile uint32_t req_slot;
	volatile uint32_t req_preserve;
	/* host -> guest: finish the current conversion and stop */
	volatile uint32_t stop;
	/* guest -> host */
	volatile uint64_t ops;		/* the last op done */
	volatile uint64_t pages;	/* pages converted */
	volatile uint64_t verified;	/* pages verified */
	/* the op in flight: its phase and range */
	volatile uint32_t phase;
	volatile uint32_t cur_slot;
	volatile uint64_t cur_gpa;
	volatile uint64_t cur_pages;
	/* convstress --inject: what goes wrong at op inject_op */
	uint32_t inject;
	uint64_t inject_op;
};

/* convstress --inject=KIND@OP: the reports' own test, on vCPU 0 */
enum {
	STRESS_INJECT_NONE,
	STRESS_INJECT_SPIN,	/* loop in the guest without an exit */
	STRESS_INJECT_TRIPLE,	/* an empty IDTR, then a fault: SHUTDOWN */
	STRESS_INJECT_CR3,	/* a cr3 of its own (PWT set), then loop */
};

/* the guest draws this many numbers per op (see stress_guest.c) */
#define STRESS_RAND_PER_OP	2

void stress_guest_main(struct stress_guest *g);

/* splitmix64 (lib/rng.h): every thread's PRNG, seeded from --seed and its id */
static inline GUEST_CODE uint64_t stress_rand(uint64_t *s)
{
	return rng_splitmix64(s);
}

/* the PRNG state n draws later: splitmix64 steps by a constant */
static inline GUEST_CODE uint64_t stress_rand_skip(uint64_t s, uint64_t n)
{
	return s + n * RNG_SPLITMIX64_GAMMA;
}

/*
 * The word a page holds after a conversion from was_shared to
 * to_shared: PRESERVE keeps it, ZERO clears exactly the pages that
 * change state (in both modes).
 */
static inline GUEST_CODE uint64_t stress_want_after(uint64_t want,
						    bool was_shared,
						    bool to_shared,
						    bool preserve)
{
	return !preserve && was_shared != to_shared ? 0 : want;
}

/*
 * index of the first of the n words at w that is not want (what it
 * held in *got, read once); n if none
 */
static inline GUEST_CODE uint64_t stress_first_bad(const volatile uint64_t *w,
						   uint64_t n, uint64_t want,
						   uint64_t *got)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		*got = w[i];
		if (*got != want)
			break;
	}
	return i;
}

#endif /* CONVBENCH_STRESS_H */
