// SPDX-License-Identifier: GPL-2.0
/*
 * Setting up a private slot while its fd changes (kernel/patches: the
 * notifier is registered only once the slot is prepared; private slots
 * need the TDP MMU):
 *
 *   storm      a host thread fallocates, punches and converts the fd
 *              while the main thread creates private slots over it that
 *              succeed and that fail in preparation (a gpa beyond the
 *              largest gfn): every result is the expected one, and the
 *              kernel reports nothing (KASAN in the debug kernel; the
 *              VM runner fails the suite on a report)
 *   unbound    a slot creation that failed does not bind the fd to that
 *              VM: another VM's slot on the same fd is accepted
 *   no TDP MMU a VM created without the TDP MMU (kvm.tdp_mmu=N, set for
 *              that VM only when the boot has it on) has no
 *              KVM_CAP_PRIVATE_MEM and refuses KVM_MEM_PRIVATE with
 *              EINVAL; before the fix it accepted them, and the storm's
 *              notifications reached its slots before their rmaps existed
 *
 * In a boot with kvm.tdp_mmu=0 only the refusal is checked. Skips (exit
 * 4) without the series, unless CONVBENCH_REQUIRE_SERIES is set.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

#include "inplace.h"
#include "kvm_util.h"
#include "tap.h"
#include "tdp_mmu.h"

#define TEST_NAME	"test_private_setup"
#define FD_SIZE		(4 * SZ_2M)
#define GOOD_GPA	0x40000000ULL
#define BAD_GPA		(1ULL << 51)	/* beyond any x86 max gfn of 6.1 */
#define STORM_S		3

static char *shared;			/* shared part of every slot */
static int fd;
static atomic_bool stop;
static atomic_ulong storm_ops, storm_errs;
static int storm_err;			/* first unexpected errno */
static bool inplace;

