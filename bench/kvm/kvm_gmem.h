/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The KVM library's guest_memfd part (Linux 6.8+, bench/gmem_uapi.h):
 * software-protected VMs, guest_memfd, memslots that carry one, memory
 * attributes. As in kvm_util.h, __foo() returns 0 (or a value) or
 * -errno and never exits.
 *
 * A VMM uses it as upstream's selftests and QEMU do: create the VM with
 * vm_opts.type = GMEM_X86_SW_PROTECTED_VM, create a guest_memfd of the
 * private part's size, add a slot whose shared part is ordinary memory
 * (userspace_addr) and whose private part is the guest_memfd, then mark
 * gfns private or shared with KVM_SET_MEMORY_ATTRIBUTES; KVM maps a gfn
 * from the guest_memfd while it is private (allocating the page on the
 * first access) and from userspace_addr while it is shared.
 */
#ifndef CONVBENCH_KVM_GMEM_H
#define CONVBENCH_KVM_GMEM_H

#include <stdbool.h>
#include <stdint.h>

#include "gmem_uapi.h"
#include "kvm_util.h"

/*
 * What this kernel offers: 0 when software-protected VMs with
 * guest_memfd and private attributes work, else -ENOTSUP (or -errno)
 * with why[] naming what is missing.
 */
int gmem_supported(char *why, size_t len);

/* the attributes vm accepts (KVM_CHECK_EXTENSION on the VM fd), or -errno */
long long __vm_gmem_attributes(struct kvm_vm *vm);

/* KVM_CREATE_GUEST_MEMFD: the fd, or -errno */
int __vm_create_guest_memfd(struct kvm_vm *vm, uint64_t size, uint64_t flags);

/*
 * KVM_SET_USER_MEMORY_REGION2 with GMEM_MEM_GUEST_MEMFD: slot at gpa,
 * shared part at hva, private part [gmem_off, + size) of gmem_fd
 */
int __vm_set_gmem_memory_region(struct kvm_vm *vm, uint32_t slot,
				uint64_t gpa, uint64_t size, void *hva,
				int gmem_fd, uint64_t gmem_off);

/* KVM_SET_MEMORY_ATTRIBUTES of [gpa, + size) to attrs: 0 or -errno */
int __vm_set_memory_attributes(struct kvm_vm *vm, uint64_t gpa,
			       uint64_t size, uint64_t attrs);

/* fallocate(PUNCH_HOLE | KEEP_SIZE) / fallocate(KEEP_SIZE): 0 or -errno */
int __gmem_punch_hole(int fd, uint64_t off, uint64_t len);
int __gmem_allocate(int fd, uint64_t off, uint64_t len);

#endif /* CONVBENCH_KVM_GMEM_H */
