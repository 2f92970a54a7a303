// SPDX-License-Identifier: GPL-2.0
/*
 * The software private/shared record and KVM's 2M mappings. A 2M
 * mapping covers 512 gfns: KVM may install one only where all of them
 * are of one kind, or a guest access to one gfn goes to the other kind's
 * page without an exit.
 *
 *   shared 2M over a private gfn    gfn 1 recorded private, the rest
 *        shared and backed by a host THP: a shared touch of gfn 0 must
 *        not map 2M, and the guest's access to gfn 1 must exit
 *   private 2M over a shared gfn    a private huge folio, gfn 5 recorded
 *        shared: a private touch of gfn 0 must not map 2M, and the
 *        guest's shared access to gfn 5 must exit
 *   uniform blocks still map 2M     (so the check costs nothing where
 *        it is not needed)
 *   record cost                     a 2M record update costs no more
 *        than twice a 4K one (the record is kept as ranges)
 *   record bounds                   a record of 2^52 bytes returns at
 *        once and a task in the ioctl dies on SIGKILL
 *
 * KVM's own statistics (pages_2m, pages_4k of the VM's stats fd) say
 * which mapping level KVM installed.
 */
#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "inplace_check.h"
#include "kvm_stats.h"
#include "kvm_util.h"
#include "tap.h"

#define TEST_NAME	"test_private_2m"
#define PAGE		GUEST_PAGE_SIZE
#define SLOT_A		1		/* shared-over-private case */
#define GPA_A		0x40000000ULL
#define SLOT_B		2		/* private-over-shared case */
#define GPA_B		0x40200000ULL
#define NOSLOT_GPA	0x80000000ULL	/* mapped by the guest, in no slot */
#define P_GUEST		0x4755455354575254ULL	/* "GUESTWRT" */
#define P_SHARED	0x5348415245440000ULL	/* "SHARED" */
#define KPF_THP		22		/* /proc/kpageflags */
#define COST_ROUNDS	300

static struct kvm_vm *vm;
static struct kvm_vcpu *vcpu;
static int fd_a, fd_b;
static char *hva_a, *hva_b;
static uint64_t scratch;		/* a page of slot 0 */

static uint64_t stat_vm(const char *name)
{
	uint64_t v = ~0ULL;

	kvm_stat_once(vm->fd, name, &v);
	return v;
}

static bool record(uint64_t gpa, uint64_t size, bool private)
{
	return record_range(vm, gpa, size, private);
}

/* zap everything KVM maps of the slot and count from a clean state */
static bool rezap(uint64_t gpa)
{
	return record(gpa, SZ_2M, true) && record(gpa, SZ_2M, false);
}

static void test_shared_over_private(void)
{
	uint64_t gfn1 = GPA_A + PAGE, m2, bad = 0, i;
	const uint64_t *shared1 = (const uint64_t *)(hva_a + PAGE);
	bool thp, ok;

	/* the host's shared memory: one THP */
	ok = check(!madvise(hva_a, SZ_2M, MADV_HUGEPAGE), "madvise: %s",
		   strerror(errno));
	for (i = 0; i < SZ_2M / 8; i++)
		((uint64_t *)hva_a)[i] = P_SHARED | (i * 8 / PAGE);
	thp = kpageflags(host_pfn(hva_a)) & (1ULL << KPF_THP);

	ok &= rezap(GPA_A) && record(gfn1, PAGE, true);
	m2 = stat_vm("pages_2m");
	ok &= guest_sees(GPA_A, P_SHARED, "shared gfn 0 next to a private gfn");
	ok &= check(stat_vm("pages_2m") == m2,
		    "a shared touch of gfn 0 mapped 2M (pages_2m %llu -> %llu) over private gfn 1",
		    (unsigned long long)m2,
		    (unsigned long long)stat_vm("pages_2m"));
	/* a private hole: a private access must exit for the VMM */
	ok &= guest_exits(gfn1, KVM_MEMORY_EXIT_FLAG_PRIVATE,
			  "private gfn 1 inside a shared 2M block");
	for (i = 0; i < PAGE / 8; i++)
		bad += shared1[i] != (P_SHARED | 1);
	ok &= check(!bad, "%llu words of the shared page behind gfn 1 changed",
		    (unsigned long long)bad);

	/* all shared again (and nothing mapped): 2M is fine with a THP */
	ok &= record(gfn1, PAGE, false) && rezap(GPA_A);
	m2 = stat_vm("pages_2m");
	ok &= guest_sees(GPA_A, P_SHARED, "uniformly shared block");
	if (thp)
		ok &= check(stat_vm("pages_2m") == m2 + 1,
			    "a uniformly shared block on a host THP did not map 2M (pages_2m %llu -> %llu)",
			    (unsigned long long)m2,
			    (unsigned long long)stat_vm("pages_2m"));
	else
		tap_diag("  (no host THP behind the shared part: the uniform 2M case is not checked)");
	tap_result(ok, "a 2M block with one private gfn is never mapped 2M shared: the private gfn exits, the shared page behind it is untouched%s",
		   thp ? "; a uniform shared block maps 2M" : "");
}

