/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the VMM does for one conversion, per mode, as a table of
 * operations: each mode is one file (mode_destructive.c, mode_inplace.c,
 * mode_gmem.c) with one struct conv_mode_ops, and host_conv.c holds the
 * table and the calls the cell engine and convstress make. A fourth
 * mode is a new file, a row of the table and its name in lib/vocab.
 *
 * A conversion updates the record of which gfns are private, then
 * changes the memory (destructive: punch a hole or allocate in the
 * private fd and drop the stale shared page; in place: ask the memfd to
 * change the range's owner; gmem: set the memory attributes, punch the
 * guest_memfd or drop the shared page), timed in phases.
 */
#ifndef CONVBENCH_CONV_MODE_H
#define CONVBENCH_CONV_MODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cell_types.h"
#include "gmem_uapi.h"
#include "kvm_util.h"

/* host TSC deltas of one conversion (summed over its exits) */
struct host_phases {
	uint32_t exits;
	uint64_t handler;	/* exit returned .. KVM_RUN called again */
	uint64_t record;
	uint64_t mem;
	uint64_t release;
};

/* what a retry hook is asked about (conv_ctx.retry) */
enum conv_busy {
	CONV_BUSY_PUNCH,	/* a punch met a page still referenced (EAGAIN) */
	CONV_BUSY_PIN,		/* an in-place conversion met a pinned page */
};

struct conv_ctx {
	struct kvm_vm *vm;
	enum conv_mode mode;
	bool preserve;
	bool huge;		/* 2M-aligned sizes: THP for the shared part */
	/*
	 * conversions of any sub-range (churn): a to-private releases the
	 * shared backing of exactly its range, never of the rest of a 2M
	 */
	bool exact;
	int fd;			/* the private MFD_INACCESSIBLE fd, or guest_memfd */
	uint64_t gpa;		/* slot base */
	uint64_t slot_size;
	uint64_t size;		/* one conversion */
	uint8_t *shared;	/* shared part of the slot (hva) */
	void *map_base;		/* what to munmap */
	size_t map_size;
	/*
	 * try a busy conversion again (tries: how many failed so far)?
	 * NULL: convbench's rule, a punch up to 100 times, a pin never
	 */
	bool (*retry)(struct conv_ctx *c, enum conv_busy why, unsigned int tries);
	char detail[256];	/* why the last operation failed */
};

/* err, with what failed noted in c->detail (every mode's files) */
static inline int conv_why(struct conv_ctx *c, int err, const char *what)
{
	snprintf(c->detail, sizeof(c->detail), " (%s)", what);
	return err;
}

struct conv_mode_ops {
	/*
	 * whether this kernel offers the mode with trigger t: 0, or -errno
	 * with why[] saying what is missing and which kernel has it
	 */
	int (*supported)(enum conv_mode m, enum conv_trigger t, char *why,
			 size_t len);
	/* the VM type it needs (vm_opts.type) */
	int vm_type;
	/* the slot's shared part is the private fd itself (guest_args.inplace) */
	bool shared_is_private;
	/*
	 * implicit trigger: the flip is the record update, the exit's work
	 * (timed); else only a stand-in for the guest's bit (gmem)
	 */
	bool flip_is_record;
	/* the private fd and the slot, every range of c->size at each stride private */
	int (*init)(struct conv_ctx *c, uint32_t slot, uint64_t stride);
	/* implicit trigger: the guest's intent for [gpa, + c->size) */
	int (*flip)(struct conv_ctx *c, uint64_t gpa, bool to_private);
	/*
	 * the record of [gpa, + len), timed into ph->record, when the
	 * conversion comes with it; NULL: convert always updates its own
	 */
	int (*record)(struct conv_ctx *c, uint64_t gpa, uint64_t len,
		      bool to_private, struct host_phases *ph);
	/* change the memory of [gpa, + len), at offset off of the slot */
	int (*convert)(struct conv_ctx *c, uint64_t gpa, uint64_t off,
		       uint64_t len, bool to_private, struct host_phases *ph);
};

/* the table: one row per mode of lib/vocab.h */
extern const struct conv_mode_ops *const conv_modes[MODE_NR];

/* conv_modes[m]->supported() */
int mode_supported(enum conv_mode m, enum conv_trigger t, char *why,
		   size_t len);

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

#endif /* CONVBENCH_CONV_MODE_H */
