// SPDX-License-Identifier: GPL-2.0
/*
 * Guest side of the churn workload (guest_churn.h). Runs in the guest
 * (long mode, identity map, no libc). The sequence depends only on the
 * seed and the mix: the same seed replays the same operations.
 */
#include "guest_churn.h"

static inline GUEST_CODE uint64_t churn_next(uint64_t *s)
{
	/* xorshift64*: the sequence of operations */
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dULL;
}

static inline GUEST_CODE uint64_t churn_value(uint64_t op, uint64_t page)
{
	return (op + 1) * 0x9e3779b97f4a7c15ULL ^ (page << 1) ^ 0x5a5a;
}

/* every word of [first, first + n) pages holds its page's value */
static GUEST_CODE void churn_verify(struct churn_args *c, uint64_t op,
				    uint64_t first, uint64_t n)
{
	uint64_t p, i;

	for (p = first; p < first + n; p++) {
		const volatile uint64_t *w = (void *)(c->a.base +
						      p * GUEST_CONV_PAGE);

		for (i = 0; i < GUEST_CONV_PAGE / 8; i++)
			if (w[i] != c->value[p]) {
				guest_ucall(UCALL_SYNC, GUEST_SYNC_BAD, op,
					    (uint64_t)(uintptr_t)&w[i], w[i],
					    c->value[p], 0);
				guest_halt();
			}
	}
}

/* new content for [first, first + n) pages */
static GUEST_CODE void churn_fill(struct churn_args *c, uint64_t op,
				  uint64_t first, uint64_t n)
{
	uint64_t p;

	for (p = first; p < first + n; p++) {
		c->value[p] = churn_value(op, p);
		guest_fill64((void *)(c->a.base + p * GUEST_CONV_PAGE),
			     c->value[p], GUEST_CONV_PAGE);
	}
}

static GUEST_CODE uint32_t churn_class(struct churn_args *c, uint64_t *rng)
{
	uint64_t sum = 0, x;
	uint32_t i;

	for (i = 0; i < c->nclasses; i++)
		sum += c->cls_weight[i];
	x = churn_next(rng) % sum;
	for (i = 0; i + 1 < c->nclasses; i++) {
		if (x < c->cls_weight[i])
			return i;
		x -= c->cls_weight[i];
	}
	return i;
}

/*
 * Before a conversion of n pages at page first to target (untimed): the
 * pages whose state changes; without preserve (accept) those read
 * zeroes after, and their value becomes 0
 */
static GUEST_CODE uint64_t churn_count(struct churn_args *c, uint64_t first,
				       uint64_t n, uint8_t target)
{
	uint64_t p, converted = 0;

	for (p = first; p < first + n; p++) {
		converted += c->state[p] != target;
		if (!c->a.preserve && c->state[p] != target)
			c->value[p] = 0;
	}
	return converted;
}

/*
 * The timed part of a conversion of n pages at page first to target (1:
 * shared): the data kept (copied aside and back where the mode does not
 * keep it), then each page's first word checked against want[] (one
 * value per page, from page first)
 */
static GUEST_CODE void churn_convert(struct churn_args *c, uint64_t op,
				     uint64_t first, uint64_t n, uint8_t target,
				     const uint64_t *want)
{
	bool copy = c->a.preserve && !c->a.inplace;
	uint64_t off = first * GUEST_CONV_PAGE, size = n * GUEST_CONV_PAGE;
	uint64_t p, got, ret;

	if (copy)
		guest_copy64((void *)c->a.scratch, (void *)(c->a.base + off),
			     size);
	ret = guest_map_gpa_range(c->a.base + off, n,
				  target ? KVM_MAP_GPA_RANGE_DECRYPTED :
					   KVM_MAP_GPA_RANGE_ENCRYPTED);
	if (ret) {
		guest_ucall(UCALL_SYNC, GUEST_SYNC_HCFAIL, op, ret, 0, 0, 0);
		guest_halt();
	}
	if (copy)
		guest_copy64((void *)(c->a.base + off), (void *)c->a.scratch,
			     size);
	for (p = 0; p < n; p++) {
		got = guest_touch64(c->a.base + off + p * GUEST_CONV_PAGE);
		if (got != want[p]) {
			guest_ucall(UCALL_SYNC, GUEST_SYNC_BAD, op,
				    c->a.base + off + p * GUEST_CONV_PAGE, got,
				    want[p], 0);
			guest_halt();
		}
	}
}

/*
 * One timed conversion of n pages at page first to target: sample op;
 * the bookkeeping before and after it untimed, every page of the range
 * verified after
 */
