// SPDX-License-Identifier: GPL-2.0
/*
 * guest_memfd on a software-protected VM, as the 6.12 kernel
 * (FLAVOUR=gmem) runs it for convbench --mode=gmem, and the access-kind
 * flip of kernel/patches-6.12 0001 that its implicit trigger needs. The
 * guest runs nested (L2) under kvm_amd inside the project's kernel.
 *
 * Slot 1 at PRIV_GPA is a KVM_MEM_GUEST_MEMFD slot: its shared part is
 * anonymous memory the host fills with a per-page pattern, its private
 * part a guest_memfd of the slot's size. Each check uses its own page
 * and its own vCPU, so one failure does not cascade.
 *
 *   (a) the flip attribute: a software-protected VM accepts it, a
 *       default VM refuses it (EINVAL) and does not advertise it
 *   (b) a private page: the guest writes and reads back its pattern, the
 *       shared page stays as it was
 *   (c) a shared page: the guest reads the host's pattern
 *   (d) flip of a private page: the guest's access exits with
 *       KVM_EXIT_MEMORY_FAULT (flags 0, gpa, 4096); after QEMU's
 *       conversion (attributes shared, guest_memfd punched) the retried
 *       access reads the shared page
 *   (e) flip of a shared page: exit with the PRIVATE flag; after the
 *       conversion (attributes private, shared page discarded) the guest
 *       reads a zeroed private page
 *   (f) a punch zaps the guest's mapping: the guest reads zeroes, not
 *       its old private data
 *   (g) MAP_GPA_RANGE reaches userspace on a software-protected VM
 *   (h) KVM_PRE_FAULT_MEMORY of a flipped private page maps nothing the
 *       guest's access could go through: it fails (EFAULT), and the
 *       access still exits with KVM_EXIT_MEMORY_FAULT (patches-6.12 0003)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <unistd.h>
#include <sys/mman.h>

#include "kvm_gmem.h"
#include "kvm_util.h"
#include "tap.h"

#define TEST_NAME	"test_gmem"
#define PRIV_SLOT	1
#define PRIV_GPA	0x40000000ULL
#define PRIV_SIZE	(64ULL << 10)
#define PAGE		GUEST_PAGE_SIZE
#define PAGE_B		(PRIV_GPA + 0 * PAGE)
#define PAGE_C		(PRIV_GPA + 1 * PAGE)
#define PAGE_D		(PRIV_GPA + 2 * PAGE)
#define PAGE_E		(PRIV_GPA + 3 * PAGE)
#define PAGE_F		(PRIV_GPA + 4 * PAGE)
#define PAGE_G		(PRIV_GPA + 5 * PAGE)
#define PAGE_H		(PRIV_GPA + 6 * PAGE)
#define PRIV_PATTERN	0x5052495641544521ULL	/* "PRIVATE!" */
#define RUN_TIMEOUT_MS	10000

static struct kvm_vm *vm;
static uint8_t *shared;		/* the slot's shared part */
static int gmem_fd = -1;
static uint32_t next_vcpu_id;

static uint64_t shared_pattern(uint64_t gpa)
{
	return 0x5348415245440000ULL | ((gpa - PRIV_GPA) / PAGE); /* "SHARED" */
}

/* ------------------------------------------------------------------ */
/* guest code                                                          */

static GUEST_CODE void guest_read_page(uint64_t gpa)
{
	uint64_t first = guest_read64(gpa);

	GUEST_SYNC_ARGS(first, guest_count_mismatch64((void *)gpa, first, PAGE),
			0, 0);
	GUEST_DONE();
}

static GUEST_CODE void guest_write_read(uint64_t gpa, uint64_t val)
{
	guest_fill64((void *)gpa, val, PAGE);
	GUEST_SYNC(guest_count_mismatch64((void *)gpa, val, PAGE));
	/* again, after the host had its turn: what is there now */
	GUEST_SYNC_ARGS(guest_read64(gpa),
			guest_count_mismatch64((void *)gpa, guest_read64(gpa),
					       PAGE), 0, 0);
	GUEST_DONE();
}

static GUEST_CODE void guest_map(uint64_t gpa, uint64_t npages,
				 uint64_t attrs)
{
	GUEST_SYNC(guest_map_gpa_range(gpa, npages, attrs));
	GUEST_DONE();
}

/* ------------------------------------------------------------------ */
/* host side                                                           */