static void test_private_over_shared(void)
{
	uint64_t gfn5 = GPA_B + 5 * PAGE, m2;
	bool ok;

	ok = check(!__private_fallocate(fd_b, 0, SZ_2M), "fallocate: %s",
		   strerror(errno));
	ok &= rezap(GPA_B) && record(GPA_B, SZ_2M, true) &&
	      record(gfn5, PAGE, false);
	m2 = stat_vm("pages_2m");
	ok &= guest_writes(GPA_B, P_GUEST, "private gfn 0 next to a shared gfn");
	ok &= check(stat_vm("pages_2m") == m2,
		    "a private touch of gfn 0 mapped 2M (pages_2m %llu -> %llu) over shared gfn 5",
		    (unsigned long long)m2,
		    (unsigned long long)stat_vm("pages_2m"));
	/* a shared access to a gfn whose private page exists must exit */
	ok &= guest_exits(gfn5, 0, "shared gfn 5 inside a private 2M block");

	/* all private again (and nothing mapped): a huge folio maps 2M */
	ok &= record(gfn5, PAGE, true) && record(GPA_B, SZ_2M, false) &&
	      record(GPA_B, SZ_2M, true);
	m2 = stat_vm("pages_2m");
	ok &= guest_sees(GPA_B, P_GUEST, "uniformly private block");
	ok &= check(stat_vm("pages_2m") == m2 + 1,
		    "a uniformly private block on a 2M folio did not map 2M (pages_2m %llu -> %llu)",
		    (unsigned long long)m2,
		    (unsigned long long)stat_vm("pages_2m"));
	tap_result(ok, "a 2M block with one shared gfn is never mapped 2M private: the shared gfn exits; a uniform private block on a huge folio maps 2M");
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Median ns of record updates of a 4K and a 2M range at gpa4k, gpa2m
 * (the 4K one inside the 2M-aligned block below gpa4k), rounds
 * interleaved. Returns 0 or -errno.
 */
static int record_cost(uint64_t gpa4k, uint64_t gpa2m, double *us4k,
		       double *us2m)
{
	static uint64_t t4k[COST_ROUNDS], t2m[COST_ROUNDS];
	uint64_t t0;
	int i, r = 0;

	for (i = 0; i < COST_ROUNDS && !r; i++) {
		t0 = now_ns();
		r = __vm_set_sw_private(vm, gpa4k, PAGE, i & 1);
		t4k[i] = now_ns() - t0;
		t0 = now_ns();
		if (!r)
			r = __vm_set_sw_private(vm, gpa2m, SZ_2M, i & 1);
		t2m[i] = now_ns() - t0;
	}
	qsort(t4k, COST_ROUNDS, sizeof(t4k[0]), cmp_u64);
	qsort(t2m, COST_ROUNDS, sizeof(t2m[0]), cmp_u64);
	*us4k = t4k[COST_ROUNDS / 2] / 1e3;
	*us2m = t2m[COST_ROUNDS / 2] / 1e3;
	return r;
}

/*
 * The record's own cost: gfns outside every slot, where nothing is to be
 * zapped. Inside a slot the update also walks KVM's page tables over the
 * range (one entry per 4K gfn where a page table exists), which is the
 * zap's cost, not the record's: that is printed for information.
 */
static void test_record_cost(void)
{
	double us4k = 0, us2m = 0, in4k = 0, in2m = 0;
	int r = record_cost(NOSLOT_GPA + PAGE, NOSLOT_GPA + SZ_2M, &us4k, &us2m);
	int r_in = record_cost(GPA_A + PAGE, GPA_B, &in4k, &in2m);

	tap_diag("  inside private slots (with the zap's page-table walk): 2M %.1f us, 4K %.1f us (%.2fx)%s",
		 in2m, in4k, in4k > 0 ? in2m / in4k : 0,
		 r_in ? " (an update failed)" : "");
	tap_result(!r && us2m <= 2.0 * us4k,
		   "a 2M record update costs at most 2x a 4K one: median %.1f us vs %.1f us (%.2fx, %d rounds, gfns outside the slots)",
		   us2m, us4k, us4k > 0 ? us2m / us4k : 0, COST_ROUNDS);
}

/* child: one enormous record update on a VM of its own */
static void huge_record_child(void)
{
	struct kvm_vm *v = NULL;

	if (__vm_create(&v, NULL))
		_exit(3);
	_exit(__vm_set_sw_private(v, 0, 1ULL << 52, true) ? 1 : 0);
}

static void test_record_bounds(void)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	uint64_t t0 = now_ns(), done_ns = 0, kill_ns = 0;
	pid_t child = fork();
	int st = 0, i;
	bool exited = false, killed = false;

	if (child == 0)
		huge_record_child();
	if (child < 0) {
		tap_result(false, "record bounds (fork: %s)", strerror(errno));
		return;
	}
	/* it may finish on its own within 2 s */
	for (i = 0; i < 200 && !exited; i++) {
		exited = waitpid(child, &st, WNOHANG) == child;
		if (!exited)
			nanosleep(&tick, NULL);
	}
	done_ns = now_ns() - t0;
	if (!exited) {
		kill(child, SIGKILL);
		t0 = now_ns();
		for (i = 0; i < 100 && !killed; i++) {
			killed = waitpid(child, &st, WNOHANG) == child;
			if (!killed)
				nanosleep(&tick, NULL);
		}
		kill_ns = now_ns() - t0;
	}
	if (exited)
		tap_result(WIFEXITED(st) && WEXITSTATUS(st) != 3,
			   "a record update of 2^52 bytes returns at once (%s in %.0f ms)",
			   WIFEXITED(st) && !WEXITSTATUS(st) ? "done" : "refused",
			   done_ns / 1e6);
	else
		tap_result(false, "a record update of 2^52 bytes returns at once: still running after %.0f ms; after SIGKILL it %s within %.0f ms",
			   done_ns / 1e6, killed ? "died" : "did NOT die",
			   kill_ns / 1e6);
}