static GUEST_CODE void churn_one(struct churn_args *c, uint64_t op,
				 uint32_t cls, uint64_t first, uint64_t n,
				 uint8_t target)
{
	bool copy = c->a.preserve && !c->a.inplace;
	uint64_t t0, t1, p, converted = churn_count(c, first, n, target);

	t0 = guest_rdtsc();
	churn_convert(c, op, first, n, target, c->value + first);
	t1 = guest_rdtsc();
	c->samples[op] = (struct churn_sample) {
		.op = op, .cls = cls,
		.dir = target ? GUEST_DIR_TO_SHARED : GUEST_DIR_TO_PRIVATE,
		.off = first * GUEST_CONV_PAGE, .converted = converted,
		.total = t1 - t0,
		.copied = copy ? 2 * n * GUEST_CONV_PAGE : 0,
	};
	for (p = first; p < first + n; p++)
		c->state[p] = target;
	churn_verify(c, op, first, n);
}

/*
 * --workload=split: events, two operations each: the range whole again
 * (untimed: the host punches it, the guest writes it), then class 0's
 * size at a random offset to shared (op 2e, the split) and back (op
 * 2e + 1, the range uniform again), with marks before the split, after
 * it, after the rest of the range is touched (timed: the split's
 * deferred faults, in the split's sample) and after the uniform
 */
static GUEST_CODE void churn_events(struct churn_args *c, uint64_t *mark)
{
	uint64_t rng = c->a.seed | 1, npages = c->a.size / GUEST_CONV_PAGE;
	uint64_t e, p, t0, n = c->cls_size[0] / GUEST_CONV_PAGE;

	for (e = 0; 2 * e + 1 < c->ops && !c->a.stop; e++) {
		uint64_t first = churn_next(&rng) % (npages - n + 1);

		guest_ucall(UCALL_SYNC, GUEST_SYNC_CHURN_RESET, 2 * e,
			    c->a.base, c->a.size, 0, 0);
		guest_fill64(c->state, 0, npages);
		churn_fill(c, 2 * e, 0, npages);
		guest_ucall(UCALL_SYNC, GUEST_SYNC_CHURN_MARK, 2 * e,
			    (*mark)++, 0, 0, 0);
		churn_one(c, 2 * e, 0, first, n, 1);
		guest_ucall(UCALL_SYNC, GUEST_SYNC_CHURN_MARK, 2 * e,
			    (*mark)++, 0, 0, 0);
		/* the rest of the range, touched after the split: its faults */
		t0 = guest_rdtsc();
		for (p = 0; p < npages; p++)
			if (p < first || p >= first + n)
				guest_touch64(c->a.base + p * GUEST_CONV_PAGE);
		c->samples[2 * e].rest = guest_rdtsc() - t0;
		guest_ucall(UCALL_SYNC, GUEST_SYNC_CHURN_MARK, 2 * e + 1,
			    (*mark)++, 0, 0, 0);
		churn_one(c, 2 * e + 1, 0, first, n, 0);
		guest_ucall(UCALL_SYNC, GUEST_SYNC_CHURN_MARK, 2 * e + 2,
			    (*mark)++, 0, 0, 0);
		c->a.nsamples = 2 * e + 2;
		c->a.done_convs = 2 * e + 2;
	}
}

/*
 * --workload=accept: op 0 makes the range shared (setup), then ops 1 ..
 * chunks to private chunk by chunk (accept), then as many back to shared
 * (pool); marks before the first sweep, between and after the second
 */
static GUEST_CODE void churn_accept(struct churn_args *c, uint64_t *mark)
{
	uint64_t npages = c->a.size / GUEST_CONV_PAGE;
	uint64_t n = c->cls_size[0] / GUEST_CONV_PAGE, chunks = npages / n;
	uint64_t op = 0, k;
	uint8_t target;

	churn_fill(c, ~0ULL, 0, npages);
	churn_one(c, op++, 0, 0, npages, 1);
	for (target = 0; target < 2 && !c->a.stop; target++) {
		guest_ucall(UCALL_SYNC, GUEST_SYNC_CHURN_MARK, op, (*mark)++,
			    0, 0, 0);
		for (k = 0; k < chunks && !c->a.stop; k++) {
			churn_one(c, op, 0, k * n, n, target);
			c->a.nsamples = ++op;
			c->a.done_convs = op;
		}
	}
	guest_ucall(UCALL_SYNC, GUEST_SYNC_CHURN_MARK, op, (*mark)++, 0, 0, 0);
}

