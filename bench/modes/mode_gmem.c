// SPDX-License-Identifier: GPL-2.0
/*
 * --mode=gmem: what upstream merged
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
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "kvm_gmem.h"
#include "mode_common.h"

static int gmem_init(struct conv_ctx *c, uint32_t slot, uint64_t stride)
{
	uint64_t off;
	int r = conv_map_shared(c, false);

	if (r)
		return conv_why(c, r, "mmap of the shared part");
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

static int gmem_flip(struct conv_ctx *c, uint64_t gpa, bool to_private)
{
	uint64_t attrs = (to_private ? 0 : GMEM_ATTR_PRIVATE) |
			 GMEM_ATTR_SW_ACCESS_FLIP;
	int r = __vm_set_memory_attributes(c->vm, gpa, c->size, attrs);

	return r ? conv_why(c, r, "KVM_SET_MEMORY_ATTRIBUTES with the access flip") : 0;
}

/* its record is always the handler's: the attributes (no .record) */
static int gmem_convert(struct conv_ctx *c, uint64_t gpa, uint64_t off,
			uint64_t len, bool to_private, struct host_phases *ph)
{
	uint64_t t0 = rdtsc(), t1;
	int r;

	(void)gpa;
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

/*
 * Each mode runs on one of the project's two kernels: say which when
 * this one lacks what the mode needs (exit 4 in convbench)
 */
static int gmem_mode_supported(enum conv_mode m, enum conv_trigger t,
			       char *why, size_t len)
{
	struct vm_opts opts = { .type = GMEM_X86_SW_PROTECTED_VM };
	struct kvm_vm *vm = NULL;
	long long attrs;
	int r = gmem_supported(why, len);

	(void)m;
	if (r) {
		snprintf(why + strlen(why), len - strlen(why), "; --mode=gmem "
			 "runs in the 6.12 kernel (make kernel-gmem, "
			 "FLAVOUR=gmem)");
		return r;
	}
	if (t != TRIGGER_IMPLICIT)
		return 0;
	r = __vm_create(&vm, &opts);
	attrs = r ? r : __vm_gmem_attributes(vm);
	kvm_vm_free(vm);
	if (attrs < 0) {
		snprintf(why, len, "creating a software-protected VM: %s",
			 strerror((int)-attrs));
		return (int)attrs;
	}
	if (!(attrs & GMEM_ATTR_SW_ACCESS_FLIP)) {
		snprintf(why, len, "--trigger=implicit needs a software-protected "
			 "guest that can access memory as the other kind "
			 "(KVM_MEMORY_ATTRIBUTE_SW_ACCESS_FLIP, "
			 "kernel/patches-6.12 0001): this 6.12 kernel lacks it");
		return -ENOTSUP;
	}
	return 0;
}

const struct conv_mode_ops mode_gmem = {
	.supported = gmem_mode_supported,
	.vm_type = GMEM_X86_SW_PROTECTED_VM,
	.init = gmem_init,
	.flip = gmem_flip,
	.convert = gmem_convert,
};