static struct kvm_vcpu *new_vcpu(void *guest_code, uint64_t a0, uint64_t a1)
{
	struct kvm_vcpu *vcpu;
	int r = __vm_vcpu_add(vm, next_vcpu_id++, guest_code, &vcpu);

	if (r) {
		tap_diag("adding a vCPU failed: %s", strerror(-r));
		return NULL;
	}
	vcpu_set_timeout(vcpu, RUN_TIMEOUT_MS);
	vcpu_args_set(vcpu, 2, a0, a1);
	return vcpu;
}

static void diag_exit(struct kvm_vcpu *vcpu, int r)
{
	struct gmem_memory_fault *m = gmem_run_fault(vcpu->run);
	struct ucall uc = { 0 };
	char buf[256];

	if (!r && get_ucall(vcpu, &uc) != UCALL_NONE) {
		ucall_describe(vm, &uc, buf, sizeof(buf));
		tap_diag("  KVM_RUN 0, %s", buf);
		return;
	}
	tap_diag("  KVM_RUN %d (%s), exit %u (%s), memory fault: gpa %#llx size %#llx flags %#llx",
		 r, r ? strerror(-r) : "ok", vcpu->run->exit_reason,
		 exit_reason_str(vcpu->run->exit_reason),
		 (unsigned long long)m->gpa, (unsigned long long)m->size,
		 (unsigned long long)m->flags);
}

/* Run; true if KVM_RUN fails with EFAULT and KVM_EXIT_MEMORY_FAULT as given */
static bool expect_fault_exit(struct kvm_vcpu *vcpu, uint64_t gpa,
			      uint64_t flags)
{
	struct gmem_memory_fault *m = gmem_run_fault(vcpu->run);
	int r = __vcpu_run(vcpu);
	bool ok = r == -EFAULT &&
		  vcpu->run->exit_reason == GMEM_EXIT_MEMORY_FAULT &&
		  m->gpa == gpa && m->size == PAGE && m->flags == flags;

	if (!ok)
		diag_exit(vcpu, r);
	return ok;
}

/* Run; true if the guest syncs, with its args in *uc */
static bool expect_sync(struct kvm_vcpu *vcpu, struct ucall *uc)
{
	int r = __vcpu_run(vcpu);

	if (!r && get_ucall(vcpu, uc) == UCALL_SYNC)
		return true;
	memset(uc, 0xff, sizeof(*uc));
	diag_exit(vcpu, r);
	return false;
}

static bool op(int r, const char *what)
{
	if (r)
		tap_diag("  %s: %s", what, strerror(-r));
	return !r;
}

static bool set_attrs(uint64_t gpa, uint64_t attrs)
{
	return op(__vm_set_memory_attributes(vm, gpa, PAGE, attrs),
		  "KVM_SET_MEMORY_ATTRIBUTES");
}

static uint64_t shared_mismatch(uint64_t gpa)
{
	const uint64_t *p = (uint64_t *)(shared + (gpa - PRIV_GPA));
	uint64_t i, bad = 0;

	for (i = 0; i < PAGE / 8; i++)
		bad += p[i] != shared_pattern(gpa);
	return bad;
}

/* QEMU's kvm_convert_memory() for one page */
static bool convert(uint64_t gpa, bool to_private)
{
	uint64_t off = gpa - PRIV_GPA;

	if (!set_attrs(gpa, to_private ? GMEM_ATTR_PRIVATE : 0))
		return false;
	if (to_private)
		return op(madvise(shared + off, PAGE, MADV_DONTNEED) ? -errno : 0,
			  "madvise(MADV_DONTNEED)");
	return op(__gmem_punch_hole(gmem_fd, off, PAGE), "punch hole");
}

static void test_flip_attribute(void)
{
	struct vm_opts opts = { .type = GMEM_X86_DEFAULT_VM };
	struct kvm_vm *plain = NULL;
	long long attrs = __vm_gmem_attributes(vm), plain_attrs = -1;
	int r = -1;

	tap_result(attrs > 0 && (attrs & GMEM_ATTR_SW_ACCESS_FLIP) &&
		   (attrs & GMEM_ATTR_PRIVATE),
		   "(a) a software-protected VM offers PRIVATE and the access flip (%#llx)",
		   attrs);
	if (!__vm_create(&plain, &opts)) {
		plain_attrs = __vm_gmem_attributes(plain);
		r = __vm_set_memory_attributes(plain, PRIV_GPA, PAGE,
					       GMEM_ATTR_SW_ACCESS_FLIP);
	}
	tap_result(plain && !(plain_attrs & GMEM_ATTR_SW_ACCESS_FLIP) &&
		   r == -EINVAL,
		   "(a) a default VM neither offers nor takes the flip (%#llx, %s)",
		   plain_attrs, r ? strerror(-r) : "taken");
	kvm_vm_free(plain);
}

