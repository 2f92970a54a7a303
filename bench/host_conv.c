// SPDX-License-Identifier: GPL-2.0
/*
 * The VMM's side of a conversion, per mode. Destructive is the v5 series
 * as posted (and QEMU's kvm_convert_memory()): private->shared punches a
 * hole in the private fd, so the guest's next access gets a fresh zeroed
 * shared page; shared->private drops the shared page (no double memory)
 * and allocates a fresh zeroed private one. In place (our variant) the
 * slot's shared part is the VMM's MAP_SHARED mapping of the private fd
 * itself and a conversion only changes who may access the page
 * (MEMFD_IOC_CONVERT_RANGE): nothing is freed, allocated or copied.
 * gmem (guest_memfd as merged, the 6.12 kernel) is in host_gmem.c.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "host_conv.h"
#include "host_gmem.h"
#include "inplace.h"

/*
 * The shared part, 2M aligned: anonymous memory (destructive) or the
 * private fd itself (in place: the shared page is the private page).
 */
static int map_shared(struct conv_ctx *c)
{
	size_t len = c->slot_size + SZ_2M;
	uint8_t *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return -errno;
	c->map_base = p;
	c->map_size = len;
	c->shared = (uint8_t *)(((uintptr_t)p + SZ_2M - 1) & ~(SZ_2M - 1));
	if (c->mode == MODE_INPLACE)
		return inplace_map_shared(c->fd, 0, c->slot_size, c->shared);
	/* a 2M conversion gets a 2M shared page, as the private side does */
	if (c->huge)
		madvise(c->shared, c->slot_size, MADV_HUGEPAGE);
	return 0;
}

int host_conv_init(struct conv_ctx *c, struct kvm_vm *vm, uint32_t slot,
		   const struct cell_params *p, uint64_t gpa,
		   uint64_t slot_size, uint64_t stride)
{
	uint64_t off;
	int r;

	memset(c, 0, sizeof(*c));
	c->vm = vm;
	c->mode = p->mode;
	c->preserve = p->preserve;
	c->huge = !(p->size % SZ_2M);
	c->gpa = gpa;
	c->slot_size = slot_size;
	c->size = p->size;
	c->fd = -1;

	if (c->mode == MODE_GMEM) {
		r = map_shared(c);
		return r ? conv_why(c, r, "mmap of the shared part") :
			   host_gmem_init(c, slot, stride);
	}
	c->fd = memfd_inaccessible_create("convbench-private", slot_size);
	if (c->fd < 0)
		return conv_why(c, c->fd, "memfd_create(MFD_INACCESSIBLE)");
	r = map_shared(c);
	if (r)
		return conv_why(c, r, "mmap of the shared part");
	r = __vm_set_private_memory_region(vm, slot, KVM_MEM_PRIVATE, gpa,
					   slot_size, c->shared, c->fd, 0);
	if (r)
		return conv_why(c, r, "KVM_SET_USER_MEMORY_REGION with KVM_MEM_PRIVATE");

	/* every range starts private, allocated in the fd */
	for (off = 0; off < slot_size; off += stride) {
		r = __vm_set_sw_private(vm, gpa + off, c->size, true);
		if (r)
			return conv_why(c, r, "KVM_SET_SW_PRIVATE_RANGE");
		r = __private_fallocate(c->fd, off, c->size);
		if (r)
			return conv_why(c, r, "fallocate of the private fd");
	}
	return 0;
}

void host_conv_destroy(struct conv_ctx *c)
{
	if (c->fd >= 0)
		close(c->fd);
	if (c->map_base)
		munmap(c->map_base, c->map_size);
	c->fd = -1;
	c->map_base = NULL;
}

int host_conv_flip(struct conv_ctx *c, uint64_t gpa, bool to_private)
{
	int r;

	if (c->mode == MODE_GMEM)
		return host_gmem_flip(c, gpa, to_private);
	r = __vm_set_sw_private(c->vm, gpa, c->size, to_private);

	return r ? conv_why(c, r, "KVM_SET_SW_PRIVATE_RANGE") : 0;
}