static const char *err_name(int err)
{
	const char *n = strerrorname_np(err);

	return err ? (n ? n : "?") : "success";
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* the attacker: every fd change notifies the slots over the offsets */
static void *storm_main(void *arg)
{
	uint64_t rng = 0x73746f726d21ULL, off, len;
	int r;

	(void)arg;
	while (!atomic_load(&stop)) {
		rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
		off = ((rng >> 33) % (FD_SIZE / SZ_2M)) * SZ_2M;
		len = SZ_2M;
		switch ((rng >> 20) % (inplace ? 3 : 2)) {
		case 0:
			r = __private_fallocate(fd, off, len);
			break;
		case 1:
			r = __private_punch_hole(fd, off, len);
			break;
		default:
			r = memfd_convert(fd, off, len, (rng & 1 ?
					  INPLACE_TO_SHARED : INPLACE_TO_PRIVATE) |
					  INPLACE_ZERO, NULL);
			break;
		}
		/* EAGAIN: a page stays referenced for a moment, fine */
		if (r && r != -EAGAIN && !storm_errs++)
			storm_err = -r;
		storm_ops++;
	}
	return NULL;
}

static int set_private(struct kvm_vm *vm, uint32_t slot, uint64_t gpa,
		       uint64_t size, uint64_t offset)
{
	return __vm_set_private_memory_region(vm, slot, KVM_MEM_PRIVATE, gpa,
					      size, shared, fd, offset);
}

static int delete_slot(struct kvm_vm *vm, uint32_t slot, uint64_t gpa)
{
	return __vm_set_user_memory_region(vm, slot, 0, gpa, 0, shared);
}

/*
 * For STORM_S seconds: slots that fail (beyond the largest gfn) and slots
 * that succeed and are deleted again, over the offsets the storm changes.
 * want_ok: what a good slot gets (0; -EINVAL without the TDP MMU).
 */
static void create_under_storm(struct kvm_vm *vm, int want_ok, const char *what)
{
	unsigned long good = 0, bad = 0, wrong = 0;
	int r, r_bad = 0, r_good = 0, r_del = 0;
	double end = now_s() + STORM_S;
	pthread_t t;

	atomic_store(&stop, false);
	storm_ops = storm_errs = 0;
	if (pthread_create(&t, NULL, storm_main, NULL)) {
		tap_result(false, "%s: storm thread", what);
		return;
	}
	while (now_s() < end) {
		r = set_private(vm, 1, BAD_GPA, SZ_2M, SZ_2M);
		if (r != -EINVAL && !wrong++)
			r_bad = r;
		if (!r)
			delete_slot(vm, 1, BAD_GPA);
		bad++;
		r = set_private(vm, 1, GOOD_GPA, FD_SIZE, 0);
		if (r != want_ok && !wrong++)
			r_good = r;
		if (!r) {
			r = delete_slot(vm, 1, GOOD_GPA);
			if (r && !wrong++)
				r_del = r;
		}
		good++;
	}
	atomic_store(&stop, true);
	pthread_join(t, NULL);
	tap_result(!wrong && !storm_errs,
		   "%s: %lu slots beyond the largest gfn (EINVAL), %lu over the fd (%s) while the fd changed %lu times: %lu unexpected (%s, %s, delete %s), %lu failed fd changes (%s)",
		   what, bad, good, want_ok ? err_name(-want_ok) : "created and deleted",
		   (unsigned long)storm_ops, wrong, err_name(-r_bad),
		   err_name(-r_good), err_name(-r_del),
		   (unsigned long)storm_errs, err_name(storm_err));
}

/* a failed creation binds nothing: another VM takes the fd */
static void test_unbound(void)
{
	struct kvm_vm *a = NULL, *b = NULL;
	int fd2 = memfd_inaccessible_create("convbench-setup-unbound", SZ_2M);
	int r1 = -1, r2 = -1, r;

	r = fd2 < 0 ? fd2 : __vm_create(&a, NULL);
	if (!r)
		r = __vm_create(&b, NULL);
	if (!r) {
		r1 = __vm_set_private_memory_region(a, 1, KVM_MEM_PRIVATE,
						    BAD_GPA, SZ_2M, shared,
						    fd2, 0);
		r2 = __vm_set_private_memory_region(b, 1, KVM_MEM_PRIVATE,
						    GOOD_GPA, SZ_2M, shared,
						    fd2, 0);
	}
	tap_result(!r && r1 == -EINVAL && !r2,
		   "a slot creation that failed (%s) leaves the fd unbound: another VM's slot on it is accepted (%s)",
		   err_name(-r1), r ? err_name(-r) : err_name(-r2));
	if (a)
		kvm_vm_free(a);
	if (b)
		kvm_vm_free(b);
	if (fd2 >= 0)
		close(fd2);
}

/* a VM without the TDP MMU: no private memory, said how */
static void check_refused(struct kvm_vm *vm, const char *how)
{
	int cap = __vm_check_cap(vm, KVM_CAP_PRIVATE_MEM);
	int r = set_private(vm, 1, GOOD_GPA, FD_SIZE, 0);

	tap_result(cap == 0 && r == -EINVAL,
		   "without the TDP MMU (%s): KVM_CAP_PRIVATE_MEM %d (want 0), a KVM_MEM_PRIVATE slot %s (want EINVAL)",
		   how, cap, err_name(-r));
	if (!r) {
		/* the old kernel took it: show what the storm does there */
		delete_slot(vm, 1, GOOD_GPA);
		create_under_storm(vm, 0, "the slot was accepted without the TDP MMU; storm");
	}
}

/* a VM of its own without the TDP MMU, on an fd of its own */
static void test_no_tdp_mmu(void)
{
	struct kvm_vm *vm = NULL;
	int r = tdp_mmu_set(false), saved = fd;

	if (r) {
		tap_skip(err_name(-r), "without the TDP MMU: kvm.tdp_mmu cannot be set here");
		return;
	}
	r = __vm_create(&vm, NULL);
	tdp_mmu_set(true);
	fd = memfd_inaccessible_create("convbench-setup-shadow", FD_SIZE);
	if (r || fd < 0) {
		tap_result(false, "a VM without the TDP MMU and an fd (%s)",
			   err_name(r ? -r : -fd));
	} else {
		check_refused(vm, "kvm.tdp_mmu=N for this VM");
		close(fd);
	}
	if (vm)
		kvm_vm_free(vm);
	fd = saved;
}

int main(void)
{
	struct kvm_vm *vm = NULL;
	int r, cap, tdp = tdp_mmu_param();

	setvbuf(stdout, NULL, _IOLBF, 0);
	r = kvm_open_dev();
	if (r < 0)
		tap_no_series(TEST_NAME, true, "no /dev/kvm (%s)", err_name(-r));
	close(r);
	shared = mmap(NULL, FD_SIZE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	fd = memfd_inaccessible_create("convbench-setup", FD_SIZE);
	r = shared == MAP_FAILED ? -ENOMEM : fd < 0 ? fd : __vm_create(&vm, NULL);
	if (r) {
		tap_result(false, "VM and an MFD_INACCESSIBLE fd (%s)", err_name(-r));
		return tap_finish(true);
	}
	cap = __vm_check_cap(vm, KVM_CAP_PRIVATE_MEM);

	if (tdp == 0) {
		/* a boot with kvm.tdp_mmu=0: the refusal is the whole test */
		tap_diag("kvm.tdp_mmu is off in this boot");
		check_refused(vm, "kvm.tdp_mmu=0");
		kvm_vm_free(vm);
		return tap_finish(true);
	}
	if (cap <= 0)
		tap_no_series(TEST_NAME, true,
			      "KVM_CHECK_EXTENSION(KVM_CAP_PRIVATE_MEM) is %d: kernel lacks the series",
			      cap);
	inplace = __vm_check_cap(vm, KVM_CAP_PRIVATE_MEM_INPLACE) > 0;

	create_under_storm(vm, 0, "with the TDP MMU");
	test_unbound();
	kvm_vm_free(vm);
	test_no_tdp_mmu();
	close(fd);
	return tap_finish(true);
}
