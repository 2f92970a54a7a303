// SPDX-License-Identifier: GPL-2.0
/*
 * convstress: a host thread that owns the host region of one private fd
 * (the offsets behind the vCPUs' ranges, inside the KVM slot, never
 * touched by the guest) and attacks and uses it as a VMM could: in-place
 * conversions (PRESERVE and ZERO), PUNCH_HOLE, fallocate, writes, pins
 * (vmsplice, O_DIRECT), mmap/munmap, and reads of private offsets that
 * must be refused. It owns the region alone, so it knows what every
 * offset must hold and checks it after every operation.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "inplace.h"
#include "stress_host.h"
#include "verdict.h"

#define PAGE		STRESS_PAGE
#define MAX_PINS	8
#define HR_MAX_ORDER	9

struct pin {
	uint64_t page;		/* region page pinned, ~0 when unused */
	int pipe[2];
};

struct hr {
	struct stress *st;
	struct stress_slot *sl;
	unsigned int slot;
	uint64_t rng;
	uint64_t first;		/* fd page of the region's first page */
	uint64_t npages;
	uint8_t *shared;	/* per page: 1 shared */
	uint64_t *want;		/* per page: the word it holds (0: zero/hole) */
	struct pin pins[MAX_PINS];
};

/* ------------------------------------------------------------------ */
/* SIGBUS, caught per thread                                           */

static __thread sigjmp_buf bus_jmp;
static __thread volatile sig_atomic_t bus_armed;

