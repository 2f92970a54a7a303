// SPDX-License-Identifier: GPL-2.0
/*
 * Guest side of the conversion workload. Runs in the guest (long mode,
 * identity map, no libc): fills its range with a per-page pattern, asks
 * for a conversion, makes the range usable again (copying the data back
 * when it must survive a destructive conversion, then touching every
 * page with a write access), verifies every word, and stores the
 * timings and the bytes it copied in a sample array the host reads
 * afterwards.
 *
 * Host and guest agree on the order of conversions: to-shared then
 * to-private, for every iteration; conversion k = 2 * iteration + dir.
 */
#include "guest_conv.h"

static inline GUEST_CODE uint64_t page_value(uint64_t val, uint64_t page)
{
	return val ^ (page * 0x9e3779b97f4a7c15ULL);
}

static GUEST_CODE void guest_fill(const struct guest_args *a, uint64_t val)
{
	uint64_t off;

	for (off = 0; off < a->size; off += GUEST_CONV_PAGE)
		guest_fill64((void *)(a->base + off),
			     page_value(val, off / GUEST_CONV_PAGE),
			     GUEST_CONV_PAGE);
}

/* every word of every page, untimed; reports the first bad word */
static GUEST_CODE void guest_verify(const struct guest_args *a, uint64_t val,
				    bool zero, uint64_t k)
{
	uint64_t off, i;

	for (off = 0; off < a->size; off += GUEST_CONV_PAGE) {
		const volatile uint64_t *w = (void *)(a->base + off);
		uint64_t want = zero ? 0 : page_value(val, off / GUEST_CONV_PAGE);

		for (i = 0; i < GUEST_CONV_PAGE / 8; i++) {
			uint64_t got = w[i];

			if (got != want) {
				guest_ucall(UCALL_SYNC, GUEST_SYNC_BAD, k,
					    a->base + off + i * 8, got, want, 0);
				guest_halt();
			}
		}
	}
}

/*
 * One timed conversion of the whole range in direction dir. The range
 * holds the pattern of val before; afterwards it holds it again
 * (preserve) or zeroes.
 */
static GUEST_CODE void guest_convert(struct guest_args *a, uint32_t dir,
				     uint64_t val, uint64_t k, bool record,
				     uint64_t slot)
{
	struct guest_sample *s = &a->samples[slot];
	bool copy = a->preserve && !a->inplace;
	uint64_t t0, t1, t2, t3, first = 0, off;
	uint64_t attrs = dir == GUEST_DIR_TO_SHARED ?
			 KVM_MAP_GPA_RANGE_DECRYPTED :
			 KVM_MAP_GPA_RANGE_ENCRYPTED;
	uint64_t ret;

	t0 = guest_rdtsc();
	if (copy)
		guest_copy64((void *)a->scratch, (void *)a->base, a->size);
	t1 = guest_rdtsc();
	if (a->implicit) {
		/*
		 * The record flip stands in for flipping the TDX shared bit
		 * in the guest's page table, which costs no exit: this
		 * round trip is left out. The record update itself (zap,
		 * TLB flush) belongs to the memory-error exit on TDX: the
		 * host adds its time to the sample. The access below then
		 * faults.
		 */
		guest_ucall(UCALL_SYNC, GUEST_SYNC_FLIP, k, dir, 0, 0, 0);
	} else {
		ret = guest_map_gpa_range(a->base, a->size / GUEST_CONV_PAGE,
					  attrs);
		if (ret)
			guest_ucall(UCALL_SYNC, GUEST_SYNC_HCFAIL, k, ret, 0,
				    0, 0);
	}
	t2 = guest_rdtsc();
	if (copy)
		guest_copy64((void *)a->base, (void *)a->scratch, a->size);
	/*
	 * Touch every page with a write access: the range is usable once
	 * every page is mapped writable (a read would map the zero page of
	 * an anonymous shared page and leave a fault to the next write).
	 */
	for (off = 0; off < a->size; off += GUEST_CONV_PAGE) {
		uint64_t want = a->preserve ?
				page_value(val, off / GUEST_CONV_PAGE) : 0;
		uint64_t got = guest_touch64(a->base + off);

		if (got != want) {
			guest_ucall(UCALL_SYNC, GUEST_SYNC_BAD, k, a->base + off,
				    got, want, 0);
			guest_halt();
		}
		if (!off)
			first = guest_rdtsc();
	}
	t3 = guest_rdtsc();

	if (record) {
		uint64_t flip = a->implicit ? t2 - t1 : 0;

		s->k = k;
		s->dir = dir;
		s->total = t3 - t0 - flip;
		s->first = first - t0 - flip;
		/* two back-to-back TSC reads are not a copy */
		s->copy = copy ? t1 - t0 : 0;
		s->copied = copy ? 2 * a->size : 0;
		s->exit_rt = t2 - t1 - flip;
		s->fault_in = t3 - t2;
	}
	guest_verify(a, val, !a->preserve, k);
}

