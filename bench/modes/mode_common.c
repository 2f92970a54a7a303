// SPDX-License-Identifier: GPL-2.0
/* What the modes' files share: see mode_common.h */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "inplace.h"
#include "mode_common.h"

int conv_map_shared(struct conv_ctx *c, bool map_fd)
{
	size_t len = c->slot_size + SZ_2M;
	uint8_t *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return -errno;
	c->map_base = p;
	c->map_size = len;
	c->shared = (uint8_t *)(((uintptr_t)p + SZ_2M - 1) & ~(SZ_2M - 1));
	if (map_fd)
		return inplace_map_shared(c->fd, 0, c->slot_size, c->shared);
	/* a 2M conversion gets a 2M shared page, as the private side does */
	if (c->huge)
		madvise(c->shared, c->slot_size, MADV_HUGEPAGE);
	return 0;
}

int v5_init(struct conv_ctx *c, uint32_t slot, uint64_t stride, bool map_fd)
{
	uint64_t off;
	int r;

	c->fd = memfd_inaccessible_create("convbench-private", c->slot_size);
	if (c->fd < 0)
		return conv_why(c, c->fd, "memfd_create(MFD_INACCESSIBLE)");
	r = conv_map_shared(c, map_fd);
	if (r)
		return conv_why(c, r, "mmap of the shared part");
	r = __vm_set_private_memory_region(c->vm, slot, KVM_MEM_PRIVATE, c->gpa,
					   c->slot_size, c->shared, c->fd, 0);
	if (r)
		return conv_why(c, r, "KVM_SET_USER_MEMORY_REGION with KVM_MEM_PRIVATE");

	/* every range starts private, allocated in the fd */
	for (off = 0; off < c->slot_size; off += stride) {
		r = __vm_set_sw_private(c->vm, c->gpa + off, c->size, true);
		if (r)
			return conv_why(c, r, "KVM_SET_SW_PRIVATE_RANGE");
		r = __private_fallocate(c->fd, off, c->size);
		if (r)
			return conv_why(c, r, "fallocate of the private fd");
	}
	return 0;
}

int v5_flip(struct conv_ctx *c, uint64_t gpa, bool to_private)
{
	int r = __vm_set_sw_private(c->vm, gpa, c->size, to_private);

	return r ? conv_why(c, r, "KVM_SET_SW_PRIVATE_RANGE") : 0;
}

int v5_record(struct conv_ctx *c, uint64_t gpa, uint64_t len,
	      bool to_private, struct host_phases *ph)
{
	uint64_t t0 = rdtsc();
	int r = __vm_set_sw_private(c->vm, gpa, len, to_private);

	ph->record = rdtsc() - t0;
	return r ? conv_why(c, r, "KVM_SET_SW_PRIVATE_RANGE") : 0;
}

int v5_supported(enum conv_mode m, char *why, size_t len)
{
	int r = kvm_check_cap(KVM_CAP_PRIVATE_MEM);

	if (r < 0) {
		snprintf(why, len, "cannot open /dev/kvm: %s", strerror(-r));
		return r;
	}
	if (r == 0 || kvm_check_cap(KVM_CAP_PRIVATE_MEM_SW_GFN) <= 0) {
		snprintf(why, len, "this kernel lacks the private-memory series "
			 "(KVM_CAP_PRIVATE_MEM and KVM_CAP_PRIVATE_MEM_SW_GFN); "
			 "--mode=%s runs in the project's 6.1 kernel (make "
			 "kernel)", conv_mode_name(m));
		return -ENOTSUP;
	}
	return 0;
}
