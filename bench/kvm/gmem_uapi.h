/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace view of guest_memfd as Linux 6.12 has it (upstream since 6.8,
 * include/uapi/linux/kvm.h and arch/x86/include/uapi/asm/kvm.h), the ABI
 * of convbench's second kernel (FLAVOUR=gmem, kernel/patches-6.12/). The
 * system's <linux/kvm.h> is 6.1's and lacks all of it, so it is spelled
 * out here; every number must match 6.12's headers.
 */
#ifndef CONVBENCH_GMEM_UAPI_H
#define CONVBENCH_GMEM_UAPI_H

#include <linux/kvm.h>
#include <linux/types.h>

/* KVM_CREATE_VM's type on x86 (KVM_CAP_VM_TYPES is a mask of them) */
#define GMEM_X86_DEFAULT_VM		0
#define GMEM_X86_SW_PROTECTED_VM	1

#define GMEM_CAP_USER_MEMORY2		231
#define GMEM_CAP_MEMORY_ATTRIBUTES	233	/* on a VM fd: its attributes */
#define GMEM_CAP_GUEST_MEMFD		234
#define GMEM_CAP_VM_TYPES		235

/* KVM_SET_USER_MEMORY_REGION2 */
struct gmem_userspace_memory_region2 {
	__u32 slot;
	__u32 flags;
	__u64 guest_phys_addr;
	__u64 memory_size;
	__u64 userspace_addr;
	__u64 guest_memfd_offset;
	__u32 guest_memfd;
	__u32 pad1;
	__u64 pad2[14];
};
#define GMEM_SET_USER_MEMORY_REGION2 \
	_IOW(KVMIO, 0x49, struct gmem_userspace_memory_region2)
/* the slot's private part is the guest_memfd (the v5 KVM_MEM_PRIVATE bit) */
#define GMEM_MEM_GUEST_MEMFD		(1U << 2)

/* KVM_CREATE_GUEST_MEMFD (VM ioctl): returns the new fd */
struct gmem_create_guest_memfd {
	__u64 size;
	__u64 flags;
	__u64 reserved[6];
};
#define GMEM_CREATE_GUEST_MEMFD \
	_IOWR(KVMIO, 0xd4, struct gmem_create_guest_memfd)

/* KVM_SET_MEMORY_ATTRIBUTES (VM ioctl): the whole value for the range */
struct gmem_memory_attributes {
	__u64 address;
	__u64 size;
	__u64 attributes;
	__u64 flags;
};
#define GMEM_SET_MEMORY_ATTRIBUTES \
	_IOW(KVMIO, 0xd2, struct gmem_memory_attributes)
#define GMEM_ATTR_PRIVATE		(1ULL << 3)
/*
 * kernel/patches-6.12 0001, software-protected VMs only: the guest's
 * accesses to the gfn are of the other kind than GMEM_ATTR_PRIVATE says
 * (the stand-in for a TDX guest flipping the shared bit of its mapping),
 * so they exit with KVM_EXIT_MEMORY_FAULT until the VMM converts the gfn.
 * Present when the VM fd's GMEM_CAP_MEMORY_ATTRIBUTES answer has it.
 */
#define GMEM_ATTR_SW_ACCESS_FLIP	(1ULL << 30)

/*
 * KVM_EXIT_MEMORY_FAULT: KVM_RUN fails with EFAULT (EHWPOISON for a
 * poisoned page) and run->exit_reason is set to this. The layout of
 * run->memory_fault, inside the kvm_run exit union.
 */
#define GMEM_EXIT_MEMORY_FAULT		39
#define GMEM_MEMORY_EXIT_FLAG_PRIVATE	(1ULL << 3)

struct gmem_memory_fault {
	__u64 flags;
	__u64 gpa;
	__u64 size;
};

static inline struct gmem_memory_fault *gmem_run_fault(struct kvm_run *run)
{
	return (struct gmem_memory_fault *)&run->hw;
}

#endif /* CONVBENCH_GMEM_UAPI_H */