static void test_private_page(void)
{
	struct kvm_vcpu *vcpu = new_vcpu(guest_write_read, PAGE_B, PRIV_PATTERN);
	struct ucall uc = { 0 };
	uint64_t bad;
	bool ok;

	ok = vcpu && set_attrs(PAGE_B, GMEM_ATTR_PRIVATE) &&
	     expect_sync(vcpu, &uc) && uc.args[0] == 0;
	tap_result(ok, "(b) private page: the guest writes and reads back its pattern without an exit");
	bad = shared_mismatch(PAGE_B);
	tap_result(ok && !bad, "(b) the shared page is unchanged by the private write (%llu words differ)",
		   (unsigned long long)bad);

	/* (f): punch the page the guest mapped, let it read again */
	ok = ok && op(__gmem_punch_hole(gmem_fd, PAGE_B - PRIV_GPA, PAGE),
		      "punch hole") &&
	     expect_sync(vcpu, &uc) && uc.args[0] == 0 && uc.args[1] == 0;
	tap_result(ok, "(f) after PUNCH_HOLE the guest reads a zeroed page, not its old data (%#llx)",
		   (unsigned long long)uc.args[0]);
}

static void test_shared_page(void)
{
	struct kvm_vcpu *vcpu = new_vcpu(guest_read_page, PAGE_C, 0);
	struct ucall uc = { 0 };
	bool ok;

	ok = vcpu && expect_sync(vcpu, &uc) &&
	     uc.args[0] == shared_pattern(PAGE_C) && uc.args[1] == 0;
	tap_result(ok, "(c) shared page: the guest reads the host's pattern (%#llx)",
		   (unsigned long long)uc.args[0]);
}

static void test_flip_to_shared(void)
{
	struct kvm_vcpu *vcpu = new_vcpu(guest_read_page, PAGE_D, 0);
	struct ucall uc = { 0 };
	bool ok;

	ok = vcpu && set_attrs(PAGE_D, GMEM_ATTR_PRIVATE) &&
	     op(__gmem_allocate(gmem_fd, PAGE_D - PRIV_GPA, PAGE), "fallocate") &&
	     set_attrs(PAGE_D, GMEM_ATTR_PRIVATE | GMEM_ATTR_SW_ACCESS_FLIP) &&
	     expect_fault_exit(vcpu, PAGE_D, 0);
	tap_result(ok, "(d) flipped private page: the access exits KVM_EXIT_MEMORY_FAULT, gpa, 4096, flags 0");
	ok = ok && convert(PAGE_D, false) && expect_sync(vcpu, &uc) &&
	     uc.args[0] == shared_pattern(PAGE_D) && uc.args[1] == 0;
	tap_result(ok, "(d) after the conversion to shared the retried access reads the shared page (%#llx)",
		   (unsigned long long)uc.args[0]);
}

static void test_flip_to_private(void)
{
	struct kvm_vcpu *vcpu = new_vcpu(guest_read_page, PAGE_E, 0);
	struct ucall uc = { 0 };
	bool ok;

	ok = vcpu && set_attrs(PAGE_E, GMEM_ATTR_SW_ACCESS_FLIP) &&
	     expect_fault_exit(vcpu, PAGE_E, GMEM_MEMORY_EXIT_FLAG_PRIVATE);
	tap_result(ok, "(e) flipped shared page: the access exits KVM_EXIT_MEMORY_FAULT with the PRIVATE flag");
	ok = ok && convert(PAGE_E, true) && expect_sync(vcpu, &uc) &&
	     uc.args[0] == 0 && uc.args[1] == 0;
	tap_result(ok, "(e) after the conversion to private the guest reads a zeroed private page (%#llx)",
		   (unsigned long long)uc.args[0]);
}

