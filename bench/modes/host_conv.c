// SPDX-License-Identifier: GPL-2.0
/*
 * The VMM's side of a conversion: the table of modes (conv_mode.h) and
 * what the cell engine and convstress call, each mode's operation
 * behind the checks they share.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "conv_mode.h"

extern const struct conv_mode_ops mode_destructive, mode_inplace, mode_gmem;

const struct conv_mode_ops *const conv_modes[MODE_NR] = {
	[MODE_DESTRUCTIVE] = &mode_destructive,
	[MODE_INPLACE] = &mode_inplace,
	[MODE_GMEM] = &mode_gmem,
};

int mode_supported(enum conv_mode m, enum conv_trigger t, char *why,
		   size_t len)
{
	return conv_modes[m]->supported(m, t, why, len);
}

int host_conv_init(struct conv_ctx *c, struct kvm_vm *vm, uint32_t slot,
		   const struct cell_params *p, uint64_t gpa,
		   uint64_t slot_size, uint64_t stride)
{
	memset(c, 0, sizeof(*c));
	c->vm = vm;
	c->mode = p->mode;
	c->preserve = p->preserve;
	c->huge = !(p->size % SZ_2M);
	c->gpa = gpa;
	c->slot_size = slot_size;
	c->size = p->size;
	c->fd = -1;
	return conv_modes[c->mode]->init(c, slot, stride);
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
	return conv_modes[c->mode]->flip(c, gpa, to_private);
}

int host_conv_convert(struct conv_ctx *c, uint64_t gpa, uint64_t len,
		      bool to_private, bool with_record,
		      struct host_phases *ph)
{
	const struct conv_mode_ops *m = conv_modes[c->mode];
	uint64_t off = gpa - c->gpa;
	int r;

	c->detail[0] = 0;
	if (gpa < c->gpa || off + len > c->slot_size || !len)
		return conv_why(c, -EINVAL, "range outside the private slot");
	if (with_record && m->record) {
		r = m->record(c, gpa, len, to_private, ph);
		if (r)
			return r;
	}
	return m->convert(c, gpa, off, len, to_private, ph);
}

void host_conv_corrupt(struct conv_ctx *c, uint64_t gpa, uint64_t xor)
{
	volatile uint64_t *w = (uint64_t *)(c->shared + (gpa - c->gpa));

	*w ^= xor;
}
