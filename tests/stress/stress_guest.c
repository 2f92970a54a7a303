// SPDX-License-Identifier: GPL-2.0
/*
 * convstress, guest side (long mode, identity map, no libc): random
 * conversions of this vCPU's ranges, every word verified. A page holds
 * one word repeated; want[] says which, state[] whether it is shared.
 * After a conversion a page holds what it held before unless its state
 * changed under ZERO (then 0): PRESERVE keeps everything (destructive:
 * the guest copies the range aside and back), ZERO clears exactly the
 * pages that change state, in both modes.
 */
#include "stress.h"

static inline GUEST_CODE uint64_t g_rand(uint64_t *s)
{
	return stress_rand(s);
}

static inline GUEST_CODE void g_copy(void *dst, const void *src, uint64_t n)
{
	n /= 8;
	asm volatile("rep movsq" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
}

/* every word of pages [first, first + n) of a slot's range */
static GUEST_CODE void g_verify(struct stress_guest *g, uint32_t s,
				uint64_t first, uint64_t n, uint64_t op)
{
	uint64_t p, i, got;

	for (p = first; p < first + n; p++) {
		const volatile uint64_t *w =
			(void *)(g->base[s] + p * STRESS_PAGE);
		uint64_t want = g->want[s][p];

		i = stress_first_bad(w, STRESS_PAGE / 8, want, &got);
		if (i < STRESS_PAGE / 8) {
			guest_ucall(UCALL_SYNC, STRESS_SYNC_BAD, op,
				    (uint64_t)(uintptr_t)&w[i], got, want, 0);
			guest_halt();
		}
	}
	g->verified += n;
}

static inline GUEST_CODE uint64_t g_token(uint64_t seed, uint32_t s,
					  uint64_t page, uint64_t op)
{
	uint64_t t = seed ^ ((uint64_t)s << 62) ^ (page << 32) ^ op;

	t *= 0x9e3779b97f4a7c15ULL;
	return t ? t : 1;
}

/*
 * convstress --inject: a hang or a triple fault of the guest's own, or
 * the one thing the storm's guest otherwise never does: a cr3 other
 * than the VMM's (the same tables with PWT set), then a hang
 */
static GUEST_CODE void g_inject(struct stress_guest *g)
{
	struct __attribute__((packed)) { uint16_t limit; uint64_t base; }
		idtr = { 0, 0 };
	uint64_t cr3;

	g->phase = STRESS_PHASE_INJECT;
	if (g->inject == STRESS_INJECT_CR3) {
		asm volatile("mov %%cr3, %0" : "=r"(cr3));
		asm volatile("mov %0, %%cr3" : : "r"(cr3 | 0x8) : "memory");
	}
	if (g->inject == STRESS_INJECT_SPIN || g->inject == STRESS_INJECT_CR3)
		while (g->inject)
			asm volatile("" ::: "memory");
	if (g->inject == STRESS_INJECT_TRIPLE) {
		/* no IDT to deliver #UD through: a triple fault */
		asm volatile("lidt %0; ud2" : : "m"(idtr) : "memory");
	}
}

GUEST_CODE void stress_guest_main(struct stress_guest *g)
{
	/* a run continuing at --start-op draws on where that op left off */
	uint64_t rng = stress_rand_skip(g->seed,
					g->start_op * STRESS_RAND_PER_OP);
	uint64_t op, p;
	uint32_t s;

	/* every page starts private and allocated: give each its word */
	g->phase = STRESS_PHASE_INIT;
	for (s = 0; s < STRESS_SLOTS; s++)
		for (p = 0; p < g->npages; p++) {
			g->want[s][p] = g_token(g->seed, s, p, 0);
			g->state[s][p] = 0;
			guest_fill64((void *)(g->base[s] + p * STRESS_PAGE),
				     g->want[s][p], STRESS_PAGE);
		}

	for (op = g->start_op + 1; !g->stop; op++) {
		/* STRESS_RAND_PER_OP draws: r and first */
		uint64_t r = g_rand(&rng);
		uint32_t order = (r >> 8) % (STRESS_MAX_ORDER + 1);
		uint64_t n = 1ULL << order;
		uint64_t first = (g_rand(&rng) % (g->npages >> order)) << order;
		uint32_t to_shared = (r >> 16) & 1, preserve = (r >> 17) & 1;
		uint64_t gpa, ret;
		bool copy;

		s = r & 1;
		gpa = g->base[s] + first * STRESS_PAGE;
		copy = preserve && s == STRESS_SLOT_D;
		g->cur_slot = s;
		g->cur_gpa = gpa;
		g->cur_pages = n;
		/* new content, whatever state each page is in */
		g->phase = STRESS_PHASE_FILL;
		for (p = first; p < first + n; p++) {
			g->want[s][p] = g_token(g->seed, s, p, op);
			guest_fill64((void *)(g->base[s] + p * STRESS_PAGE),
				     g->want[s][p], STRESS_PAGE);
		}
		if (copy) {
			g->phase = STRESS_PHASE_COPY_OUT;
			g_copy((void *)g->scratch, (void *)gpa, n * STRESS_PAGE);
		}
		g->phase = STRESS_PHASE_CONVERT;
		g->req_slot = s;
		g->req_preserve = preserve;
		ret = guest_map_gpa_range(gpa, n, to_shared ?
					  KVM_MAP_GPA_RANGE_DECRYPTED :
					  KVM_MAP_GPA_RANGE_ENCRYPTED);
		if (ret) {
			guest_ucall(UCALL_SYNC, STRESS_SYNC_HCFAIL, op, ret, 0,
				    0, 0);
			guest_halt();
		}
		if (copy) {
			g->phase = STRESS_PHASE_COPY_BACK;
			g_copy((void *)gpa, (void *)g->scratch, n * STRESS_PAGE);
		}
		for (p = first; p < first + n; p++) {
			g->want[s][p] = stress_want_after(g->want[s][p],
							  g->state[s][p],
							  to_shared, preserve);
			g->state[s][p] = to_shared;
		}
		g->phase = STRESS_PHASE_VERIFY;
		if (op == g->inject_op)
			g_inject(g);
		g_verify(g, s, first, n, op);
		if (!(op % STRESS_FULL_EVERY)) {
			g->phase = STRESS_PHASE_VERIFY_ALL;
			g_verify(g, 0, 0, g->npages, op);
			g_verify(g, 1, 0, g->npages, op);
		}
		g->pages += n;
		g->ops = op;
	}
	g->phase = STRESS_PHASE_DONE;
	GUEST_DONE();
}