static void test_hypercall(uint64_t attrs, const char *name)
{
	struct kvm_vcpu *vcpu = new_vcpu(guest_map, PAGE_G, 1);
	uint64_t gpa = 0, npages = 0, got_attrs = 0;
	struct ucall uc = { 0 };
	bool ok = false;
	int r;

	if (vcpu) {
		vcpu_args_set(vcpu, 3, PAGE_G, 1ULL, attrs);
		r = __vcpu_run(vcpu);
		ok = !r && get_map_gpa_range(vcpu, &gpa, &npages, &got_attrs) &&
		     gpa == PAGE_G && npages == 1 && got_attrs == attrs;
		if (!ok)
			diag_exit(vcpu, r);
		vcpu->run->hypercall.ret = 0;
		ok = ok && expect_sync(vcpu, &uc) && uc.args[0] == 0;
	}
	tap_result(ok, "(g) MAP_GPA_RANGE(gpa, 1, %s): KVM_EXIT_HYPERCALL, nr 12, args; ret 0 reaches the guest",
		   name);
}

/* KVM_PRE_FAULT_MEMORY (Linux 6.10 UAPI, newer than Debian 12's headers) */
struct gmem_pre_fault_memory {
	__u64 gpa;
	__u64 size;
	__u64 flags;
	__u64 padding[5];
};
#define GMEM_PRE_FAULT_MEMORY \
	_IOWR(KVMIO, 0xd5, struct gmem_pre_fault_memory)

static void test_prefault_flip(void)
{
	struct kvm_vcpu *vcpu = new_vcpu(guest_read_page, PAGE_H, 0);
	struct gmem_pre_fault_memory pf = { .gpa = PAGE_H, .size = PAGE };
	int r = -1;
	bool ok;

	ok = vcpu && set_attrs(PAGE_H, GMEM_ATTR_PRIVATE) &&
	     op(__gmem_allocate(gmem_fd, PAGE_H - PRIV_GPA, PAGE), "fallocate") &&
	     set_attrs(PAGE_H, GMEM_ATTR_PRIVATE | GMEM_ATTR_SW_ACCESS_FLIP);
	if (ok)
		r = __vcpu_ioctl(vcpu, GMEM_PRE_FAULT_MEMORY, &pf) < 0 ? -errno : 0;
	ok = ok && r == -EFAULT && expect_fault_exit(vcpu, PAGE_H, 0);
	tap_result(ok, "(h) KVM_PRE_FAULT_MEMORY of a flipped private page: %s (want EFAULT), and the guest's access still exits KVM_EXIT_MEMORY_FAULT, flags 0",
		   r ? strerror(-r) : "mapped");
}

static void fill_shared(void)
{
	uint64_t gpa, i;

	for (gpa = PRIV_GPA; gpa < PRIV_GPA + PRIV_SIZE; gpa += PAGE) {
		uint64_t *p = (uint64_t *)(shared + (gpa - PRIV_GPA));

		for (i = 0; i < PAGE / 8; i++)
			p[i] = shared_pattern(gpa);
	}
}

int main(void)
{
	struct vm_opts opts = { .type = GMEM_X86_SW_PROTECTED_VM };
	char why[256];
	int r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	r = gmem_supported(why, sizeof(why));
	if (r)
		tap_no_series(TEST_NAME, true, "%s", why);
	r = __vm_create(&vm, &opts);
	if (r) {
		tap_result(false, "software-protected VM created (%s)", strerror(-r));
		return tap_finish(true);
	}
	shared = mmap(NULL, PRIV_SIZE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	gmem_fd = shared == MAP_FAILED ? -ENOMEM :
		  __vm_create_guest_memfd(vm, PRIV_SIZE, 0);
	r = gmem_fd < 0 ? gmem_fd :
	    __vm_set_gmem_memory_region(vm, PRIV_SLOT, PRIV_GPA, PRIV_SIZE,
					shared, gmem_fd, 0);
	tap_result(!r, "guest_memfd slot: anonymous shared part + guest_memfd (%s)",
		   r ? strerror(-r) : "ok");
	if (r)
		return tap_finish(true);
	fill_shared();

	test_flip_attribute();
	test_private_page();
	test_shared_page();
	test_flip_to_shared();
	test_flip_to_private();
	test_prefault_flip();
	r = __vm_enable_exit_map_gpa_range(vm);
	if (!r) {
		test_hypercall(KVM_MAP_GPA_RANGE_DECRYPTED, "DECRYPTED");
		test_hypercall(KVM_MAP_GPA_RANGE_ENCRYPTED, "ENCRYPTED");
	} else {
		tap_result(false, "KVM_CAP_EXIT_HYPERCALL with MAP_GPA_RANGE (%s)",
			   strerror(-r));
	}

	kvm_vm_free(vm);
	close(gmem_fd);
	munmap(shared, PRIV_SIZE);
	return tap_finish(true);
}
