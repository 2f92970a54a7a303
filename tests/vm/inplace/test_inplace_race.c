// SPDX-License-Identifier: GPL-2.0
/*
 * The in-place fd under a vCPU that writes a shared page without pause,
 * through the mapping KVM faulted from the fd itself (the slot's
 * userspace mapping here is not the fd at all, so no host unmapping
 * reaches that entry):
 *
 *   zero   the host converts the page to private with ZERO; the vCPU's
 *          first write after it exits (a shared access to a private
 *          page), and the page must then hold zeros only: a write that
 *          went through after the clear would survive it
 *          (kernel/patches: the conversion zaps KVM's mappings first)
 *   punch  the host punches the page again and again while the vCPU's
 *          writes fill the hole again (KVM's lookup of a shared offset
 *          allocates): every punch must succeed, none fail with EAGAIN,
 *          which means a page that stays referenced (kernel/patches: a
 *          punch holds off refills)
 *
 * Skips (exit 4) without the in-place variant.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "inplace.h"
#include "inplace_check.h"
#include "kvm_stats.h"
#include "kvm_util.h"
#include "tap.h"

#define TEST_NAME	"test_inplace_race"
#define PAGE		GUEST_PAGE_SIZE
#define GPA		0x40000000ULL
#define PG		9
#define ROUNDS		20
#define PUNCHES		100
#define PUNCH_PG	64
#define PUNCH_PAGES	64

static struct kvm_vm *vm;
static struct kvm_vcpu *vcpu;
static int fd;

/* passes over the page so far (slot 0: the host reads the guest's copy) */
static volatile uint64_t hammer_passes;

/* write a word every stride bytes of [gpa, gpa + bytes), forever: only an exit stops it */
static GUEST_CODE void guest_hammer(uint64_t gpa, uint64_t bytes,
				    uint64_t stride)
{
	uint64_t n = 1, i;

	for (;;) {
		for (i = 0; i < bytes; i += stride)
			guest_write64(gpa + i, n++);
		hammer_passes++;
	}
}

/* the guest's pass count (0 when it cannot be read) */
static uint64_t passes(void)
{
	volatile uint64_t *p = __addr_gpa2hva(vm, (uintptr_t)&hammer_passes);

	return p ? *p : 0;
}

static GUEST_CODE void guest_nonzero(uint64_t gpa)
{
	/* words that are not 0 */
	GUEST_SYNC(guest_count_mismatch64((void *)gpa, 0, PAGE));
	GUEST_DONE();
}

/* pages [pg, pg + n), written a word every stride bytes */
struct hammer {
	uint64_t pg, n, stride;
	atomic_bool stopping;	/* the conversion that stops it is under way */
	int r;
	uint32_t exit_reason;
	uint64_t gpa;
};

static void *hammer_main(void *arg)
{
	struct hammer *h = arg;
	uint64_t args[3] = { GPA + h->pg * PAGE, h->n * PAGE, h->stride };

	h->r = __vcpu_set_entry(vcpu, guest_hammer);
	if (!h->r)
		h->r = __vcpu_args_set(vcpu, 3, args);
	/* the vCPU's timeout bounds only the wait for the exit that stops it */
	while (!h->r) {
		h->r = __vcpu_run(vcpu);
		if (h->r == -ETIMEDOUT && !atomic_load(&h->stopping))
			h->r = 0;
		else
			break;
	}
	h->exit_reason = vcpu->run->exit_reason;
	h->gpa = kvm_run_memory(vcpu->run)->gpa;
	return NULL;
}

/* the pages shared, the vCPU writing them: 0, or -errno with why */
static int hammer_start(struct hammer *h, pthread_t *t, char *why, size_t len)
{
	uint64_t p0, waited;
	int r;

	r = memfd_convert(fd, h->pg * PAGE, h->n * PAGE,
			  INPLACE_TO_SHARED | INPLACE_PRESERVE, NULL);
	if (!r)
		r = __vm_set_sw_private(vm, GPA + h->pg * PAGE, h->n * PAGE,
					false);
	p0 = passes();
	if (r || pthread_create(t, NULL, hammer_main, h)) {
		snprintf(why, len, "setup: %s", strerror(r ? -r : EAGAIN));
		return -EIO;
	}
	/* go on only once the vCPU writes the page, as long as it takes */
	for (waited = 0; passes() < p0 + 2 && waited < 10000; waited++)
		usleep(1000);
	if (passes() < p0 + 2) {
		/* stop it: the conversion makes its next write exit */
		atomic_store(&h->stopping, true);
		memfd_convert(fd, h->pg * PAGE, h->n * PAGE,
			      INPLACE_TO_PRIVATE | INPLACE_ZERO, NULL);
		pthread_join(*t, NULL);
		snprintf(why, len, "the vCPU did not write the page within 10 s");
		return -EIO;
	}
	return 0;
}

/*
 * Convert the pages to private (ZERO): the vCPU's next write exits. 0 when
 * it exited as it should, the pages recorded private; -errno with why
 */
