// SPDX-License-Identifier: GPL-2.0
/*
 * --mode=destructive: the v5 series as posted (and QEMU's
 * kvm_convert_memory()). private->shared punches a hole in the private
 * fd, so the guest's next access gets a fresh zeroed shared page;
 * shared->private drops the shared page (no double memory) and
 * allocates a fresh zeroed private one.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <sys/mman.h>

#include "mode_common.h"

/* punches of one conversion before EAGAIN counts as a failure */
#define PUNCH_TRIES	100

static bool punch_again(struct conv_ctx *c, unsigned int tries)
{
	return c->retry ? c->retry(c, CONV_BUSY_PUNCH, tries) :
			  tries < PUNCH_TRIES;
}

static int destructive(struct conv_ctx *c, uint64_t gpa, uint64_t off,
		       uint64_t len, bool to_private, struct host_phases *ph)
{
	uint64_t t0 = rdtsc(), t1;
	unsigned int tries = 0;
	int r;

	(void)gpa;
	if (!to_private) {
		/*
		 * The kernel fails a punch with EAGAIN while a page of the
		 * range stays referenced (kernel/patches 0019), the range
		 * cleared: nothing of ours pins private pages, so punch
		 * again; a page cache walker's reference is gone by then.
		 */
		while ((r = __private_punch_hole(c->fd, off, len)) == -EAGAIN &&
		       punch_again(c, ++tries))
			;
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
	 * Not so where conversions take any sub-range (churn): the rest
	 * of that 2M may be shared and in use.
	 */
	if (c->huge && !c->exact) {
		uint64_t end = (off + len + SZ_2M - 1) & ~(SZ_2M - 1);

		off &= ~(SZ_2M - 1);
		len = end - off;
	}
	r = madvise(c->shared + off, len, MADV_DONTNEED) ? -errno : 0;
	ph->release = rdtsc() - t1;
	return r ? conv_why(c, r, "madvise(MADV_DONTNEED) of the shared part") : 0;
}

static int destructive_init(struct conv_ctx *c, uint32_t slot, uint64_t stride)
{
	return v5_init(c, slot, stride, false);
}

static int destructive_supported(enum conv_mode m, enum conv_trigger t,
				 char *why, size_t len)
{
	(void)t;
	return v5_supported(m, why, len);
}

const struct conv_mode_ops mode_destructive = {
	.supported = destructive_supported,
	.vm_type = GMEM_X86_DEFAULT_VM,
	.flip_is_record = true,
	.init = destructive_init,
	.flip = v5_flip,
	.record = v5_record,
	.convert = destructive,
};
