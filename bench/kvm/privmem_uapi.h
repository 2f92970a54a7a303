/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace view of the private-memory ABI carried by convbench's kernel
 * (kernel/patches/): Chao Peng's v5 series ported to 6.1 plus our
 * additions. The system's <linux/kvm.h> and <linux/memfd.h> do not have
 * these, so they are spelled out here; every number must match the
 * patches.
 */
#ifndef CONVBENCH_PRIVMEM_UAPI_H
#define CONVBENCH_PRIVMEM_UAPI_H

#include <errno.h>
#include <linux/kvm.h>
#include <linux/types.h>

/* v5 01/13: memfd whose content the host cannot read, write or mmap */
#ifndef MFD_INACCESSIBLE
#define MFD_INACCESSIBLE	0x0008U
#endif

/* v5 05/13: memslot with a private part in an fd */
#define KVM_MEM_PRIVATE		(1UL << 2)

struct kvm_userspace_memory_region_ext {
	struct kvm_userspace_memory_region region;
	__u64 private_offset;
	__u32 private_fd;
	__u32 padding[5];
};

/*
 * v5 07/13: 36 and 37 are taken in 6.1 (RISCV_CSR, NOTIFY) and upstream
 * has used 38-41 since, so the port uses 1024, far above upstream's
 * numbers. KVM_RUN fails with EFAULT (EHWPOISON when a memory error took
 * the private page) and run->exit_reason set to this.
 */
#define KVM_EXIT_MEMORY_ERROR		1024
#define KVM_MEMORY_EXIT_FLAG_PRIVATE	(1U << 0)

/* layout of run->memory (inside the kvm_run exit union) */
struct kvm_run_memory_exit {
	__u32 flags;
	__u32 padding;
	__u64 gpa;
	__u64 size;
};

static inline struct kvm_run_memory_exit *kvm_run_memory(struct kvm_run *run)
{
	return (struct kvm_run_memory_exit *)&run->hw;
}

/*
 * Capabilities, answered by KVM_CHECK_EXTENSION on /dev/kvm and on a VM
 * fd. The numbers sit far above upstream's range so that a kernel without
 * our patches never answers them by accident.
 */
#define KVM_CAP_PRIVATE_MEM		1024	/* v5 12/13: KVM_MEM_PRIVATE */
#define KVM_CAP_PRIVATE_MEM_SW_GFN	1025	/* software-private gfn record */
#define KVM_CAP_PRIVATE_MEM_INPLACE	1026	/* in-place conversion */

/*
 * Software-private gfn record (our addition, a VM ioctl): marks
 * [gpa, gpa + size) private (flags = KVM_SW_PRIVATE) or shared
 * (flags = 0) for kvm_vcpu_is_private_gfn(). gpa and size must be page
 * aligned, gpa + size at most 2^52, reserved 0. Existing mappings of the
 * range are zapped. The number is 0xf8: with this struct, 0xd2 would be
 * upstream's KVM_SET_MEMORY_ATTRIBUTES.
 */
struct kvm_sw_private_range {
	__u64 gpa;
	__u64 size;
	__u64 flags;
	__u64 reserved;
};
#define KVM_SW_PRIVATE			(1ULL << 0)
#define KVM_SET_SW_PRIVATE_RANGE	_IOW(KVMIO, 0xf8, struct kvm_sw_private_range)

/* KVM_HC_MAP_GPA_RANGE attributes (arch/x86/include/uapi/asm/kvm_para.h) */
#ifndef KVM_HC_MAP_GPA_RANGE
#define KVM_HC_MAP_GPA_RANGE		12
#endif
#ifndef KVM_MAP_GPA_RANGE_ENCRYPTED
#define KVM_MAP_GPA_RANGE_ENCRYPTED	(1ULL << 4)
#define KVM_MAP_GPA_RANGE_DECRYPTED	(0ULL << 4)
#endif

/*
 * In-place conversion (our addition, kernel/patches 0027-0029, present
 * when KVM_CAP_PRIVATE_MEM_INPLACE answers 1): an ioctl on the
 * MFD_INACCESSIBLE memfd makes the page-aligned range [offset,
 * offset + len) shared (the host may mmap(MAP_SHARED), read and write
 * it; KVM maps the same page through the slot's userspace_addr) or
 * private again, without freeing, allocating or copying a page. flags:
 * exactly one of TO_SHARED/TO_PRIVATE and exactly one of PRESERVE/ZERO
 * (ZERO clears only the pages whose state changes); pad 0. To private
 * fails with EAGAIN, changing nothing, while a page of the range has
 * another reference (GUP, vmsplice, O_DIRECT); then error_offset is the
 * file offset of the first busy page. Every offset starts private;
 * fallocate()/PUNCH_HOLE do not change shareability.
 * The kernel's function is shmem_convert_range() (an attach point).
 */
#ifndef MEMFD_IOC_CONVERT_RANGE
struct memfd_convert_range {
	__u64 offset;
	__u64 len;
	__u32 flags;
	__u32 pad;
	__u64 error_offset;	/* out, on EAGAIN */
};

#define MEMFD_CONVERT_TO_SHARED		(1U << 0)
#define MEMFD_CONVERT_TO_PRIVATE	(1U << 1)
#define MEMFD_CONVERT_PRESERVE		(1U << 2)
#define MEMFD_CONVERT_ZERO		(1U << 3)

#define MEMFD_IOC_CONVERT_RANGE	_IOWR(0xB9, 0x00, struct memfd_convert_range)
#endif

/*
 * The errno of an in-place to-private conversion that finds a page still
 * referenced (kernel/patches 0028): EAGAIN, as in upstream's in-place
 * series (userspace drops its pins and retries). Code uses this name.
 */
#define MEMFD_CONVERT_BUSY_ERRNO	EAGAIN

#endif /* CONVBENCH_PRIVMEM_UAPI_H */
