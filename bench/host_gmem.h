/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --mode=gmem's side of host_conv.h: guest_memfd on a software-protected
 * VM, converted as QEMU does (host_gmem.c). host_conv.c calls these with
 * the context it set up (VM, slot geometry, the anonymous shared part);
 * they fill in c->fd (the guest_memfd) and c->detail on failure.
 */
#ifndef CONVBENCH_HOST_GMEM_H
#define CONVBENCH_HOST_GMEM_H

#include <stdbool.h>
#include <stdint.h>

struct conv_ctx;
struct host_phases;

/* guest_memfd, the slot, every range of c->size at each stride private */
int host_gmem_init(struct conv_ctx *c, uint32_t slot, uint64_t stride);
/* implicit trigger: the guest's accesses to [gpa, + size) change kind */
int host_gmem_flip(struct conv_ctx *c, uint64_t gpa, bool to_private);
/* convert [off, + len) of the slot: attributes, then punch or discard */
int host_gmem_convert(struct conv_ctx *c, uint64_t off, uint64_t len,
		      bool to_private, struct host_phases *ph);

#endif /* CONVBENCH_HOST_GMEM_H */
