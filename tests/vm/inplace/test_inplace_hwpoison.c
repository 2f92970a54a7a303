// SPDX-License-Identifier: GPL-2.0
/*
 * A memory error in a huge folio that cannot be split (kernel/patches:
 * memory_failure() tells KVM about an unsplit huge folio of an
 * MFD_INACCESSIBLE file): a whole 2M folio converted to shared in place is
 * mapped by KVM with one 2M entry; the host pins its page 0 (vmsplice),
 * which keeps memory_failure() from splitting it, and poisons page 5
 * (MADV_HWPOISON). The guest's next access to page 5 must end in a
 * memory error (KVM_RUN EHWPOISON with KVM_EXIT_MEMORY_ERROR), not the
 * data; page 6 stays readable.
 *
 * The debug kernel has memory failure (CONFIG_MEMORY_FAILURE); elsewhere
 * the test skips. The poisoned page is unpoisoned once the folio is
 * freed (debugfs hwpoison/unpoison-pfn), so that later tests of the boot
 * may get it again.
 */
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "inplace.h"
#include "inplace_check.h"
#include "kvm_stats.h"
#include "kvm_util.h"
#include "tap.h"

#define TEST_NAME	"test_inplace_hwpoison"
#define PAGE		GUEST_PAGE_SIZE
#define NPAGES		512
#define GPA		0x40000000ULL
#define PG_PIN		0
#define PG_POISON	5
#define PG_NEXT		6
#define KPF_COMPOUND_HEAD 15
#define P_GUEST		0x4755455354575254ULL
#define UNPOISON_PFN	"/sys/kernel/debug/hwpoison/unpoison-pfn"
#ifndef MADV_HWPOISON
#define MADV_HWPOISON	100
#endif

static struct kvm_vm *vm;
static struct kvm_vcpu *vcpu;

static uint64_t pages_2m(void)
{
	uint64_t v = ~0ULL;

	kvm_stat_once(vm->fd, "pages_2m", &v);
	return v;
}

/*
 * a guest's 2M in place (*fdp, *mr), filled, converted whole to
 * shared: 0, or -errno
 */
static int setup_shared_2m(int *fdp, struct vm_mem_region **mr,
			   struct ucall *uc)
{
	struct vm_mem_opts o = {
		.slot = 1, .flags = KVM_MEM_PRIVATE, .gpa = GPA, .size = SZ_2M,
		.backing = VM_BACKING_ANON,
	};
	int fd, r;

	fd = memfd_inaccessible_create("convbench-hwpoison", SZ_2M);
	r = fd < 0 ? fd : __private_fallocate(fd, 0, SZ_2M);
	o.private_fd = fd;
	if (!r)
		r = __vm_create(&vm, NULL);
	if (!r)
		r = __vm_vcpu_add(vm, 0, guest_read_page, &vcpu);
	if (!r)
		r = __vm_mem_add(vm, &o, mr);
	if (!r)
		r = inplace_map_shared(fd, 0, SZ_2M, (*mr)->hva);
	if (!r)
		r = __vm_set_sw_private(vm, GPA, SZ_2M, true);
	if (!r) {
		vcpu_set_timeout(vcpu, 20000);
		guest_checks_init(vcpu);
		r = guest_call3(guest_fill_pages, GPA, NPAGES, P_GUEST, uc);
	}
	/* the whole folio to shared, in place: KVM maps it 2M */
	if (!r)
		r = memfd_convert(fd, 0, SZ_2M, INPLACE_TO_SHARED | INPLACE_PRESERVE,
				  NULL);
	if (!r)
		r = __vm_set_sw_private(vm, GPA, SZ_2M, false);
	*fdp = fd;
	return r;
}

