/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Guest side of the convbench KVM library: code that runs inside the
 * guest (long mode, CPL0, identity map, no libc, no interrupts).
 *
 * Guest/host sync is a port-IO "ucall": the guest builds a struct ucall
 * on its stack and writes its 32-bit address with OUTL to UCALL_PORT;
 * KVM exits with KVM_EXIT_IO and the host reads the struct from guest
 * memory. Stacks live in slot 0 below 1 GiB, so the address fits.
 *
 * Mark every guest function GUEST_CODE. It compiles the function to
 * general-purpose registers only: the guest may run where SSE is not
 * usable (the build host's software KVM fails SSE instructions with
 * KVM_INTERNAL_ERROR_EMULATION), and no x87/SSE state is set up beyond
 * CR0/CR4 defaults. Keep guest code libc-free: GCC turns plain
 * fill/compare loops into memset()/memcmp() calls, so use the helpers
 * below (rep stos, volatile loads) for bulk memory work.
 */
#ifndef CONVBENCH_GUEST_LIB_H
#define CONVBENCH_GUEST_LIB_H

#include <stdbool.h>
#include <stdint.h>

#include "privmem_uapi.h"

#define GUEST_CODE	__attribute__((target("general-regs-only")))

#define UCALL_PORT	0x1000
#define UCALL_MAX_ARGS	6

enum ucall_cmd {
	UCALL_NONE,
	UCALL_SYNC,		/* args: as given */
	UCALL_DONE,
	UCALL_ABORT,		/* args: file, line, expr, a, b, has_values */
	UCALL_EXCEPTION,	/* args: vector, error code, rip, cr2 */
};

struct ucall {
	uint64_t cmd;
	uint64_t args[UCALL_MAX_ARGS];
};

/* Set by the host in the guest's copy: VMMCALL (AMD/Hygon) or VMCALL */
extern bool guest_use_vmmcall;

static inline GUEST_CODE void
guest_ucall(uint64_t cmd, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
	    uint64_t a4, uint64_t a5)
{
	struct ucall uc = {
		.cmd = cmd,
		.args = { a0, a1, a2, a3, a4, a5 },
	};

	asm volatile("outl %%eax, %%dx"
		     : : "a"((uint32_t)(uintptr_t)&uc), "d"((uint16_t)UCALL_PORT),
		       "m"(uc)
		     : "memory");
}

static inline GUEST_CODE void __attribute__((noreturn))
guest_halt(void)
{
	for (;;)
		asm volatile("hlt" ::: "memory");
}

#define GUEST_SYNC(arg)	guest_ucall(UCALL_SYNC, (uint64_t)(arg), 0, 0, 0, 0, 0)
#define GUEST_SYNC_ARGS(a0, a1, a2, a3)					\
	guest_ucall(UCALL_SYNC, (uint64_t)(a0), (uint64_t)(a1),		\
		    (uint64_t)(a2), (uint64_t)(a3), 0, 0)
#define GUEST_DONE()	guest_ucall(UCALL_DONE, 0, 0, 0, 0, 0, 0)

#define __GUEST_ABORT(expr, a, b, has)					\
do {									\
	guest_ucall(UCALL_ABORT, (uint64_t)(uintptr_t)__FILE__,		\
		    __LINE__, (uint64_t)(uintptr_t)(expr),		\
		    (uint64_t)(a), (uint64_t)(b), has);			\
	guest_halt();							\
} while (0)

#define GUEST_ASSERT(cond)						\
do {									\
	if (!(cond))							\
		__GUEST_ABORT(#cond, 0, 0, 0);				\
} while (0)

#define GUEST_ASSERT_EQ(a, b)						\
do {									\
	uint64_t __a = (uint64_t)(a), __b = (uint64_t)(b);		\
	if (__a != __b)							\
		__GUEST_ABORT(#a " == " #b, __a, __b, 1);		\
} while (0)

#define GUEST_FAIL(msg)	__GUEST_ABORT(msg, 0, 0, 0)

/* KVM hypercall ABI: nr in rax, args in rbx, rcx, rdx, rsi; ret in rax */
static inline GUEST_CODE uint64_t
guest_kvm_hypercall(uint64_t nr, uint64_t a0, uint64_t a1, uint64_t a2,
		    uint64_t a3)
{
	uint64_t ret;

	if (guest_use_vmmcall)
		asm volatile("vmmcall"
			     : "=a"(ret)
			     : "a"(nr), "b"(a0), "c"(a1), "d"(a2), "S"(a3)
			     : "memory");
	else
		asm volatile("vmcall"
			     : "=a"(ret)
			     : "a"(nr), "b"(a0), "c"(a1), "d"(a2), "S"(a3)
			     : "memory");
	return ret;
}

/* attrs: KVM_MAP_GPA_RANGE_ENCRYPTED (to private) or _DECRYPTED (shared) */
static inline GUEST_CODE uint64_t
guest_map_gpa_range(uint64_t gpa, uint64_t npages, uint64_t attrs)
{
	return guest_kvm_hypercall(KVM_HC_MAP_GPA_RANGE, gpa, npages, attrs, 0);
}

static inline GUEST_CODE uint64_t
guest_rdtsc(void)
{
	uint32_t lo, hi;

	asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/* Fill bytes (multiple of 8) at p with val, without a memset() call */
static inline GUEST_CODE void
guest_fill64(void *p, uint64_t val, uint64_t bytes)
{
	uint64_t n = bytes / 8;

	asm volatile("rep stosq" : "+D"(p), "+c"(n) : "a"(val) : "memory");
}

/* Copy bytes (multiple of 8) without a memcpy() call (no libc here) */
static inline GUEST_CODE void
guest_copy64(void *dst, const void *src, uint64_t bytes)
{
	uint64_t n = bytes / 8;

	asm volatile("rep movsq" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
}

/* Number of 8-byte words in [p, p + bytes) that differ from val */
static inline GUEST_CODE uint64_t
guest_count_mismatch64(const void *p, uint64_t val, uint64_t bytes)
{
	const volatile uint64_t *w = p;
	uint64_t i, bad = 0;

	for (i = 0; i < bytes / 8; i++)
		bad += w[i] != val;
	return bad;
}

static inline GUEST_CODE uint64_t
guest_read64(uint64_t gva)
{
	return *(volatile uint64_t *)(uintptr_t)gva;
}

/*
 * Read a word with a write access (lock xadd of 0 returns it unchanged):
 * a first touch then faults the page in writable, once, where a plain
 * read would map an anonymous page read-only (the zero page) and leave a
 * second fault to the first write.
 */
static inline GUEST_CODE uint64_t
guest_touch64(uint64_t gva)
{
	uint64_t v = 0;

	asm volatile("lock xaddq %0, (%1)" : "+r"(v) : "r"(gva) : "memory");
	return v;
}

static inline GUEST_CODE void
guest_write64(uint64_t gva, uint64_t val)
{
	*(volatile uint64_t *)(uintptr_t)gva = val;
}

#endif /* CONVBENCH_GUEST_LIB_H */