static int setup(void)
{
	struct vm_mem_opts o = {
		.flags = KVM_MEM_PRIVATE, .backing = VM_BACKING_ANON,
		.size = SZ_2M,
	};
	struct vm_mem_region *mr;
	int r;

	fd_a = memfd_inaccessible_create("convbench-2m-a", SZ_2M);
	fd_b = memfd_inaccessible_create("convbench-2m-b", SZ_2M);
	r = fd_a < 0 ? fd_a : fd_b < 0 ? fd_b : __vm_create(&vm, NULL);
	if (!r)
		r = __vm_vcpu_add(vm, 0, guest_read_page, &vcpu);
	if (!r) {
		o.slot = SLOT_A;
		o.gpa = GPA_A;
		o.private_fd = fd_a;
		r = __vm_mem_add(vm, &o, &mr);
		hva_a = r ? NULL : mr->hva;
	}
	if (!r) {
		o.slot = SLOT_B;
		o.gpa = GPA_B;
		o.private_fd = fd_b;
		r = __vm_mem_add(vm, &o, &mr);
		hva_b = r ? NULL : mr->hva;
	}
	if (!r) {
		vcpu_set_timeout(vcpu, 10000);
		guest_checks_init(vcpu);
		/* the vCPU's own code, stack and data are mapped from here on */
		scratch = __vm_alloc(vm, PAGE, PAGE);
		if (!scratch || !guest_writes(scratch, 1, "warm-up"))
			r = -EIO;
	}
	return r;
}

int main(void)
{
	uint64_t v;
	int r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	require_series(TEST_NAME, false);

	r = setup();
	tap_result(!r, "VM with two 2M private slots (%s)", r ? strerror(-r) : "ok");
	if (r)
		return tap_finish(true);
	if (kvm_stat_once(vm->fd, "pages_2m", &v)) {
		tap_skip("no pages_2m statistic", "2M mapping checks");
	} else {
		test_shared_over_private();
		test_private_over_shared();
	}
	test_record_cost();
	test_record_bounds();

	kvm_vm_free(vm);
	close(fd_a);
	close(fd_b);
	return tap_finish(true);
}