int main(void)
{
	struct kvm_run_memory_exit *m;
	struct vm_mem_region *mr = NULL;
	int fd, r, pipefd[2] = { -1, -1 };
	uint64_t m2, pfn = 0;
	struct ucall uc = { 0 };
	struct iovec iov;
	char buf[32];
	bool ok;

	setvbuf(stdout, NULL, _IOLBF, 0);
	require_series(TEST_NAME, true);
	if (access(UNPOISON_PFN, W_OK))
		tap_skip_all(TEST_NAME, true,
			     "no hwpoison injector (CONFIG_MEMORY_FAILURE, CONFIG_HWPOISON_INJECT: the debug kernel has them)");

	r = setup_shared_2m(&fd, &mr, &uc);
	tap_result(!r, "a guest's 2M in place, filled, converted whole to shared (%s)",
		   r ? strerror(-r) : "ok");
	if (r)
		return tap_finish(true);
	(void)*(volatile uint64_t *)mr->hva;
	if (!(kpageflags(host_pfn(mr->hva)) & (1ULL << KPF_COMPOUND_HEAD)))
		tap_skip_all(TEST_NAME, true, "the fd has no huge folio (shmem THP off?)");

	m2 = pages_2m();
	r = guest_call3(guest_read_pages, GPA, NPAGES, P_GUEST, &uc);
	ok = check(!r && !uc.args[0] && pages_2m() == m2 + 1,
		   "the guest reads the shared folio through one 2M entry: %s, %llu pages wrong, pages_2m %llu -> %llu",
		   r ? strerror(-r) : "ok", (unsigned long long)uc.args[0],
		   (unsigned long long)m2, (unsigned long long)pages_2m());

	/* a pin on page 0 keeps the folio from being split */
	iov.iov_base = mr->hva + PG_PIN * PAGE;
	iov.iov_len = PAGE;
	ok &= check(!pipe(pipefd) && vmsplice(pipefd[1], &iov, 1, 0) == PAGE,
		    "vmsplice pin of page 0: %s", strerror(errno));
	/* the host maps the page to learn its pfn (a read, in the folio) */
	(void)*(volatile uint64_t *)(mr->hva + PG_POISON * PAGE);
	pfn = host_pfn(mr->hva + PG_POISON * PAGE);
	r = madvise(mr->hva + PG_POISON * PAGE, PAGE, MADV_HWPOISON) ? -errno : 0;
	tap_diag("MADV_HWPOISON of page %d (pfn %#llx) of the pinned folio: %s",
		 PG_POISON, (unsigned long long)pfn, r ? strerror(-r) : "ok");
	ok &= check(kpageflags(pfn) & (1ULL << 19),	/* KPF_HWPOISON */
		    "page %d is not marked poisoned", PG_POISON);

	r = guest_call3(guest_read_pages, GPA + PG_POISON * PAGE, 1, P_GUEST + PG_POISON, &uc);
	m = kvm_run_memory(vcpu->run);
	ok &= check(r == -EHWPOISON && vcpu->run->exit_reason == KVM_EXIT_MEMORY_ERROR &&
		    m->gpa == GPA + PG_POISON * PAGE,
		    "the guest's read of the poisoned page: KVM_RUN %s, exit %s, gpa %#llx (want EHWPOISON, KVM_EXIT_MEMORY_ERROR at %#llx)",
		    r ? strerror(-r) : "0 (it read the page)",
		    exit_reason_str(vcpu->run->exit_reason),
		    (unsigned long long)m->gpa,
		    (unsigned long long)(GPA + PG_POISON * PAGE));
	r = guest_call3(guest_read_pages, GPA + PG_NEXT * PAGE, 1, P_GUEST + PG_NEXT, &uc);
	ok &= check(!r && !uc.args[0],
		    "page %d of the same folio: %s, %llu wrong", PG_NEXT,
		    r ? strerror(-r) : "read", (unsigned long long)uc.args[0]);
	tap_result(ok, "a memory error in a pinned, unsplit 2M folio that KVM maps whole reaches the guest's next access to the page (EHWPOISON), and the rest of the folio stays readable");

	close(pipefd[0]);
	close(pipefd[1]);
	kvm_vm_free(vm);
	close(fd);
	/* the folio is freed with the fd: give the page back */
	if (pfn) {
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)pfn);
		if (!write_file(UNPOISON_PFN, buf))
			tap_diag("unpoisoning pfn %#llx failed (%s): the page stays out of use",
				 (unsigned long long)pfn, strerror(errno));
	}
	return tap_finish(true);
}
