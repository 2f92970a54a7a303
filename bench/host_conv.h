/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the VMM does for one conversion, per mode: update the
 * software-private record, change the memory (destructive: punch a hole
 * or allocate in the private fd and drop the stale shared page; in
 * place: ask the memfd to change the range's owner; gmem: set the
 * memory attributes, punch the guest_memfd or drop the shared page,
 * host_gmem.h), timed in phases.
 */
#ifndef CONVBENCH_HOST_CONV_H
#define CONVBENCH_HOST_CONV_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "kvm_util.h"
#include "workload.h"

/* host TSC deltas of one conversion (summed over its exits) */
struct host_phases {
	uint32_t exits;
	uint64_t handler;	/* exit returned .. KVM_RUN called again */
	uint64_t record;
	uint64_t mem;
	uint64_t release;
};

struct conv_ctx {
	struct kvm_vm *vm;
	enum conv_mode mode;
	bool preserve;
	bool huge;		/* 2M-aligned sizes: THP for the shared part */
	int fd;			/* the private MFD_INACCESSIBLE fd, or guest_memfd */
	uint64_t gpa;		/* slot base */
	uint64_t slot_size;
	uint64_t size;		/* one conversion */
	uint8_t *shared;	/* shared part of the slot (hva) */
	void *map_base;		/* what to munmap */
	size_t map_size;
	char detail[256];	/* why the last operation failed */
};

/* err, with what failed noted in c->detail (both modes' files) */
static inline int conv_why(struct conv_ctx *c, int err, const char *what)
{
	snprintf(c->detail, sizeof(c->detail), " (%s)", what);
	return err;
}

/*
 * Create the private fd and the slot (slot id, gpa, slot_size), with
 * every range of `size` bytes at each `stride` private and allocated.
 */
int host_conv_init(struct conv_ctx *c, struct kvm_vm *vm, uint32_t slot,
		   const struct cell_params *p, uint64_t gpa,
		   uint64_t slot_size, uint64_t stride);
void host_conv_destroy(struct conv_ctx *c);

/*
 * implicit trigger: the guest's intent for [gpa, + size), record only
 * (gmem: the access-kind flip; the attributes stay)
 */
int host_conv_flip(struct conv_ctx *c, uint64_t gpa, bool to_private);

/*
 * convert [gpa, + len); with_record also updates the record first (gmem
 * always does: the attributes are its record)
 */
int host_conv_convert(struct conv_ctx *c, uint64_t gpa, uint64_t len,
		      bool to_private, bool with_record,
		      struct host_phases *ph);

/*
 * --inject=corrupt: flip bits (xor) of the 8-byte word at gpa in the
 * shared part, which must be shared now (a page the guest will read)
 */
void host_conv_corrupt(struct conv_ctx *c, uint64_t gpa, uint64_t xor);

#endif /* CONVBENCH_HOST_CONV_H */
