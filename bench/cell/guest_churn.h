/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Guest/host contract of the churn workload (--workload=churn): each
 * vCPU owns a large range, private at the start, and runs a seeded
 * sequence of conversions of sub-ranges whose sizes follow a weighted
 * mix and whose offsets are random (4K-aligned; a size class of 2M or
 * more aligned to 2M). An operation converts its whole sub-range to the
 * opposite of the state of its first page (pages already in that state
 * keep theirs), then writes every page of it and verifies the data of
 * every page it converted. The guest stops at marks, where the host
 * reads what the kernel holds huge: mark 0 before the range is first
 * touched (the baseline of slot 0's mappings), then before every
 * `interval`-th operation (the first after the whole range is written
 * private) and, before the first interval ends, before operations 1,
 * 2, 4, 8 ..., and after the last.
 */
#ifndef CONVBENCH_GUEST_CHURN_H
#define CONVBENCH_GUEST_CHURN_H

#include <stdint.h>

#include "cell_types.h"
#include "guest_conv.h"

/* first argument of the UCALL_SYNC of a mark: op index, mark index */
#define GUEST_SYNC_CHURN_MARK	0x4d41524b
/*
 * --workload=split: make [gpa, + len) whole again: the host punches it
 * out of the private fd (the guest then writes it, and the kernel
 * allocates it afresh, huge where it can); op index, gpa, len
 */
#define GUEST_SYNC_CHURN_RESET	0x52534554

/*
 * --workload=io: request op of strategy (GUEST_IO_*) for the device:
 * op, gpa of the data (the pool or the buffer, shared now), bytes; the
 * device checks every word against io_word(op, page, 0) and answers
 * with io_word(op, page, 1)
 */
#define GUEST_SYNC_IO_REQ	0x494f5251
/* --workload=io: an exit that does nothing (the cell's null exit) */
#define GUEST_SYNC_IO_NULL	0x494f4e55
/* --workload=io: the device's answer at gpa is wrong: op, gpa, got, want */
#define GUEST_SYNC_IO_BAD	0x494f4244

enum { GUEST_IO_BOUNCE, GUEST_IO_SHARE, GUEST_IO_NR };

/* the words of request op's page `page` (in its data): sent or answered */
static inline GUEST_CODE uint64_t io_word(uint64_t op, uint64_t page,
					  int answer)
{
	return ((op + 1) * 0x9e3779b97f4a7c15ULL ^ (page << 8) ^
		(answer ? 0xa5a5a5a5a5a5a5a5ULL : 0x0101)) | 1;
}

#define GUEST_IO_NO_BAD	CHURN_IO_NO_BAD

/* one operation, as the guest timed it */
struct churn_sample {
	uint64_t op;
	uint32_t cls;		/* index into the mix */
	uint32_t dir;		/* GUEST_DIR_*; io: GUEST_IO_* */
	uint64_t off;		/* bytes into the vCPU's range */
	uint64_t converted;	/* pages whose state changed */
	uint64_t total;		/* guest TSC: request .. range usable */
	uint64_t copied;	/* bytes the guest copied (aside and back) */
	/* split events: touching the rest of the range after the split */
	uint64_t rest;
};

struct churn_args {
	/* first: what the cell engine's watchdog and threads read */
	struct guest_args a;
	uint64_t ops;		/* operations in the sequence */
	uint64_t interval;	/* operations between marks */
	uint32_t nclasses;
	uint64_t cls_size[CHURN_CLASSES];
	uint32_t cls_weight[CHURN_CLASSES];	/* out of their sum */
	/* guest memory: one byte of state per 4K page (1: shared) */
	uint8_t *state;
	/* the value each page of the range holds (guest memory) */
	uint64_t *value;
	struct churn_sample *samples;	/* ops entries */
	uint64_t scratch_size;	/* a.scratch's: the largest class (copies) */
	uint32_t events;	/* --workload=split */
	uint32_t accept;	/* --workload=accept */
	uint32_t io;		/* --workload=io */
	/* --inject=io-guest@K: the guest sends request K with a wrong word */
	uint64_t io_bad;
};

void guest_churn_main(struct churn_args *c);

#endif /* CONVBENCH_GUEST_CHURN_H */
