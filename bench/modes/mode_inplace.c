// SPDX-License-Identifier: GPL-2.0
/*
 * --mode=inplace: our variant of the series. The slot's shared part is
 * the VMM's MAP_SHARED mapping of the private fd itself and a conversion
 * only changes who may access the page (MEMFD_IOC_CONVERT_RANGE,
 * bench/kvm/inplace.h): nothing is freed, allocated or copied.
 */
#include <stdio.h>

#include "inplace.h"
#include "mode_common.h"

static int in_place(struct conv_ctx *c, uint64_t gpa, uint64_t off,
		    uint64_t len, bool to_private, struct host_phases *ph)
{
	unsigned int flags = (to_private ? INPLACE_TO_PRIVATE : INPLACE_TO_SHARED) |
			     (c->preserve ? INPLACE_PRESERVE : INPLACE_ZERO);
	uint64_t t0 = rdtsc(), busy = 0;
	unsigned int tries = 0;
	int r;

	(void)gpa;
	/* convbench fails on a pin; convstress waits its pins out */
	while ((r = memfd_convert(c->fd, off, len, flags, &busy)) ==
	       -MEMFD_CONVERT_BUSY_ERRNO && c->retry &&
	       c->retry(c, CONV_BUSY_PIN, ++tries))
		;
	ph->mem = rdtsc() - t0;
	if (r == -MEMFD_CONVERT_BUSY_ERRNO)
		snprintf(c->detail, sizeof(c->detail),
			 " (MEMFD_IOC_CONVERT_RANGE: page at offset %#llx is pinned)",
			 (unsigned long long)busy);
	else if (r)
		conv_why(c, r, "MEMFD_IOC_CONVERT_RANGE");
	return r;
}

static int inplace_init(struct conv_ctx *c, uint32_t slot, uint64_t stride)
{
	return v5_init(c, slot, stride, true);
}

static int inplace_mode_supported(enum conv_mode m, enum conv_trigger t,
				  char *why, size_t len)
{
	int r = v5_supported(m, why, len);

	(void)t;
	if (r)
		return r;
	if (kvm_check_cap(KVM_CAP_PRIVATE_MEM_INPLACE) <= 0) {
		snprintf(why, len, "this kernel does not offer in-place conversion "
			 "(no KVM_CAP_PRIVATE_MEM_INPLACE)");
		return -ENOTSUP;
	}
	return 0;
}

const struct conv_mode_ops mode_inplace = {
	.supported = inplace_mode_supported,
	.vm_type = GMEM_X86_DEFAULT_VM,
	.shared_is_private = true,
	.flip_is_record = true,
	.init = inplace_init,
	.flip = v5_flip,
	.record = v5_record,
	.convert = in_place,
};
