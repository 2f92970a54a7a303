/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small KVM userspace library for convbench: VM, memslots (with the
 * private part of bench/kvm/privmem_uapi.h), 64-bit vCPUs running a C
 * function of this very binary, ucalls, bounded KVM_RUN.
 *
 * Two layers, as in tools/testing/selftests/kvm:
 *   __foo()  returns 0 or -errno (never exits): for the benchmark driver,
 *            which must keep partial results when something fails;
 *   foo()    asserts (TEST_ASSERT, exit 1): for tests.
 * __vm_ioctl()/__vcpu_ioctl() are the raw ioctl (-1 and errno).
 *
 * Guest memory model: slot 0 covers GPA [0, mem_size) with ordinary
 * memory. The PT_LOAD segments of this (static, non-PIE) executable are
 * copied into it at their link addresses, so a guest running on the
 * identity map executes the same code and sees a snapshot of the same
 * globals (sync_global_to_guest()/sync_global_from_guest() move them).
 * Page tables, GDT, IDT, TSS and stacks are allocated in slot 0 above
 * the image. The low map_gib GiB are identity-mapped with 2M pages, so
 * any other slot below that limit is reachable by the guest at gva==gpa.
 *
 * Guest-side helpers (GUEST_SYNC, GUEST_ASSERT, hypercalls) are in
 * guest_lib.h, included from here; guest functions must be GUEST_CODE.
 *
 * Build: link kvm_util.o (VM, memslots), kvm_vcpu.o (vCPUs, KVM_RUN,
 * ucalls), kvm_x86.o (long mode) and guest_entry.o into a binary made
 * with -static -no-pie (vm_create fails with -ENOEXEC otherwise).
 * Not thread-safe for setup; each vCPU may be run from its own thread.
 */
#ifndef CONVBENCH_KVM_UTIL_H
#define CONVBENCH_KVM_UTIL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/kvm.h>

#include "privmem_uapi.h"
#include "guest_lib.h"

#define KSFT_PASS	0
#define KSFT_FAIL	1
#define KSFT_SKIP	4

#define GUEST_PAGE_SIZE		4096ULL
#define GUEST_PAGE_SHIFT	12
#define SZ_2M			(2ULL << 20)
#define SZ_1G			(1ULL << 30)

#define VM_DEFAULT_MEM_SIZE	(32ULL << 20)	/* slot 0 */
#define VM_MAX_MEM_SIZE		SZ_1G		/* slot 0 stays below 1 GiB */
#define VM_DEFAULT_MAP_GIB	4
#define VCPU_STACK_SIZE		(64ULL << 10)
#define VCPU_DEFAULT_TIMEOUT_MS	10000
#define VM_MAX_REGIONS		32
#define VM_MAX_VCPUS		64

/* ------------------------------------------------------------------ */
/* assertions (tests); library __functions never call these            */

void __attribute__((noreturn, format(printf, 5, 6)))
test_assert_fail(const char *file, int line, const char *expr, int err,
		 const char *fmt, ...);
void __attribute__((noreturn, format(printf, 1, 2)))
test_skip(const char *fmt, ...);