static int hammer_stop(struct hammer *h, pthread_t t, char *why, size_t len)
{
	uint64_t gpa = GPA + h->pg * PAGE;
	int r;

	atomic_store(&h->stopping, true);
	r = memfd_convert(fd, h->pg * PAGE, h->n * PAGE,
			  INPLACE_TO_PRIVATE | INPLACE_ZERO, NULL);

	pthread_join(t, NULL);
	if (r) {
		snprintf(why, len, "convert to private, ZERO: %s", strerror(-r));
		return -EIO;
	}
	if (h->r != -EFAULT || h->exit_reason != KVM_EXIT_MEMORY_ERROR ||
	    h->gpa < gpa || h->gpa >= gpa + h->n * PAGE) {
		snprintf(why, len, "the writing vCPU: KVM_RUN %s, exit %s at %#llx (want EFAULT, KVM_EXIT_MEMORY_ERROR at %#llx)",
			 h->r ? strerror(-h->r) : "0", exit_reason_str(h->exit_reason),
			 (unsigned long long)h->gpa, (unsigned long long)gpa);
		return -EIO;
	}
	r = __vm_set_sw_private(vm, gpa, h->n * PAGE, true);
	if (r)
		snprintf(why, len, "record private: %s", strerror(-r));
	return r;
}

/* one round: the number of nonzero words after the conversion, or -errno */
static long zero_once(unsigned int i, char *why, size_t len)
{
	struct timespec ts = { 0, (1 + i % 4) * 100000L };
	struct hammer h = { .pg = PG, .n = 1, .stride = 8 };
	struct ucall uc = { 0 };
	pthread_t t;
	int r;

	r = hammer_start(&h, &t, why, len);
	if (r)
		return r;
	nanosleep(&ts, NULL);
	r = hammer_stop(&h, t, why, len);
	if (!r)
		r = guest_call3(guest_nonzero, GPA + PG * PAGE, 0, 0, &uc);
	if (r) {
		if (!why[0])
			snprintf(why, len, "reading the page back: %s", strerror(-r));
		return -EIO;
	}
	return (long)uc.args[0];
}

static void test_zero(void)
{
	unsigned int i, dirty = 0;
	long n = 0, worst = 0;
	char why[256] = "";

	for (i = 0; i < ROUNDS && n >= 0; i++) {
		n = zero_once(i, why, sizeof(why));
		if (n > 0) {
			dirty++;
			worst = n > worst ? n : worst;
		}
	}
	if (n < 0)
		tap_result(false, "zero: round %u: %s", i, why);
	else
		tap_result(!dirty,
			   "zero: %u conversions to private with ZERO under a vCPU writing the page through a mapping faulted from the fd: %u left guest writes in the page (at most %ld words of %llu)",
			   i, dirty, worst, PAGE / 8);
}

static void test_punch(void)
{
	struct timespec ts = { 0, 200000L };
	unsigned int i, again = 0, other = 0;
	struct hammer h = { .pg = PUNCH_PG, .n = PUNCH_PAGES, .stride = PAGE };
	char why[256] = "";
	uint64_t p0, refills, pf0 = 0, pf1 = 0;
	struct kvm_stats st;
	int r, first = 0;
	pthread_t t;

	/* the stats fd before KVM_RUN: a vCPU ioctl waits for KVM_RUN to end */
	r = kvm_stats_open(&st, vcpu->fd);
	if (r) {
		tap_result(false, "punch: the vCPU's statistics: %s", strerror(-r));
		return;
	}
	r = hammer_start(&h, &t, why, sizeof(why));
	if (r) {
		kvm_stats_close(&st);
		tap_result(false, "punch: %s", why);
		return;
	}
	p0 = passes();
	if (!kvm_stats_read(&st))
		kvm_stats_get(&st, "pf_taken", &pf0);
	for (i = 0; i < PUNCHES; i++) {
		r = __private_punch_hole(fd, h.pg * PAGE, h.n * PAGE);
		if (r == -EAGAIN)
			again++;
		else if (r && !other++)
			first = r;
		nanosleep(&ts, NULL);
	}
	refills = passes() - p0;
	if (!kvm_stats_read(&st))
		kvm_stats_get(&st, "pf_taken", &pf1);
	kvm_stats_close(&st);
	r = hammer_stop(&h, t, why, sizeof(why));
	/*
	 * the race was met: the vCPU refilled the hole after most punches
	 * (under TCG it does not always run between two of them: 98 of 100
	 * once, on the debug kernel)
	 */
	tap_result(!r && !again && !other && pf1 - pf0 >= PUNCHES / 2,
		   "punch: %u punches of %u shared pages that a vCPU keeps writing (it went on for %llu passes, %llu faults): %u failed with EAGAIN, %u otherwise (%s)%s%s",
		   PUNCHES, PUNCH_PAGES, (unsigned long long)refills,
		   (unsigned long long)(pf1 - pf0), again, other,
		   first ? strerror(-first) : "none",
		   r ? "; " : "", r ? why : "");
}

int main(void)
{
	struct vm_mem_opts o = {
		.slot = 1, .flags = KVM_MEM_PRIVATE, .gpa = GPA, .size = SZ_2M,
		.backing = VM_BACKING_ANON,
	};
	int r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	require_series(TEST_NAME, true);
	fd = memfd_inaccessible_create("convbench-race", SZ_2M);
	o.private_fd = fd;
	r = fd < 0 ? fd : __private_fallocate(fd, 0, SZ_2M);
	if (!r)
		r = __vm_create(&vm, NULL);
	if (!r)
		r = __vm_vcpu_add(vm, 0, guest_nonzero, &vcpu);
	/* the slot's userspace mapping is anonymous memory, not the fd */
	if (!r)
		r = __vm_mem_add(vm, &o, NULL);
	if (!r)
		r = __vm_set_sw_private(vm, GPA, SZ_2M, true);
	tap_result(!r, "VM with an in-place slot whose userspace mapping is not the fd (%s)",
		   r ? strerror(-r) : "ok");
	if (r)
		return tap_finish(true);
	vcpu_set_timeout(vcpu, 20000);
	guest_checks_init(vcpu);

	test_zero();
	test_punch();
	kvm_vm_free(vm);
	close(fd);
	return tap_finish(true);
}