/* a stalled guest as the host sees it: no exit, ever (--inject=hang) */
static GUEST_CODE void __attribute__((noreturn)) guest_spin(void)
{
	for (;;)
		asm volatile("pause" ::: "memory");
}

/*
 * The emulator's fixed costs on the conversion's own paths, in this VM:
 * a null exit (the hypercall's round trip through userspace, the host
 * doing nothing) and an NPT fault on an allocated page (KVM maps it,
 * no userspace). A hypercall that fails did not exit: no null exits.
 */
static GUEST_CODE void guest_calibrate(struct guest_args *a)
{
	uint64_t i, t0, t1, ret;

	for (i = 0; a->cal_gpa && i < GUEST_CAL_WARM + GUEST_CAL_N; i++) {
		t0 = guest_rdtsc();
		ret = guest_map_gpa_range(a->cal_gpa, 1,
					  KVM_MAP_GPA_RANGE_DECRYPTED);
		t1 = guest_rdtsc();
		if (ret) {
			a->cal_n[0] = 0;
			break;
		}
		if (i >= GUEST_CAL_WARM)
			a->cal[0][a->cal_n[0]++] = t1 - t0;
	}
	for (i = 0; a->cal_buf && i < GUEST_CAL_WARM + GUEST_CAL_N; i++) {
		t0 = guest_rdtsc();
		guest_touch64(a->cal_buf + i * GUEST_CAL_STRIDE);
		t1 = guest_rdtsc();
		if (i >= GUEST_CAL_WARM)
			a->cal[1][a->cal_n[1]++] = t1 - t0;
	}
}

GUEST_CODE void guest_conv_main(struct guest_args *a)
{
	uint64_t val = a->seed, it, k, nrec, p, end;
	uint32_t dir;

	/*
	 * Map the sample array now: its first write to a page would
	 * otherwise take an NPT fault (and a host fault) after some
	 * conversion, counted as that conversion's work.
	 */
	nrec = 2 * (a->max_iters - a->warmup);
	end = (uint64_t)(a->samples + (nrec < a->max_samples ? nrec :
				       a->max_samples));
	/* every page it spans: the array need not start on one */
	for (p = (uint64_t)a->samples; p < end;
	     p = (p & ~(GUEST_CONV_PAGE - 1)) + GUEST_CONV_PAGE)
		guest_write64(p & ~7ULL, 0);
	nrec = 0;
	guest_calibrate(a);
	guest_fill(a, val);
	for (it = 0; it < a->max_iters && !a->stop; it++) {
		bool record_it = it >= a->warmup;

		for (dir = 0; dir < GUEST_DIR_NR; dir++) {
			bool rec = record_it && (a->dir_mask & (1u << dir));

			k = 2 * it + dir;
			if (k == a->hang_k)
				guest_spin();
			if (rec && nrec >= a->max_samples)
				rec = false;
			guest_convert(a, dir, val, k, rec, nrec);
			nrec += rec;
			/* verified: the host may count it (also when stopped later) */
			a->nsamples = nrec;
			a->done_convs = k + 1;
			/* new content for the next conversion to carry */
			val = val * 6364136223846793005ULL + 1442695040888963407ULL;
			guest_fill(a, val);
		}
	}
	GUEST_DONE();
}

/*
 * --busy-vcpus: run, without exits, until the host says stop: read and
 * write the vCPU's buffer (a->base, a->size bytes of slot 0) page by
 * page, so that the vCPU is in guest mode with TLB entries to flush
 */
GUEST_CODE void guest_busy_main(struct guest_args *a)
{
	uint64_t off = 0;

	while (!a->stop) {
		guest_write64(a->base + off, guest_touch64(a->base + off) + 1);
		off = (off + GUEST_CONV_PAGE) % a->size;
		a->done_convs++;
	}
	GUEST_DONE();
}