#define TEST_ASSERT(cond, fmt, ...)					\
do {									\
	if (!(cond)) {							\
		int __err = errno;					\
		test_assert_fail(__FILE__, __LINE__, #cond, __err,	\
				 fmt, ##__VA_ARGS__);			\
	}								\
} while (0)

#define TEST_FAIL(fmt, ...) \
	test_assert_fail(__FILE__, __LINE__, "failure", errno, fmt, ##__VA_ARGS__)

/* the kernel lacks something the test needs: say so and exit 4 */
#define TEST_REQUIRE(cond)						\
do {									\
	if (!(cond))							\
		test_skip("requirement not met: %s (%s:%d)", #cond,	\
			  __FILE__, __LINE__);				\
} while (0)

/* ------------------------------------------------------------------ */
/* objects                                                             */

enum vm_backing {
	VM_BACKING_ANON,	/* mmap(MAP_PRIVATE | MAP_ANONYMOUS) */
	VM_BACKING_MEMFD,	/* memfd_create() + mmap(MAP_SHARED) */
};

struct vm_mem_region {
	uint32_t slot;
	uint32_t flags;		/* KVM_MEM_* as given to KVM */
	uint64_t gpa;
	uint64_t size;
	void *hva;		/* shared part, 2M aligned */
	enum vm_backing backing;
	int memfd;		/* VM_BACKING_MEMFD: fd of the shared part, else -1 */
	int private_fd;		/* KVM_MEM_PRIVATE: caller's fd (not owned), else -1 */
	uint64_t private_offset;
	void *mmap_base;	/* what to munmap */
	size_t mmap_size;
	bool in_use;
};

struct vm_opts {
	uint64_t mem_size;	/* slot 0 size, 0: VM_DEFAULT_MEM_SIZE */
	unsigned int map_gib;	/* identity-mapped GiB, 0: VM_DEFAULT_MAP_GIB */
	enum vm_backing backing; /* of slot 0 */
	unsigned long type;	/* KVM_CREATE_VM's type, e.g. kvm_gmem.h's */
};

struct kvm_vm {
	int kvm_fd;		/* /dev/kvm */
	int fd;			/* VM fd */
	int run_size;		/* KVM_GET_VCPU_MMAP_SIZE */
	uint64_t mem_size;
	unsigned int map_gib;
	uint64_t alloc_next;	/* bump allocator in slot 0 */
	uint64_t pml4_gpa, gdt_gpa, idt_gpa, tss_gpa;
	struct kvm_cpuid2 *cpuid;	/* KVM_GET_SUPPORTED_CPUID, for vCPUs */
	uint64_t xcr0;		/* 0 when the guest has no XSAVE */
	bool amd;		/* hypercall instruction: VMMCALL, else VMCALL */
	struct vm_mem_region regions[VM_MAX_REGIONS];
	struct kvm_vcpu *vcpus[VM_MAX_VCPUS];	/* freed with the VM */
};

struct kvm_vcpu {
	struct kvm_vm *vm;
	uint32_t id;
	int fd;
	struct kvm_run *run;
	uint64_t stack_gpa;	/* top of this vCPU's stack */
	unsigned int timeout_ms; /* per KVM_RUN, 0: unbounded */
	bool has_timer;
	int timer_tid;		/* thread the timer signals */
	void *timer;		/* timer_t */
};

/* ------------------------------------------------------------------ */
/* ioctls                                                              */

#define __kvm_ioctl(kvm_fd, cmd, arg)	ioctl(kvm_fd, cmd, arg)
#define __vm_ioctl(vm, cmd, arg)	ioctl((vm)->fd, cmd, arg)
#define __vcpu_ioctl(vcpu, cmd, arg)	ioctl((vcpu)->fd, cmd, arg)

#define __ioctl_checked(r, name)					\
({									\
	int __r = (r);							\
	if (__r < 0) {							\
		int __err = errno;					\
		test_assert_fail(__FILE__, __LINE__, name, __err,	\
				 "ioctl %s failed, rc: %d", name, __r);	\
	}								\
	__r;								\
})
#define vm_ioctl(vm, cmd, arg) \
	__ioctl_checked(__vm_ioctl(vm, cmd, arg), #cmd)
#define vcpu_ioctl(vcpu, cmd, arg) \
	__ioctl_checked(__vcpu_ioctl(vcpu, cmd, arg), #cmd)

/* /dev/kvm: fd or -errno. KVM_CHECK_EXTENSION on /dev/kvm: value or -errno */
int kvm_open_dev(void);
int kvm_check_cap(long cap);
int __vm_check_cap(struct kvm_vm *vm, long cap);

/* ------------------------------------------------------------------ */
/* VM                                                                  */

int __vm_create(struct kvm_vm **out, const struct vm_opts *opts);
struct kvm_vm *vm_create(const struct vm_opts *opts);	/* NULL: defaults */
void kvm_vm_free(struct kvm_vm *vm);

int __vm_enable_cap(struct kvm_vm *vm, uint32_t cap, uint64_t arg0);
void vm_enable_cap(struct kvm_vm *vm, uint32_t cap, uint64_t arg0);
/* KVM_CAP_EXIT_HYPERCALL with 1 << KVM_HC_MAP_GPA_RANGE */
int __vm_enable_exit_map_gpa_range(struct kvm_vm *vm);

/* Guest memory in slot 0, for stacks and test data: gpa, 0 when full */
uint64_t __vm_alloc(struct kvm_vm *vm, uint64_t size, uint64_t align);
uint64_t vm_alloc(struct kvm_vm *vm, uint64_t size, uint64_t align);

/* ------------------------------------------------------------------ */
/* memslots                                                            */

/* Raw KVM_SET_USER_MEMORY_REGION; the _ext struct when KVM_MEM_PRIVATE */
int __vm_set_user_memory_region(struct kvm_vm *vm, uint32_t slot,
				uint32_t flags, uint64_t gpa, uint64_t size,
				void *hva);
int __vm_set_private_memory_region(struct kvm_vm *vm, uint32_t slot,
				   uint32_t flags, uint64_t gpa,
				   uint64_t size, void *hva,
				   uint32_t private_fd,
				   uint64_t private_offset);

struct vm_mem_opts {
	uint32_t slot;
	uint32_t flags;		/* KVM_MEM_PRIVATE needs private_fd */
	uint64_t gpa;		/* 2M aligned */
	uint64_t size;		/* 2M multiple */
	enum vm_backing backing;
	int private_fd;		/* -1: none */
	uint64_t private_offset;
};

/* Allocate the shared part, register the slot, track it: 0 or -errno */
int __vm_mem_add(struct kvm_vm *vm, const struct vm_mem_opts *opts,
		 struct vm_mem_region **out);
struct vm_mem_region *vm_mem_add(struct kvm_vm *vm,
				 const struct vm_mem_opts *opts);
/* Delete the slot (memory_size 0) and free the shared part */
int __vm_mem_del(struct kvm_vm *vm, uint32_t slot);
struct vm_mem_region *vm_mem_region_find(struct kvm_vm *vm, uint64_t gpa);

/* Host address of the shared part backing gpa; NULL if none */
void *__addr_gpa2hva(struct kvm_vm *vm, uint64_t gpa);
void *addr_gpa2hva(struct kvm_vm *vm, uint64_t gpa);

/* Guest copies of globals (same addresses in guest and host) */
#define sync_global_to_guest(vm, g) \
	memcpy(addr_gpa2hva(vm, (uint64_t)(uintptr_t)&(g)), &(g), sizeof(g))
#define sync_global_from_guest(vm, g) \
	memcpy(&(g), addr_gpa2hva(vm, (uint64_t)(uintptr_t)&(g)), sizeof(g))

/* ------------------------------------------------------------------ */
/* private memory (bench/kvm/privmem_uapi.h)                               */

/* memfd_create(MFD_INACCESSIBLE) and ftruncate(size): fd or -errno */
int memfd_inaccessible_create(const char *name, uint64_t size);
/* fallocate(0) / fallocate(PUNCH_HOLE | KEEP_SIZE): 0 or -errno */
int __private_fallocate(int fd, uint64_t offset, uint64_t len);
int __private_punch_hole(int fd, uint64_t offset, uint64_t len);
/* KVM_SET_SW_PRIVATE_RANGE (VM ioctl): 0 or -errno */
int __vm_set_sw_private(struct kvm_vm *vm, uint64_t gpa, uint64_t size,
			bool private);

/* ------------------------------------------------------------------ */
/* vCPUs                                                               */

/* 64-bit vCPU entering guest_code(args...) on its own stack */
int __vm_vcpu_add(struct kvm_vm *vm, uint32_t id, void *guest_code,
		  struct kvm_vcpu **out);
struct kvm_vcpu *vm_vcpu_add(struct kvm_vm *vm, uint32_t id,
			     void *guest_code);
void kvm_vcpu_free(struct kvm_vcpu *vcpu);

/* Up to 6 arguments (rdi, rsi, rdx, rcx, r8, r9), each a uint64_t (1ULL) */
int __vcpu_args_set(struct kvm_vcpu *vcpu, unsigned int n,
		    const uint64_t *args);
void vcpu_args_set(struct kvm_vcpu *vcpu, unsigned int n, ...);
/* Restart at guest_code on a fresh stack (args are kept) */
int __vcpu_set_entry(struct kvm_vcpu *vcpu, void *guest_code);

/*
 * KVM_RUN bounded by vcpu->timeout_ms (a per-thread POSIX timer whose
 * signal sets run->immediate_exit, so no window where it is lost).
 * Returns 0, -ETIMEDOUT, or KVM_RUN's -errno (e.g. -EFAULT with
 * KVM_EXIT_MEMORY_ERROR). Timeout 0 runs unbounded without the two
 * timer syscalls per call.
 */
int __vcpu_run(struct kvm_vcpu *vcpu);
void vcpu_run(struct kvm_vcpu *vcpu);	/* asserts 0 */
void vcpu_set_timeout(struct kvm_vcpu *vcpu, unsigned int ms);

int __vcpu_get_regs(struct kvm_vcpu *vcpu, struct kvm_regs *regs);
const char *exit_reason_str(uint32_t reason);

/* ------------------------------------------------------------------ */
/* ucalls (host side)                                                  */

/*
 * If the last exit is a ucall, copy it to *uc (if non-NULL) and return
 * its cmd; else UCALL_NONE. Ucalls complete on the next KVM_RUN.
 */
uint64_t get_ucall(struct kvm_vcpu *vcpu, struct ucall *uc);
/* Text for UCALL_ABORT / UCALL_EXCEPTION: "file:line: expr ..." */
int ucall_describe(struct kvm_vm *vm, const struct ucall *uc, char *buf,
		   size_t len);

#define REPORT_GUEST_ASSERT(vcpu, uc)					\
do {									\
	char __buf[512];						\
	ucall_describe((vcpu)->vm, &(uc), __buf, sizeof(__buf));	\
	TEST_FAIL("guest: %s", __buf);					\
} while (0)

/*
 * KVM_EXIT_HYPERCALL for KVM_HC_MAP_GPA_RANGE (after
 * __vm_enable_exit_map_gpa_range): its arguments, true. The host then
 * sets vcpu->run->hypercall.ret (0: done) before the next KVM_RUN.
 */
bool get_map_gpa_range(struct kvm_vcpu *vcpu, uint64_t *gpa,
		       uint64_t *npages, uint64_t *attrs);

/* Run, expect a ucall of cmd; asserts otherwise (abort text included) */
void vcpu_run_expect_ucall(struct kvm_vcpu *vcpu, uint64_t cmd,
			   struct ucall *uc);

/* ------------------------------------------------------------------ */
/* internal: long-mode setup (kvm_x86.c)                               */

int __x86_vm_setup(struct kvm_vm *vm);
/* guest_entry.S */
extern const uint64_t guest_exception_stubs[32];
extern char guest_code_returned[];
int __x86_vcpu_setup(struct kvm_vcpu *vcpu, void *guest_code);
int __x86_load_image(struct kvm_vm *vm);
uint64_t x86_image_end(void);
/* after a triple fault: 0 if the guest's tables are as built, why */
int x86_check_tables(struct kvm_vm *vm, char *why, size_t len);

#endif /* CONVBENCH_KVM_UTIL_H */