/*
 * --workload=io, request op of class cls by strategy t: the payload is
 * written into the buffer (the range's first n pages) and the words
 * expected back noted (untimed: the application's work), then, timed,
 * sent and answered: bounce copies it into the pool (shared since the
 * start), exits to the device and copies the answer back; share
 * converts the buffer to shared (the data kept), exits to the device,
 * which answers in the buffer, and converts it back to private (the
 * answer kept). Every word of the answer is checked after. value[] holds
 * the request's words from page 0 and the answer's from page npool (the
 * pool's pages, whose values nothing else reads).
 */
static GUEST_CODE void io_one(struct churn_args *c, uint64_t op, uint32_t cls,
			      uint32_t t, uint64_t n)
{
	uint64_t size = n * GUEST_CONV_PAGE, pool = c->a.base + c->scratch_size;
	uint64_t *answer = c->value + c->scratch_size / GUEST_CONV_PAGE;
	bool copy = c->a.preserve && !c->a.inplace;
	uint64_t p, i, t0, t1;

	for (p = 0; p < n; p++) {
		c->value[p] = io_word(op, p, 0);
		answer[p] = io_word(op, p, 1);
		guest_fill64((void *)(c->a.base + p * GUEST_CONV_PAGE),
			     c->value[p], GUEST_CONV_PAGE);
	}
	/* --inject=io-guest@K: a wrong word the device must find */
	if (op == c->io_bad)
		guest_write64(c->a.base + size - GUEST_CONV_PAGE + 8,
			      io_word(op, n - 1, 0) ^ 0x100);
	t0 = guest_rdtsc();
	if (t == GUEST_IO_BOUNCE) {
		guest_copy64((void *)pool, (void *)c->a.base, size);
		guest_ucall(UCALL_SYNC, GUEST_SYNC_IO_REQ, op, pool, size, 0, 0);
		guest_copy64((void *)c->a.base, (void *)pool, size);
	} else {
		churn_convert(c, op, 0, n, 1, c->value);
		guest_ucall(UCALL_SYNC, GUEST_SYNC_IO_REQ, op, c->a.base, size,
			    0, 0);
		churn_convert(c, op, 0, n, 0, answer);
	}
	t1 = guest_rdtsc();
	c->samples[op] = (struct churn_sample) {
		.op = op, .cls = cls, .dir = t,
		.converted = t == GUEST_IO_SHARE ? 2 * n : 0,
		.total = t1 - t0,
		.copied = t == GUEST_IO_BOUNCE ? 2 * size : copy ? 4 * size : 0,
	};
	for (p = 0; p < n; p++) {
		const volatile uint64_t *w = (void *)(c->a.base +
						      p * GUEST_CONV_PAGE);

		for (i = 0; i < GUEST_CONV_PAGE / 8; i++)
			if (w[i] != answer[p]) {
				guest_ucall(UCALL_SYNC, GUEST_SYNC_IO_BAD, op,
					    (uint64_t)(uintptr_t)&w[i], w[i],
					    answer[p], 0);
				guest_halt();
			}
	}
}

/*
 * --workload=io: first the cell's null exits (for times less their
 * exits), then the pool made shared (untimed: a swiotlb pool set up at
 * boot), then for every class, from the buffer whole again, ops requests
 * by each strategy in blocks of interval, bounce then share in even
 * blocks, share then bounce in odd ones, a mark before each block and
 * after the last
 */
