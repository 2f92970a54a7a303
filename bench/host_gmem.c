// SPDX-License-Identifier: GPL-2.0
/*
 * The VMM's side of a conversion in --mode=gmem: what upstream merged
 * (guest_memfd, Linux 6.8+) on a software-protected VM, converted the
 * way QEMU's kvm_convert_memory() does it. The slot's private part is a
 * guest_memfd, its shared part anonymous memory; which of the two backs
 * a gfn is its memory attribute. A conversion first sets the attribute
 * (the record), then frees the side the gfn left:
 *   to shared:  PRIVATE cleared, the guest_memfd range punched (the
 *               private page is gone; the guest's next access gets a
 *               fresh zeroed shared page);
 *   to private: PRIVATE set, the shared range discarded
 *               (MADV_DONTNEED); nothing is allocated here: the guest's
 *               first private access allocates and clears the page in
 *               kvm_gmem_get_pfn().
 * Both triggers run the same handler: an implicit conversion's fault
 * (KVM_EXIT_MEMORY_FAULT) carries no attribute update of its own, so
 * unlike the 6.1 modes the handler's record phase is timed there too.
 * The implicit trigger's stand-in for a guest flipping the shared bit
 * is GMEM_ATTR_SW_ACCESS_FLIP (kernel/patches-6.12 0001), set untimed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <unistd.h>
#include <sys/mman.h>

#include "host_conv.h"
#include "host_gmem.h"
#include "kvm_gmem.h"

int host_gmem_init(struct conv_ctx *c, uint32_t slot, uint64_t stride)
{
	uint64_t off;
	int r;

	c->fd = __vm_create_guest_memfd(c->vm, c->slot_size, 0);
	if (c->fd < 0)
		return conv_why(c, c->fd, "KVM_CREATE_GUEST_MEMFD");
	r = __vm_set_gmem_memory_region(c->vm, slot, c->gpa, c->slot_size,
					c->shared, c->fd, 0);
	if (r)
		return conv_why(c, r, "KVM_SET_USER_MEMORY_REGION2 with KVM_MEM_GUEST_MEMFD");
	/* every range starts private, allocated in the guest_memfd */
	for (off = 0; off < c->slot_size; off += stride) {
		r = __vm_set_memory_attributes(c->vm, c->gpa + off, c->size,
					       GMEM_ATTR_PRIVATE);
		if (r)
			return conv_why(c, r, "KVM_SET_MEMORY_ATTRIBUTES");
		r = __gmem_allocate(c->fd, off, c->size);
		if (r)
			return conv_why(c, r, "fallocate of the guest_memfd");
	}
	return 0;
}

int host_gmem_flip(struct conv_ctx *c, uint64_t gpa, bool to_private)
{
	uint64_t attrs = (to_private ? 0 : GMEM_ATTR_PRIVATE) |
			 GMEM_ATTR_SW_ACCESS_FLIP;
	int r = __vm_set_memory_attributes(c->vm, gpa, c->size, attrs);

	return r ? conv_why(c, r, "KVM_SET_MEMORY_ATTRIBUTES with the access flip") : 0;
}

int host_gmem_convert(struct conv_ctx *c, uint64_t off, uint64_t len,
		      bool to_private, struct host_phases *ph)
{
	uint64_t t0 = rdtsc(), t1;
	int r;

	r = __vm_set_memory_attributes(c->vm, c->gpa + off, len,
				       to_private ? GMEM_ATTR_PRIVATE : 0);
	t1 = rdtsc();
	ph->record = t1 - t0;
	if (r)
		return conv_why(c, r, "KVM_SET_MEMORY_ATTRIBUTES");
	if (!to_private) {
		r = __gmem_punch_hole(c->fd, off, len);
		ph->mem = rdtsc() - t1;
		return r ? conv_why(c, r, "fallocate(PUNCH_HOLE) on the guest_memfd") : 0;
	}
	r = madvise(c->shared + off, len, MADV_DONTNEED) ? -errno : 0;
	ph->release = rdtsc() - t1;
	return r ? conv_why(c, r, "madvise(MADV_DONTNEED) of the shared part") : 0;
}
