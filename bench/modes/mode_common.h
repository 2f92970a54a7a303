/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the modes' files share (mode_common.c): the slot's shared part,
 * and the v5 series' private slot (destructive and in place): its fd,
 * its software record of private gfns and the kernel it needs.
 */
#ifndef CONVBENCH_MODE_COMMON_H
#define CONVBENCH_MODE_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conv_mode.h"

/*
 * The shared part, 2M aligned: anonymous memory, or with map_fd the
 * private fd itself (in place: the shared page is the private page).
 */
int conv_map_shared(struct conv_ctx *c, bool map_fd);

/* v5: the private fd, the shared part and the KVM_MEM_PRIVATE slot */
int v5_init(struct conv_ctx *c, uint32_t slot, uint64_t stride, bool map_fd);
/* v5: the guest's intent for [gpa, + c->size), the record only */
int v5_flip(struct conv_ctx *c, uint64_t gpa, bool to_private);
/* v5: the record of [gpa, + len), timed into ph->record */
int v5_record(struct conv_ctx *c, uint64_t gpa, uint64_t len,
	      bool to_private, struct host_phases *ph);
/* v5: the series' capabilities, or which kernel has them */
int v5_supported(enum conv_mode m, char *why, size_t len);

#endif /* CONVBENCH_MODE_COMMON_H */
