// SPDX-License-Identifier: GPL-2.0
/* convstress, the attackers of the vCPUs' ranges: pins, forbidden reads, compaction (convstress.h) */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "convstress.h"
#include "inplace.h"
#include "inplace_check.h"
#include "stress_host.h"
#include "verdict.h"

/* ------------------------------------------------------------------ */
/* attackers of the vCPUs' ranges                                      */

/* vmsplice and O_DIRECT pins of in-place pages, short and random */
void *pin_main(void *arg)
{
	uint64_t rng = hseed ^ 0x70696e73ULL, p, off;
	struct stress_slot *sl = &st.slot[STRESS_SLOT_I];
	uint64_t npages = sl->guest_bytes / PAGE;
	int pfd[2];
	ssize_t n;

	(void)arg;
	pthread_setname_np(pthread_self(), "pin");
	while (!atomic_load(&st.stop)) {
		struct iovec iov;

		p = stress_rand(&rng) % npages;
		iov.iov_base = sl->shared + p * PAGE;
		iov.iov_len = PAGE;
		if ((stress_rand(&rng) & 1) && st.loop_fd >= 0) {
			off = (stress_rand(&rng) % (st.loop_size / PAGE)) * PAGE;
			/* the device reads the page, pinned during the I/O */
			n = pwrite(st.loop_fd, iov.iov_base, PAGE, off);
			stress_count(&st, n == PAGE ? C_PIN_ODIRECT : C_PIN_REFUSED, 1);
		} else if (!pipe(pfd)) {
			n = vmsplice(pfd[1], &iov, 1, SPLICE_F_NONBLOCK);
			stress_count(&st, n == PAGE ? C_PIN_VMSPLICE : C_PIN_REFUSED, 1);
			sleep_us(stress_rand(&rng) % 2000);
			close(pfd[0]);
			close(pfd[1]);
		}
		sleep_us(stress_rand(&rng) % 1000);
	}
	return NULL;
}

/* reads and loads of the vCPUs' private pages must be refused */
void *forbid_main(void *arg)
{
	uint64_t rng = hseed ^ 0x666f7262ULL, buf[PAGE / 8];
	unsigned int s;
	uint64_t p;
	ssize_t n;
	int err, probe;

	(void)arg;
	pthread_setname_np(pthread_self(), "forbid");
	while (!atomic_load(&st.stop)) {
		struct stress_slot *sl;
		enum sv_forbid v;
		bool shared;

		s = stress_rand(&rng) & 1;
		sl = &st.slot[s];
		p = stress_rand(&rng) % (sl->guest_bytes / PAGE);
		pthread_rwlock_rdlock(&sl->lock);
		/* the fd's state: destructive conversions never share it */
		shared = sl->inplace && sl->shadow[p];
		n = pread(sl->fd, buf, PAGE, p * PAGE);
		err = errno;
		/* a load only of a private page: a shared one may be a hole */
		probe = shared ? 0 : stress_probe_read(sl->fdmap + p * PAGE,
						       0, 8, NULL);
		v = sv_forbid_check(shared, n, err, probe, PAGE);
		pthread_rwlock_unlock(&sl->lock);
		if (v == SV_FORBID_PRIVATE_READ)
			stress_fail(&st, "pread of private page %llu of slot %c: %zd (%s), want EPERM",
				    (unsigned long long)p, s ? 'I' : 'D', n,
				    n < 0 ? strerror(err) : "it read the page");
		else if (v == SV_FORBID_PRIVATE_LOAD)
			stress_fail(&st, "a load of private page %llu of slot %c went through",
				    (unsigned long long)p, s ? 'I' : 'D');
		else if (v == SV_FORBID_SHARED_READ)
			stress_fail(&st, "pread of shared page %llu of slot I: %zd (%s)",
				    (unsigned long long)p, n,
				    n < 0 ? strerror(err) : "short");
		if (v != SV_FORBID_OK)
			break;
		stress_count(&st, shared ? C_SHARED_READ : C_FORBID_READ, 1);
		if (!shared)
			stress_count(&st, C_FORBID_TOUCH, 1);
		sleep_us(stress_rand(&rng) % 500);
	}
	return NULL;
}

/* the host's mm moves and drops what it may */
void *mm_main(void *arg)
{
	uint64_t rng = hseed ^ 0x6d6dULL, t;

	(void)arg;
	pthread_setname_np(pthread_self(), "mm");
	while (!atomic_load(&st.stop)) {
		t = now_us() + 500000 + stress_rand(&rng) % 2000000;
		while (!atomic_load(&st.stop) && now_us() < t)
			sleep_us(50000);
		if (atomic_load(&st.stop))
			break;
		if (stress_rand(&rng) % 4) {
			if (write_file("/proc/sys/vm/compact_memory", "1"))
				stress_count(&st, C_COMPACT, 1);
		} else if (write_file("/proc/sys/vm/drop_caches", "3")) {
			stress_count(&st, C_DROP_CACHES, 1);
		}
	}
	return NULL;
}
