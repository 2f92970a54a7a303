// SPDX-License-Identifier: GPL-2.0
/* The KVM library's guest_memfd part: see kvm_gmem.h */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "kvm_gmem.h"

int gmem_supported(char *why, size_t len)
{
	int types = kvm_check_cap(GMEM_CAP_VM_TYPES);

	if (types < 0) {
		snprintf(why, len, "cannot open /dev/kvm: %s", strerror(-types));
		return types;
	}
	if (!(types & (1 << GMEM_X86_SW_PROTECTED_VM))) {
		snprintf(why, len, "this kernel has no software-protected VMs "
			 "(KVM_CAP_VM_TYPES lacks KVM_X86_SW_PROTECTED_VM: "
			 "Linux 6.8+ with CONFIG_KVM_SW_PROTECTED_VM and the "
			 "TDP MMU)");
		return -ENOTSUP;
	}
	if (kvm_check_cap(GMEM_CAP_GUEST_MEMFD) <= 0 ||
	    kvm_check_cap(GMEM_CAP_USER_MEMORY2) <= 0 ||
	    !(kvm_check_cap(GMEM_CAP_MEMORY_ATTRIBUTES) > 0 &&
	      (kvm_check_cap(GMEM_CAP_MEMORY_ATTRIBUTES) & GMEM_ATTR_PRIVATE))) {
		snprintf(why, len, "this kernel lacks KVM_CAP_GUEST_MEMFD, "
			 "KVM_CAP_USER_MEMORY2 or the private memory attribute");
		return -ENOTSUP;
	}
	return 0;
}

long long __vm_gmem_attributes(struct kvm_vm *vm)
{
	int r = __vm_ioctl(vm, KVM_CHECK_EXTENSION, GMEM_CAP_MEMORY_ATTRIBUTES);

	return r < 0 ? -errno : r;
}

int __vm_create_guest_memfd(struct kvm_vm *vm, uint64_t size, uint64_t flags)
{
	struct gmem_create_guest_memfd g = { .size = size, .flags = flags };
	int fd = __vm_ioctl(vm, GMEM_CREATE_GUEST_MEMFD, &g);

	return fd < 0 ? -errno : fd;
}

int __vm_set_gmem_memory_region(struct kvm_vm *vm, uint32_t slot,
				uint64_t gpa, uint64_t size, void *hva,
				int gmem_fd, uint64_t gmem_off)
{
	struct gmem_userspace_memory_region2 m = {
		.slot = slot,
		.flags = GMEM_MEM_GUEST_MEMFD,
		.guest_phys_addr = gpa,
		.memory_size = size,
		.userspace_addr = (uintptr_t)hva,
		.guest_memfd_offset = gmem_off,
		.guest_memfd = gmem_fd,
	};

	return __vm_ioctl(vm, GMEM_SET_USER_MEMORY_REGION2, &m) ? -errno : 0;
}

int __vm_set_memory_attributes(struct kvm_vm *vm, uint64_t gpa,
			       uint64_t size, uint64_t attrs)
{
	struct gmem_memory_attributes a = {
		.address = gpa,
		.size = size,
		.attributes = attrs,
	};

	return __vm_ioctl(vm, GMEM_SET_MEMORY_ATTRIBUTES, &a) ? -errno : 0;
}

int __gmem_punch_hole(int fd, uint64_t off, uint64_t len)
{
	return fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off,
			 len) ? -errno : 0;
}

int __gmem_allocate(int fd, uint64_t off, uint64_t len)
{
	return fallocate(fd, FALLOC_FL_KEEP_SIZE, off, len) ? -errno : 0;
}