/* punches of one conversion before EAGAIN counts as a failure */
#define PUNCH_TRIES	100

static int destructive(struct conv_ctx *c, uint64_t off, uint64_t len,
		       bool to_private, struct host_phases *ph)
{
	uint64_t t0 = rdtsc(), t1;
	int r, tries;

	if (!to_private) {
		/*
		 * The kernel fails a punch with EAGAIN while a page of the
		 * range stays referenced (kernel/patches 0019), the range
		 * cleared: nothing of ours pins private pages, so punch
		 * again; a page cache walker's reference is gone by then.
		 */
		for (tries = 0; tries < PUNCH_TRIES; tries++) {
			r = __private_punch_hole(c->fd, off, len);
			if (r != -EAGAIN)
				break;
		}
		ph->mem = rdtsc() - t0;
		return r ? conv_why(c, r, "fallocate(PUNCH_HOLE) on the private fd") : 0;
	}
	r = __private_fallocate(c->fd, off, len);
	t1 = rdtsc();
	ph->mem = t1 - t0;
	if (r)
		return conv_why(c, r, "fallocate on the private fd");
	/*
	 * The shared page is stale now: give it back. With THP a 4K
	 * fallocate (an implicit conversion's fault) allocates the whole 2M
	 * folio and no further page of it faults, so its shared twin is
	 * stale too: left mapped, the next to-shared would read old data.
	 */
	if (c->huge) {
		uint64_t end = (off + len + SZ_2M - 1) & ~(SZ_2M - 1);

		off &= ~(SZ_2M - 1);
		len = end - off;
	}
	r = madvise(c->shared + off, len, MADV_DONTNEED) ? -errno : 0;
	ph->release = rdtsc() - t1;
	return r ? conv_why(c, r, "madvise(MADV_DONTNEED) of the shared part") : 0;
}

static int in_place(struct conv_ctx *c, uint64_t off, uint64_t len,
		    bool to_private, struct host_phases *ph)
{
	unsigned int flags = (to_private ? INPLACE_TO_PRIVATE : INPLACE_TO_SHARED) |
			     (c->preserve ? INPLACE_PRESERVE : INPLACE_ZERO);
	uint64_t t0 = rdtsc(), busy = 0;
	int r = memfd_convert(c->fd, off, len, flags, &busy);

	ph->mem = rdtsc() - t0;
	if (r == -MEMFD_CONVERT_BUSY_ERRNO)
		snprintf(c->detail, sizeof(c->detail),
			 " (MEMFD_IOC_CONVERT_RANGE: page at offset %#llx is pinned)",
			 (unsigned long long)busy);
	else if (r)
		conv_why(c, r, "MEMFD_IOC_CONVERT_RANGE");
	return r;
}

int host_conv_convert(struct conv_ctx *c, uint64_t gpa, uint64_t len,
		      bool to_private, bool with_record,
		      struct host_phases *ph)
{
	uint64_t off = gpa - c->gpa, t0;
	int r;

	c->detail[0] = 0;
	if (gpa < c->gpa || off + len > c->slot_size || !len)
		return conv_why(c, -EINVAL, "range outside the private slot");
	if (c->mode == MODE_GMEM)	/* its record is always the handler's */
		return host_gmem_convert(c, off, len, to_private, ph);
	if (with_record) {
		t0 = rdtsc();
		r = __vm_set_sw_private(c->vm, gpa, len, to_private);
		ph->record = rdtsc() - t0;
		if (r)
			return conv_why(c, r, "KVM_SET_SW_PRIVATE_RANGE");
	}
	if (c->mode == MODE_INPLACE)
		return in_place(c, off, len, to_private, ph);
	return destructive(c, off, len, to_private, ph);
}

void host_conv_corrupt(struct conv_ctx *c, uint64_t gpa, uint64_t xor)
{
	volatile uint64_t *w = (uint64_t *)(c->shared + (gpa - c->gpa));

	*w ^= xor;
}