static GUEST_CODE void churn_io(struct churn_args *c, uint64_t *mark)
{
	uint64_t pool = c->a.base + c->scratch_size;
	uint64_t npool = c->scratch_size / GUEST_CONV_PAGE;
	uint64_t op = 0, i, t0, t1, b, done, blk, r;
	uint32_t cls, h, t;

	for (i = 0; i < GUEST_CAL_WARM + GUEST_CAL_N; i++) {
		t0 = guest_rdtsc();
		guest_ucall(UCALL_SYNC, GUEST_SYNC_IO_NULL, 0, 0, 0, 0, 0);
		t1 = guest_rdtsc();
		if (i >= GUEST_CAL_WARM)
			c->a.cal[0][c->a.cal_n[0]++] = t1 - t0;
	}
	if (guest_map_gpa_range(pool, npool, KVM_MAP_GPA_RANGE_DECRYPTED)) {
		guest_ucall(UCALL_SYNC, GUEST_SYNC_HCFAIL, 0, 0, 0, 0, 0);
		guest_halt();
	}
	/*
	 * the pool and the buffer written once, untimed: a block's work
	 * counts are then its requests' own, not the buffer's first touch
	 */
	for (i = 0; i < npool; i++) {
		guest_write64(pool + i * GUEST_CONV_PAGE, 0);
		guest_write64(c->a.base + i * GUEST_CONV_PAGE, 0);
	}
	for (cls = 0; cls < c->nclasses && !c->a.stop; cls++) {
		/*
		 * Each size from the buffer as the first one found it: whole
		 * again, punched and allocated by the host and written, so
		 * that no size meets what the sizes before it left (folios
		 * split by smaller shares, a shared THP's untouched pages).
		 * Untimed, between a mark that ends the last size's last
		 * block and the next block's: no request, no block's work.
		 */
		if (cls) {
			guest_ucall(UCALL_SYNC, GUEST_SYNC_CHURN_MARK, op,
				    (*mark)++, 0, 0, 0);
			guest_ucall(UCALL_SYNC, GUEST_SYNC_CHURN_RESET, op,
				    c->a.base, c->scratch_size, 0, 0);
			for (i = 0; i < npool; i++)
				guest_write64(c->a.base + i * GUEST_CONV_PAGE, 0);
		}
		for (b = 0, done = 0; done < c->ops && !c->a.stop; b++) {
			blk = c->ops - done < c->interval ? c->ops - done :
							     c->interval;
			for (h = 0; h < GUEST_IO_NR && !c->a.stop; h++) {
				t = b % 2 ? GUEST_IO_NR - 1 - h : h;
				guest_ucall(UCALL_SYNC, GUEST_SYNC_CHURN_MARK,
					    op, (*mark)++, 0, 0, 0);
				for (r = 0; r < blk && !c->a.stop; r++) {
					io_one(c, op, cls, t,
					       c->cls_size[cls] / GUEST_CONV_PAGE);
					c->a.nsamples = ++op;
					c->a.done_convs = op;
				}
			}
			done += blk;
		}
	}
	guest_ucall(UCALL_SYNC, GUEST_SYNC_CHURN_MARK, op, (*mark)++, 0, 0, 0);
}

GUEST_CODE void guest_churn_main(struct churn_args *c)
{
	uint64_t rng = c->a.seed | 1, npages = c->a.size / GUEST_CONV_PAGE;
	uint64_t op, mark = 0, p;
	/* io: ops requests by each strategy of each class */
	uint64_t nsamp = c->io ? c->ops * GUEST_IO_NR * c->nclasses : c->ops;

	/*
	 * Slot 0's pages this workload writes, written now: mark 0 is the
	 * baseline of KVM's mappings, and later marks count the range's
	 */
	/* rep stosq, not a loop the compiler could make a libc call of */
	guest_fill64(c->state, 0, npages);
	guest_fill64(c->value, 0, npages * sizeof(*c->value));
	for (p = 0; p < nsamp * sizeof(*c->samples); p += GUEST_CONV_PAGE)
		guest_write64(((uint64_t)(uintptr_t)c->samples + p) & ~7ULL, 0);
	guest_write64((uint64_t)(uintptr_t)(c->samples + nsamp) - 8, 0);
	for (p = 0; p < c->scratch_size; p += GUEST_CONV_PAGE)
		guest_write64(c->a.scratch + p, 0);
	guest_ucall(UCALL_SYNC, GUEST_SYNC_CHURN_MARK, 0, mark++, 0, 0, 0);
	if (c->events || c->accept || c->io) {
		if (c->events)
			churn_events(c, &mark);
		else if (c->accept)
			churn_accept(c, &mark);
		else
			churn_io(c, &mark);
		GUEST_DONE();
		return;
	}
	/* the whole range private and written: mapped as the kernel can */
	churn_fill(c, ~0ULL, 0, npages);
	for (op = 0; op < c->ops && !c->a.stop; op++) {
		uint32_t cls = churn_class(c, &rng);
		uint64_t size = c->cls_size[cls];
		uint64_t align = size >= SZ_2M ? SZ_2M : GUEST_CONV_PAGE;
		uint64_t slots = (c->a.size - size) / align + 1;
		uint64_t off = churn_next(&rng) % slots * align;
		uint64_t first = off / GUEST_CONV_PAGE, n = size / GUEST_CONV_PAGE;

		/*
		 * a mark every interval, and at powers of two before the
		 * first: the start of the decay is where the shape is
		 */
		if (op % c->interval == 0 ||
		    (op < c->interval && !(op & (op - 1))))
			guest_ucall(UCALL_SYNC, GUEST_SYNC_CHURN_MARK, op,
				    mark++, 0, 0, 0);
		/* to the opposite of the first page's state */
		churn_one(c, op, cls, first, n, !c->state[first]);
		churn_fill(c, op, first, n);
		c->a.nsamples = op + 1;
		c->a.done_convs = op + 1;
	}
	guest_ucall(UCALL_SYNC, GUEST_SYNC_CHURN_MARK, op, mark, 0, 0, 0);
	GUEST_DONE();
}