static void bus_handler(int sig)
{
	if (bus_armed)
		siglongjmp(bus_jmp, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

void stress_catch_sigbus(void)
{
	struct sigaction sa = { .sa_handler = bus_handler };

	sigaction(SIGBUS, &sa, NULL);
}

int stress_probe_read(const void *p, uint64_t want, uint64_t n, uint64_t *bad)
{
	const volatile uint64_t *w = p;
	uint64_t i, b = 0;

	if (sigsetjmp(bus_jmp, 1)) {
		bus_armed = 0;
		return -1;
	}
	bus_armed = 1;
	for (i = 0; i < n / 8; i++)
		b += w[i] != want;
	bus_armed = 0;
	if (bad)
		*bad = b;
	return 0;
}

int stress_probe_write(void *p, uint64_t val, uint64_t n)
{
	volatile uint64_t *w = p;
	uint64_t i;

	if (sigsetjmp(bus_jmp, 1)) {
		bus_armed = 0;
		return -1;
	}
	bus_armed = 1;
	for (i = 0; i < n / 8; i++)
		w[i] = val;
	bus_armed = 0;
	return 0;
}

/* ------------------------------------------------------------------ */

static uint64_t hr_rand(struct hr *h)
{
	return stress_rand(&h->rng);
}

static void *page_addr(struct hr *h, uint64_t p)
{
	return h->sl->fdmap + (h->first + p) * PAGE;
}

static bool fail(struct hr *h, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static bool fail(struct hr *h, const char *fmt, ...)
{
	char buf[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	stress_fail(h->st, "host region of slot %c: %s",
		    h->slot == STRESS_SLOT_D ? 'D' : 'I', buf);
	return false;
}

/* what page p of the region must look like to the host, now */
static bool check_page(struct hr *h, uint64_t p)
{
	uint64_t bad = 0, buf[PAGE / 8], i;
	off_t off = (h->first + p) * PAGE;
	ssize_t n;
	int err;

	if (!h->shared[p]) {
		n = pread(h->sl->fd, buf, PAGE, off);
		err = errno;
		if (!sv_private_io_refused(n, err))
			return fail(h, "pread of private page %llu: %zd (%s), want EPERM",
				    (unsigned long long)p, n,
				    n < 0 ? strerror(err) : "read");
		if (!sv_private_touch_refused(stress_probe_read(page_addr(h, p),
								0, 8, NULL)))
			return fail(h, "a load of private page %llu went through",
				    (unsigned long long)p);
		stress_count(h->st, C_FORBID_READ, 1);
		stress_count(h->st, C_FORBID_TOUCH, 1);
		return true;
	}
	if (hr_rand(h) & 1) {
		n = stress_probe_read(page_addr(h, p), h->want[p], PAGE, &bad) ?
		    -1 : (ssize_t)PAGE;
		if (n < 0)
			return fail(h, "shared page %llu raised SIGBUS",
				    (unsigned long long)p);
	} else {
		n = pread(h->sl->fd, buf, PAGE, off);
		err = errno;
		if (n != PAGE)
			return fail(h, "pread of shared page %llu: %zd (%s)",
				    (unsigned long long)p, n,
				    n < 0 ? strerror(err) : "short");
		for (i = 0; i < PAGE / 8; i++)
			bad += buf[i] != h->want[p];
	}
	if (!sv_shared_read_ok(n, PAGE, bad))
		return fail(h, "shared page %llu: %llu words are not %#llx",
			    (unsigned long long)p, (unsigned long long)bad,
			    (unsigned long long)h->want[p]);
	stress_count(h->st, C_HR_READ, 1);
	return true;
}

static bool check_range(struct hr *h, uint64_t first, uint64_t n)
{
	uint64_t p;

	for (p = first; p < first + n; p++)
		if (!check_page(h, p))
			return false;
	return true;
}

static bool pinned_block(struct hr *h, uint64_t first, uint64_t n)
{
	unsigned int i;

	/* a pin holds its whole folio, up to the 2M block around it */
	for (i = 0; i < MAX_PINS; i++) {
		uint64_t b = h->pins[i].page & ~511ULL;

		if (h->pins[i].page != ~0ULL && b < first + n && first < b + 512)
			return true;
	}
	return false;
}

static bool op_convert(struct hr *h, uint64_t first, uint64_t n)
{
	uint64_t r = hr_rand(h), busy = ~0ULL, p;
	bool to_shared = r & 1, zero = r & 2;
	unsigned int flags = (to_shared ? INPLACE_TO_SHARED : INPLACE_TO_PRIVATE) |
			     (zero ? INPLACE_ZERO : INPLACE_PRESERVE);
	int ret = memfd_convert(h->sl->fd, (h->first + first) * PAGE,
				n * PAGE, flags, &busy);

	if (ret == -MEMFD_CONVERT_BUSY_ERRNO) {
		if (to_shared || !pinned_block(h, first, n))
			return fail(h, "convert pages %llu+%llu flags %#x: busy at %#llx with no pin of ours near",
				    (unsigned long long)first,
				    (unsigned long long)n, flags,
				    (unsigned long long)busy);
		stress_count(h->st, C_HR_CONVERT_BUSY, 1);
		return check_range(h, first, n);	/* nothing changed */
	}
	if (ret)
		return fail(h, "convert pages %llu+%llu flags %#x: %s",
			    (unsigned long long)first, (unsigned long long)n,
			    flags, strerror(-ret));
	for (p = first; p < first + n; p++) {
		h->want[p] = stress_want_after(h->want[p], h->shared[p],
					       to_shared, !zero);
		h->shared[p] = to_shared;
	}
	stress_count(h->st, C_HR_CONVERT, 1);
	return check_range(h, first, n);
}

static bool op_punch_or_alloc(struct hr *h, uint64_t first, uint64_t n)
{
	bool punch = hr_rand(h) & 1;
	off_t off = (h->first + first) * PAGE;
	int r = punch ? fallocate(h->sl->fd, FALLOC_FL_PUNCH_HOLE |
				  FALLOC_FL_KEEP_SIZE, off, n * PAGE) :
			fallocate(h->sl->fd, 0, off, n * PAGE);
	uint64_t p;

	/* a pinned page keeps its folio: EAGAIN, the range cleared */
	if (r && punch && errno == EAGAIN && pinned_block(h, first, n))
		stress_count(h->st, C_HR_PUNCH_BUSY, 1);
	else if (r)
		return fail(h, "%s pages %llu+%llu: %s",
			    punch ? "PUNCH_HOLE" : "fallocate",
			    (unsigned long long)first, (unsigned long long)n,
			    strerror(errno));
	/* a hole reads as zeroes once shared; fallocate keeps content */
	if (punch)
		for (p = first; p < first + n; p++)
			h->want[p] = 0;
	stress_count(h->st, punch ? C_HR_PUNCH : C_HR_FALLOCATE, 1);
	return check_range(h, first, n);
}

static bool op_write(struct hr *h, uint64_t p)
{
	uint64_t val = hr_rand(h) | 1, buf[PAGE / 8], i;
	ssize_t n;

	if (!h->shared[p]) {
		for (i = 0; i < PAGE / 8; i++)
			buf[i] = val;
		n = pwrite(h->sl->fd, buf, PAGE, (h->first + p) * PAGE);
		if (!sv_private_io_refused(n, errno))
			return fail(h, "pwrite of private page %llu: %zd, want EPERM",
				    (unsigned long long)p, n);
		if (!sv_private_touch_refused(stress_probe_write(page_addr(h, p),
								 val, 8)))
			return fail(h, "a store to private page %llu went through",
				    (unsigned long long)p);
		stress_count(h->st, C_FORBID_TOUCH, 1);
		return true;
	}
	if (stress_probe_write(page_addr(h, p), val, PAGE))
		return fail(h, "a store to shared page %llu raised SIGBUS",
			    (unsigned long long)p);
	h->want[p] = val;
	stress_count(h->st, C_HR_WRITE, 1);
	return check_page(h, p);
}

static bool op_pin(struct hr *h, uint64_t p)
{
	struct pin *pin = &h->pins[hr_rand(h) % MAX_PINS];
	struct iovec iov = { page_addr(h, p), PAGE };

	if (pin->page != ~0ULL) {	/* drop it */
		close(pin->pipe[0]);
		close(pin->pipe[1]);
		pin->page = ~0ULL;
		return true;
	}
	if (!h->shared[p])
		return true;
	if (pipe(pin->pipe))
		return fail(h, "pipe: %s", strerror(errno));
	if (vmsplice(pin->pipe[1], &iov, 1, 0) != PAGE) {
		close(pin->pipe[0]);
		close(pin->pipe[1]);
		return fail(h, "vmsplice of shared page %llu: %s",
			    (unsigned long long)p, strerror(errno));
	}
	pin->page = p;
	stress_count(h->st, C_HR_PIN, 1);
	return true;
}

static bool op_odirect(struct hr *h, uint64_t p)
{
	uint64_t off;
	ssize_t n;

	if (h->st->loop_fd < 0)
		return true;
	off = (hr_rand(h) % (h->st->loop_size / PAGE)) * PAGE;
	/* the device reads the page: GUP pins it during the I/O */
	n = pwrite(h->st->loop_fd, page_addr(h, p), PAGE, off);
	if (!sv_odirect_ok(h->shared[p], n, PAGE) && h->shared[p])
		return fail(h, "O_DIRECT write from shared page %llu: %zd (%s)",
			    (unsigned long long)p, n,
			    n < 0 ? strerror(errno) : "short");
	if (!sv_odirect_ok(h->shared[p], n, PAGE))
		return fail(h, "O_DIRECT write from private page %llu: %zd bytes went through",
			    (unsigned long long)p, n);
	stress_count(h->st, h->shared[p] ? C_HR_ODIRECT : C_FORBID_READ, 1);
	return true;
}

static bool op_mmap(struct hr *h, uint64_t first, uint64_t n)
{
	uint8_t *m = mmap(NULL, n * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED,
			  h->sl->fd, (h->first + first) * PAGE);
	uint64_t p, bad = 0;
	bool ok = true;

	if (m == MAP_FAILED)
		return fail(h, "mmap of pages %llu+%llu: %s",
			    (unsigned long long)first, (unsigned long long)n,
			    strerror(errno));
	for (p = first; ok && p < first + n; p++) {
		int r = stress_probe_read(m + (p - first) * PAGE, h->want[p],
					  PAGE, &bad);

		if (h->shared[p] && !sv_shared_read_ok(r ? -1 : (ssize_t)PAGE,
						       PAGE, bad))
			ok = fail(h, "fresh mapping of shared page %llu: %s",
				  (unsigned long long)p,
				  r ? "SIGBUS" : "wrong content");
		else if (!h->shared[p] && !sv_private_touch_refused(r))
			ok = fail(h, "fresh mapping of private page %llu: a load went through",
				  (unsigned long long)p);
	}
	munmap(m, n * PAGE);
	stress_count(h->st, C_HR_MMAP, 1);
	return ok;
}

void *stress_host_region(void *arg)
{
	struct hr_arg *a = arg;
	struct hr h = {
		.st = a->st, .sl = &a->st->slot[a->slot], .slot = a->slot,
		.rng = a->seed,
	};
	unsigned int i;
	bool ok = true;

	pthread_setname_np(pthread_self(), a->slot == STRESS_SLOT_D ? "hr-D" : "hr-I");
	h.first = h.sl->guest_bytes / PAGE;
	h.npages = (h.sl->size - h.sl->guest_bytes) / PAGE;
	h.shared = calloc(h.npages, 1);
	h.want = calloc(h.npages, sizeof(*h.want));
	for (i = 0; i < MAX_PINS; i++)
		h.pins[i].page = ~0ULL;
	if (!h.shared || !h.want) {
		stress_fail(h.st, "host region: out of memory");
		ok = false;
	}
	/* the region starts private and allocated with zeroes */
	while (ok && !atomic_load(&h.st->stop)) {
		uint64_t r = hr_rand(&h);
		uint32_t order = (r >> 8) % (HR_MAX_ORDER + 1);
		uint64_t n = 1ULL << order;
		uint64_t first = (hr_rand(&h) % (h.npages >> order)) << order;
		uint64_t p = first + (hr_rand(&h) % n);

		switch (r % 8) {
		case 0:
		case 1:
			ok = op_convert(&h, first, n);
			break;
		case 2:
			ok = op_punch_or_alloc(&h, first, n);
			break;
		case 3:
			ok = op_write(&h, p);
			break;
		case 4:
			ok = check_page(&h, p);
			break;
		case 5:
			ok = op_pin(&h, p);
			break;
		case 6:
			ok = op_odirect(&h, p);
			break;
		case 7:
			ok = op_mmap(&h, first, n > 16 ? 16 : n);
			break;
		}
	}
	for (i = 0; i < MAX_PINS; i++)
		if (h.pins[i].page != ~0ULL) {
			close(h.pins[i].pipe[0]);
			close(h.pins[i].pipe[1]);
		}
	free(h.shared);
	free(h.want);
	return NULL;
}
