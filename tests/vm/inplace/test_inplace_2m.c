// SPDX-License-Identifier: GPL-2.0
/*
 * In-place conversion at huge-page size (kernel/patches 0030, 0031):
 *
 *   whole 2M   a 2M folio converted to shared and back is mapped by KVM
 *              with one 2M entry after one guest fault, in each
 *              direction (KVM's pf_taken and pages_2m statistics)
 *   partial    one 4K page of a 2M folio converted: the block maps 4K,
 *              every other page stays private to the guest and out of
 *              the host's reach, the shared page is the host's page
 *   pin        a pin on one shared 4K page of a (split) huge folio
 *              blocks converting that page only
 *   uniform    a conversion that leaves a huge folio uniform (a page of
 *              an all-shared folio to shared) keeps it huge; one that
 *              leaves it mixed splits it
 *
 * and the merge back (kernel/patches 0048, with shmem.convert_merge=1;
 * skipped where the kernel has no such switch):
 *
 *   merge off  with the switch off (the default), a split block made
 *              uniform again stays 512 4K folios and maps 4K
 *   merge shared / merge private
 *              a block split by one page going the other way and made
 *              uniform again is one huge folio (thp_convert_merge), its
 *              data kept, mapped by KVM with one 2M entry after one
 *              fault; merged private, every page SIGBUS to the host, and
 *              compaction (and move_pages() where there are two NUMA
 *              nodes) leaves the merged folio where KVM mapped it
 *   merge pin  a pin on one page of the block fails the merge at once
 *              (thp_convert_merge_busy), the conversion succeeds, the
 *              block stays split; without the pin the next conversion
 *              merges it
 *
 * One in-place slot of 2M per case (gpa 2M aligned), each on its own
 * MFD_INACCESSIBLE fd of 2M, fallocated whole: one huge folio when shmem
 * THP is on (the VM runs with "within_size"); the test skips the huge
 * checks when it is not.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "inplace.h"
#include "inplace_check.h"
#include "kvm_stats.h"
#include "kvm_util.h"
#include "tap.h"

#define TEST_NAME	"test_inplace_2m"
#define PAGE		GUEST_PAGE_SIZE
#define NPAGES		512
#define KPF_COMPOUND_HEAD 15
#define P_GUEST		0x4755455354575254ULL	/* "GUESTWRT" */
#define P_HOST		0x484f535457524954ULL	/* "HOSTWRIT" */

#define TO_SHARED	(INPLACE_TO_SHARED | INPLACE_PRESERVE)
#define TO_PRIVATE	(INPLACE_TO_PRIVATE | INPLACE_PRESERVE)

static struct kvm_vm *vm;
static struct kvm_vcpu *vcpu;
static struct kvm_stats vstats;

struct region {
	uint32_t slot;
	uint64_t gpa;
	int fd;
	char *hva;	/* the slot's shared part: a mapping of the fd */
};

/* the first word of the page at gpa is val (guest_fill_pages writes one) */
static bool guest_sees_word(uint64_t gpa, uint64_t val, const char *what)
{
	struct ucall uc = { 0 };
	int r = guest_call3(guest_read_pages, gpa, 1, val, &uc);

	return check(!r && !uc.args[0], "%s: guest read of %#llx: %s",
		     what, (unsigned long long)gpa,
		     r ? strerror(-r) : "wrong data");
}


/* ------------------------------------------------------------------ */

static uint64_t vstat(const char *name)
{
	uint64_t v = ~0ULL;

	if (kvm_stats_read(&vstats) || kvm_stats_get(&vstats, name, &v))
		return ~0ULL;
	return v;
}

static uint64_t vmstat_val(const char *name)
{
	uint64_t v = ~0ULL;

	kvm_stat_once(vm->fd, name, &v);
	return v;
}

static bool record(struct region *rg, unsigned int pg, unsigned int n,
		   bool private)
{
	int r = __vm_set_sw_private(vm, rg->gpa + pg * PAGE, n * PAGE, private);

	return check(!r, "KVM_SET_SW_PRIVATE_RANGE(page %u+%u, %s): %s", pg, n,
		     private ? "private" : "shared", strerror(-r));
}

static bool convert(struct region *rg, unsigned int pg, unsigned int n,
		    unsigned int flags)
{
	int r = memfd_convert(rg->fd, pg * PAGE, n * PAGE, flags, NULL);

	return check(!r, "convert pages %u+%u flags %#x: %s", pg, n, flags,
		     strerror(-r));
}

/* is page 0 part of a huge folio? Only while it is shared (pagemap) */
static bool is_huge(struct region *rg)
{
	(void)*(volatile uint64_t *)rg->hva;
	return kpageflags(host_pfn(rg->hva)) & (1ULL << KPF_COMPOUND_HEAD);
}

/* the guest reads all 512 pages; *faults: KVM page faults it took */
static bool read_all(struct region *rg, uint64_t base, uint64_t *faults,
		     const char *what)
{
	struct ucall uc = { 0 };
	uint64_t before = vstat("pf_taken");
	int r = guest_call3(guest_read_pages, rg->gpa, NPAGES, base, &uc);

	*faults = vstat("pf_taken") - before;
	return check(!r && !uc.args[0],
		     "%s: guest read of the 2M range: %s, %llu pages wrong (first %llu)",
		     what, r ? strerror(-r) : "ok",
		     (unsigned long long)uc.args[0],
		     (unsigned long long)uc.args[1]);
}

static int region_add(struct region *rg, uint32_t slot, uint64_t gpa)
{
	struct vm_mem_opts o = {
		.slot = slot, .flags = KVM_MEM_PRIVATE, .gpa = gpa,
		.size = SZ_2M, .backing = VM_BACKING_ANON,
	};
	struct vm_mem_region *mr;
	int r;

	rg->slot = slot;
	rg->gpa = gpa;
	rg->fd = memfd_inaccessible_create("convbench-inplace-2m", SZ_2M);
	if (rg->fd < 0)
		return rg->fd;
	r = __private_fallocate(rg->fd, 0, SZ_2M);
	o.private_fd = rg->fd;
	if (!r)
		r = __vm_mem_add(vm, &o, &mr);
	if (!r) {
		rg->hva = mr->hva;
		r = inplace_map_shared(rg->fd, 0, SZ_2M, rg->hva);
	}
	if (!r)
		r = __vm_set_sw_private(vm, gpa, SZ_2M, true);
	return r;
}

/* ------------------------------------------------------------------ */

static void test_whole(struct region *rg)
{
	uint64_t f_shared = 0, f_private = 0, m2, m2_shared, m2_private;
	struct ucall uc = { 0 };
	bool huge, ok;

	ok = check(!guest_call3(guest_fill_pages, rg->gpa, NPAGES, P_GUEST, &uc),
		   "guest fill");
	/* whole 2M to shared: one fault maps it all, 2M */
	ok &= convert(rg, 0, NPAGES, TO_SHARED) && record(rg, 0, NPAGES, false);
	huge = is_huge(rg);
	m2 = vmstat_val("pages_2m");
	ok &= read_all(rg, P_GUEST, &f_shared, "to shared");
	m2_shared = vmstat_val("pages_2m") - m2;
	/* and back to private */
	ok &= convert(rg, 0, NPAGES, TO_PRIVATE) && record(rg, 0, NPAGES, true);
	m2 = vmstat_val("pages_2m");
	ok &= read_all(rg, P_GUEST, &f_private, "to private");
	m2_private = vmstat_val("pages_2m") - m2;
	if (!huge) {
		tap_skip("the fd has no huge folio (shmem THP off?)",
			 "a whole 2M folio converted in place maps with one 2M entry after one fault");
		return;
	}
	ok &= check(f_shared == 1 && m2_shared == 1,
		    "to shared: %llu guest faults, %llu new 2M mappings (want 1, 1)",
		    (unsigned long long)f_shared, (unsigned long long)m2_shared);
	ok &= check(f_private == 1 && m2_private == 1,
		    "to private: %llu guest faults, %llu new 2M mappings (want 1, 1)",
		    (unsigned long long)f_private, (unsigned long long)m2_private);
	tap_result(ok, "a whole 2M folio converted in place maps with one 2M entry after one fault: to shared %llu fault(s), to private %llu",
		   (unsigned long long)f_shared, (unsigned long long)f_private);
}

static void test_partial(struct region *rg)
{
	const unsigned int k = 77;
	uint64_t m2;
	struct ucall uc = { 0 };
	unsigned int p;
	bool ok;

	ok = check(!guest_call3(guest_fill_pages, rg->gpa, NPAGES, P_GUEST, &uc),
		   "guest fill");
	ok &= convert(rg, k, 1, TO_SHARED) && record(rg, k, 1, false);
	/* the host sees its shared page, the guest's data in it */
	ok &= check(*(volatile uint64_t *)(rg->hva + k * PAGE) == P_GUEST + k,
		    "the host reads %#llx from the shared page",
		    (unsigned long long)*(volatile uint64_t *)(rg->hva + k * PAGE));
	ok &= host_fills(rg->hva, k, P_HOST, "the shared page");
	/* every other page: out of the host's reach */
	for (p = 0; ok && p < NPAGES; p++)
		if (p != k)
			ok &= host_bus(rg->hva, p, "a private page of the partly shared folio");
	/* the guest: its data on private pages, the host's on the shared one */
	m2 = vmstat_val("pages_2m");
	for (p = 0; ok && p < NPAGES; p += 37)
		if (p != k)
			ok &= guest_sees_word(rg->gpa + p * PAGE, P_GUEST + p,
					      "a private page of the partly shared folio");
	ok &= guest_sees_word(rg->gpa + k * PAGE, P_HOST, "the shared page");
	ok &= check(vmstat_val("pages_2m") == m2,
		    "the mixed block was mapped 2M (pages_2m %llu -> %llu)",
		    (unsigned long long)m2,
		    (unsigned long long)vmstat_val("pages_2m"));
	/* back to private: the host loses it, the guest keeps the data */
	ok &= convert(rg, k, 1, TO_PRIVATE) && record(rg, k, 1, true) &&
	      host_bus(rg->hva, k, "the page after to-private") &&
	      guest_sees_word(rg->gpa + k * PAGE, P_HOST, "the page after to-private");
	tap_result(ok, "one 4K page of a 2M folio converted in place: the block maps 4K, every other page stays the guest's and SIGBUS to the host, the shared page is the host's page");
}

static void test_pin(struct region *rg)
{
	const unsigned int a = 10, b = 11;
	struct iovec iov = { rg->hva + a * PAGE, PAGE };
	uint64_t err_off = ~0ULL;
	int pipefd[2] = { -1, -1 };
	bool ok;
	int r;

	ok = convert(rg, a, 1, TO_SHARED) && convert(rg, b, 1, TO_SHARED) &&
	     host_fills(rg->hva, a, P_HOST, "page a") &&
	     host_fills(rg->hva, b, P_HOST + 1, "page b");
	ok &= check(!pipe(pipefd) && vmsplice(pipefd[1], &iov, 1, 0) == PAGE,
		    "vmsplice pin of page a: %s", strerror(errno));
	/* the pin holds page a only */
	ok &= convert(rg, b, 1, TO_PRIVATE);
	r = memfd_convert(rg->fd, a * PAGE, PAGE, TO_PRIVATE, &err_off);
	ok &= check(r == -MEMFD_CONVERT_BUSY_ERRNO && err_off == a * PAGE,
		    "to-private of the pinned page: %s, error_offset %#llx (want %s, %#llx)",
		    r ? strerror(-r) : "ok", (unsigned long long)err_off,
		    strerror(MEMFD_CONVERT_BUSY_ERRNO),
		    (unsigned long long)(a * PAGE));
	ok &= host_sees(rg->hva, a, P_HOST, "the pinned page after the refusal");
	close(pipefd[0]);
	close(pipefd[1]);
	ok &= convert(rg, a, 1, TO_PRIVATE);
	tap_result(ok, "a pin on one shared 4K page of a huge folio blocks converting that page only: its neighbour converts, it fails with EAGAIN until unpinned");
}

/* ------------------------------------------------------------------ */
/* the merge back (shmem.convert_merge) */

#define MERGE_PARAM	"/sys/module/shmem/parameters/convert_merge"

static uint64_t proc_vmstat(const char *name)
{
	char line[128];
	size_t n = strlen(name);
	uint64_t v = ~0ULL;
	FILE *f = fopen("/proc/vmstat", "re");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, name, n) && line[n] == ' ') {
			v = strtoull(line + n + 1, NULL, 10);
			break;
		}
	if (f)
		fclose(f);
	return v;
}

/* the first word of shared page p (guest_fill_pages writes one a page) */
static bool host_word(struct region *rg, unsigned int p, uint64_t val,
		      const char *what)
{
	uint64_t got = *(volatile uint64_t *)(rg->hva + p * PAGE);

	return check(got == val, "%s: the host reads %#llx from page %u, want %#llx",
		     what, (unsigned long long)got, p, (unsigned long long)val);
}

/* the pfn behind page 0, touched first (a conversion unmapped it) */
static uint64_t block_pfn(struct region *rg)
{
	(void)*(volatile uint64_t *)rg->hva;
	return host_pfn(rg->hva);
}

/*
 * Is pfn in a populated ZONE_MOVABLE (/proc/zoneinfo)? 1 yes, 0 no, -1
 * this boot has none (movablecore= or kernelcore= makes one)
 */
static int in_movable(uint64_t pfn)
{
	unsigned long long start = 0, spanned = 0, present = 0;
	char line[256];
	bool movable = false, any = false, in = false;
	FILE *f = fopen("/proc/zoneinfo", "re");

	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Node ", 5)) {
			movable = strstr(line, " Movable") != NULL;
			start = spanned = present = 0;
			continue;
		}
		if (!movable)
			continue;
		sscanf(line, " spanned %llu", &spanned);
		sscanf(line, " present %llu", &present);
		if (sscanf(line, " start_pfn: %llu", &start) == 1 && present) {
			any = true;
			in |= pfn >= start && pfn < start + spanned;
		}
	}
	if (f)
		fclose(f);
	return any ? in : -1;
}

/* is the (private) block one huge folio? Looked at while shared */
static bool is_huge_fd(struct region *rg)
{
	bool huge;

	if (!convert(rg, 0, NPAGES, TO_SHARED) || !record(rg, 0, NPAGES, false))
		return false;
	huge = is_huge(rg);
	return convert(rg, 0, NPAGES, TO_PRIVATE) &&
	       record(rg, 0, NPAGES, true) && huge;
}

static bool merge_switch(bool on)
{
	return check(write_file(MERGE_PARAM, on ? "1" : "0"),
		     "writing %d to %s: %s", on, MERGE_PARAM, strerror(errno));
}

/* can this kernel merge back? (skip, naming the case, when not) */
static bool merge_offered(const char *what)
{
	if (access(MERGE_PARAM, W_OK)) {
		tap_skip("no shmem.convert_merge (kernel/patches 0048)", "%s", what);
		return false;
	}
	return true;
}

/*
 * Split a huge block: the whole range goes one way (to_shared), then
 * page k the other. True if it was huge before and is split after (the
 * check needs page 0 shared: k is not 0 when the block is shared).
 */
static bool split_block(struct region *rg, unsigned int k, bool to_shared)
{
	unsigned int whole = to_shared ? TO_SHARED : TO_PRIVATE;
	unsigned int back = to_shared ? TO_PRIVATE : TO_SHARED;
	bool ok;

	ok = convert(rg, 0, NPAGES, whole) && record(rg, 0, NPAGES, !to_shared);
	if (to_shared)
		ok &= check(is_huge(rg), "the whole shared block is not one huge folio");
	ok &= convert(rg, k, 1, back) && record(rg, k, 1, to_shared);
	if (ok && (to_shared || k == 0))
		ok &= check(!is_huge(rg), "page %u the other way did not split the block", k);
	return ok;
}

static void test_merge_off(struct region *rg)
{
	const unsigned int k = 300;
	uint64_t faults = 0, m2, merges;
	struct ucall uc = { 0 };
	bool ok;

	if (!merge_offered("with shmem.convert_merge=0 a split block made uniform again stays split and maps 4K"))
		return;
	ok = merge_switch(false) &&
	     check(!guest_call3(guest_fill_pages, rg->gpa, NPAGES, P_GUEST, &uc), "guest fill");
	merges = proc_vmstat("thp_convert_merge");
	ok &= split_block(rg, k, true);
	/* uniform shared again: nothing merges it */
	ok &= convert(rg, k, 1, TO_SHARED) && record(rg, k, 1, false);
	ok &= check(!is_huge(rg), "the block is huge again with the merge off");
	m2 = vmstat_val("pages_2m");
	ok &= read_all(rg, P_GUEST, &faults, "merge off");
	ok &= check(vmstat_val("pages_2m") == m2 && faults > 1,
		    "merge off: %llu faults, %llu new 2M mappings (want 4K mappings)",
		    (unsigned long long)faults,
		    (unsigned long long)(vmstat_val("pages_2m") - m2));
	ok &= check(proc_vmstat("thp_convert_merge") == merges,
		    "thp_convert_merge moved with the switch off");
	tap_result(ok, "with shmem.convert_merge=0 a split block made uniform again stays split: %llu guest faults to read it, no 2M mapping",
		   (unsigned long long)faults);
}

static void test_merge_shared(struct region *rg)
{
	const unsigned int k = 200;
	uint64_t faults = 0, m2, merges, pfn;
	struct ucall uc = { 0 };
	unsigned int p;
	bool ok, huge;
	int movable;

	if (!merge_offered("a split block made all shared again is one huge folio, mapped 2M after one fault"))
		return;
	ok = merge_switch(true) &&
	     check(!guest_call3(guest_fill_pages, rg->gpa, NPAGES, P_GUEST, &uc), "guest fill");
	ok &= split_block(rg, k, true);
	merges = proc_vmstat("thp_convert_merge");
	ok &= convert(rg, k, 1, TO_SHARED) && record(rg, k, 1, false);
	huge = is_huge(rg);
	ok &= check(huge, "the block made all shared again is not one huge folio");
	ok &= check(proc_vmstat("thp_convert_merge") == merges + 1,
		    "thp_convert_merge %llu -> %llu (want +1)",
		    (unsigned long long)merges,
		    (unsigned long long)proc_vmstat("thp_convert_merge"));
	/* the copy kept every page's data, the host sees it */
	for (p = 0; ok && p < NPAGES; p++)
		ok &= host_word(rg, p, P_GUEST + p, "a page of the merged shared block");
	m2 = vmstat_val("pages_2m");
	ok &= read_all(rg, P_GUEST, &faults, "merged shared");
	ok &= check(faults == 1 && vmstat_val("pages_2m") == m2 + 1,
		    "merged shared: %llu guest faults, %llu new 2M mappings (want 1, 1)",
		    (unsigned long long)faults,
		    (unsigned long long)(vmstat_val("pages_2m") - m2));
	/* compaction does not move the merged folio */
	pfn = block_pfn(rg);
	ok &= check(write_file("/proc/sys/vm/compact_memory", "1"), "compact_memory");
	ok &= check(block_pfn(rg) == pfn, "compaction moved the merged folio: pfn %#llx -> %#llx",
		    (unsigned long long)pfn, (unsigned long long)block_pfn(rg));
	/* allocated with the file's mask: unmovable memory, not in Movable */
	movable = in_movable(pfn);
	ok &= check(movable != 1, "the merged folio (pfn %#llx) is in ZONE_MOVABLE",
		    (unsigned long long)pfn);
	tap_result(ok, "a split block made all shared again is one huge folio (thp_convert_merge +1), its data kept, mapped 2M after %llu fault(s), not moved by compaction, %s",
		   (unsigned long long)faults,
		   movable < 0 ? "no ZONE_MOVABLE in this boot to stay out of" :
		   "outside ZONE_MOVABLE");
}

/* where move_pages() would move page 0 of the block (another node), or -1 */
static int other_node(struct region *rg)
{
	void *page = rg->hva;
	int where = -1;

	(void)*(volatile uint64_t *)rg->hva;	/* mapped, or no status */
	if (syscall(__NR_move_pages, 0, 1, &page, NULL, &where, 0) < 0 || where < 0)
		return -1;
	return where == 0 ? 1 : 0;
}

static void test_merge_private(struct region *rg)
{
	const unsigned int k = 0;
	uint64_t faults = 0, m2, merges, pfn = 0;
	int node, status = 99;
	void *page = rg->hva;
	struct ucall uc = { 0 };
	const char *moved = "one NUMA node: move_pages() not tried";
	unsigned int p;
	bool ok;

	if (!merge_offered("a split block made all private again is one huge folio, mapped 2M after one fault, out of the host's reach"))
		return;
	ok = merge_switch(true) &&
	     check(!guest_call3(guest_fill_pages, rg->gpa, NPAGES, P_GUEST, &uc), "guest fill");
	ok &= split_block(rg, k, false);
	merges = proc_vmstat("thp_convert_merge");
	ok &= convert(rg, k, 1, TO_PRIVATE) && record(rg, k, 1, true);
	ok &= check(proc_vmstat("thp_convert_merge") == merges + 1,
		    "thp_convert_merge %llu -> %llu (want +1)",
		    (unsigned long long)merges,
		    (unsigned long long)proc_vmstat("thp_convert_merge"));
	/* the merged private folio: out of the host's reach, every page */
	for (p = 0; ok && p < NPAGES; p++)
		ok &= host_bus(rg->hva, p, "a page of the merged private block");
	m2 = vmstat_val("pages_2m");
	ok &= read_all(rg, P_GUEST, &faults, "merged private");
	ok &= check(faults == 1 && vmstat_val("pages_2m") == m2 + 1,
		    "merged private: %llu guest faults, %llu new 2M mappings (want 1, 1)",
		    (unsigned long long)faults,
		    (unsigned long long)(vmstat_val("pages_2m") - m2));
	/*
	 * While private and mapped by KVM, compaction and move_pages() must
	 * leave it: its pfn, seen once the whole folio is shared (a whole
	 * folio converts without a split), is the same before and after.
	 */
	ok &= convert(rg, 0, NPAGES, TO_SHARED) && record(rg, 0, NPAGES, false);
	ok &= check(is_huge(rg), "the merged block converted whole to shared is not huge");
	pfn = block_pfn(rg);
	ok &= convert(rg, 0, NPAGES, TO_PRIVATE) && record(rg, 0, NPAGES, true);
	ok &= read_all(rg, P_GUEST, &faults, "merged private, mapped again");
	ok &= check(write_file("/proc/sys/vm/compact_memory", "1"), "compact_memory");
	ok &= convert(rg, 0, NPAGES, TO_SHARED) && record(rg, 0, NPAGES, false);
	node = other_node(rg);
	if (ok && node >= 0) {
		/* shared now: the host may ask, the kernel must refuse */
		if (syscall(__NR_move_pages, 0, 1, &page, &node, &status, 0) < 0 &&
		    (errno == EINVAL || errno == ENODEV))
			node = -1;
		else
			moved = "move_pages() refused";
	}
	ok &= check(block_pfn(rg) == pfn, "the merged folio moved: pfn %#llx -> %#llx",
		    (unsigned long long)pfn, (unsigned long long)block_pfn(rg));
	ok &= check(node < 0 || status != node, "move_pages() moved the merged folio to node %d", status);
	for (p = 0; ok && p < NPAGES; p++)
		ok &= host_word(rg, p, P_GUEST + p, "a page of the merged block after compaction");
	tap_result(ok, "a split block made all private again is one huge folio (thp_convert_merge +1), SIGBUS to the host on all 512 pages, mapped 2M after one fault, its data kept; compaction does not move it (%s)",
		   moved);
}

static void test_merge_pin(struct region *rg)
{
	const unsigned int k = 100, a = 5;
	struct iovec iov = { rg->hva + a * PAGE, PAGE };
	uint64_t merges, busy;
	int pipefd[2] = { -1, -1 };
	bool ok, pinned;

	if (!merge_offered("a pin on one page fails the merge at once, the conversion succeeds"))
		return;
	ok = merge_switch(true) && split_block(rg, k, true) &&
	     host_fills(rg->hva, a, P_HOST, "page a");
	pinned = check(!pipe(pipefd) && vmsplice(pipefd[1], &iov, 1, 0) == PAGE,
		       "vmsplice pin of page %u: %s", a, strerror(errno));
	ok &= pinned;
	merges = proc_vmstat("thp_convert_merge");
	busy = proc_vmstat("thp_convert_merge_busy");
	/* uniform shared again, one page pinned: no merge, no wait */
	ok &= convert(rg, k, 1, TO_SHARED) && record(rg, k, 1, false);
	ok &= check(!is_huge(rg), "the block merged with page %u pinned", a);
	ok &= check(proc_vmstat("thp_convert_merge_busy") == busy + 1 &&
		    proc_vmstat("thp_convert_merge") == merges,
		    "with a pin: thp_convert_merge_busy +%llu, thp_convert_merge +%llu (want 1, 0)",
		    (unsigned long long)(proc_vmstat("thp_convert_merge_busy") - busy),
		    (unsigned long long)(proc_vmstat("thp_convert_merge") - merges));
	ok &= host_sees(rg->hva, a, P_HOST, "the pinned page after the refused merge");
	if (pipefd[0] >= 0) {
		close(pipefd[0]);
		close(pipefd[1]);
	}
	/* unpinned: the next conversion touching the block merges it */
	ok &= convert(rg, k, 1, TO_SHARED);
	ok &= check(is_huge(rg), "the block did not merge once unpinned");
	ok &= host_sees(rg->hva, a, P_HOST, "page a in the merged block");
	ok &= check(proc_vmstat("thp_convert_merge") == merges + 1,
		    "unpinned: thp_convert_merge +%llu (want 1)",
		    (unsigned long long)(proc_vmstat("thp_convert_merge") - merges));
	tap_result(ok, "a pin on one page fails the merge at once (thp_convert_merge_busy +1, the conversion succeeds, the block stays split); unpinned, the next conversion merges it");
}

/* a conversion that leaves the folio uniform keeps it huge */
static void test_uniform(struct region *rg)
{
	const unsigned int k = 7;
	bool huge_before, huge_same, huge_mixed, ok;

	ok = convert(rg, 0, NPAGES, TO_SHARED) && record(rg, 0, NPAGES, false);
	huge_before = ok && is_huge(rg);
	if (!huge_before) {
		tap_skip("the fd has no huge folio (shmem THP off?)",
			 "a conversion that leaves a huge folio uniform does not split it");
		return;
	}
	/* page k is shared already: to shared again changes nothing */
	ok &= convert(rg, k, 1, TO_SHARED);
	huge_same = is_huge(rg);
	/* page k private: the folio is mixed now, and split */
	ok &= convert(rg, k, 1, TO_PRIVATE) && record(rg, k, 1, true);
	huge_mixed = is_huge(rg);
	ok &= check(huge_same, "converting page %u of an all-shared folio to shared split it", k);
	ok &= check(!huge_mixed, "converting page %u to private left the folio huge", k);
	tap_result(ok, "a conversion that leaves a huge folio uniform does not split it (a page of an all-shared folio to shared: %s), one that leaves it mixed does (%s)",
		   huge_same ? "huge" : "split", huge_mixed ? "huge" : "split");
}

/* one 2M in-place slot per case, slot i + 1 at 1G + i x 2M */
enum {
	R_WHOLE, R_PARTIAL, R_PIN, R_UNIFORM,
	R_MERGE_OFF, R_MERGE_SHARED, R_MERGE_PRIVATE, R_MERGE_PIN, NR_REGIONS
};

int main(void)
{
	struct region rg[NR_REGIONS];
	uint64_t scratch;
	unsigned int i;
	int r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	require_series(TEST_NAME, true);

	r = __vm_create(&vm, NULL);
	if (!r)
		r = __vm_vcpu_add(vm, 0, guest_read_page, &vcpu);
	if (!r)
		r = kvm_stats_open(&vstats, vcpu->fd);
	for (i = 0; !r && i < NR_REGIONS; i++)
		r = region_add(&rg[i], i + 1, 0x40000000ULL + i * SZ_2M);
	if (!r) {
		vcpu_set_timeout(vcpu, 20000);
		guest_checks_init(vcpu);
		/* the vCPU's own code, stack and data mapped from here on */
		scratch = __vm_alloc(vm, PAGE, PAGE);
		if (!scratch || !guest_writes(scratch, 1, "warm-up"))
			r = -EIO;
	}
	tap_result(!r, "VM with %d 2M in-place slots on fallocated memfds (%s)",
		   NR_REGIONS, r ? strerror(-r) : "ok");
	if (r)
		return tap_finish(true);

	test_whole(&rg[R_WHOLE]);
	test_partial(&rg[R_PARTIAL]);
	test_pin(&rg[R_PIN]);
	test_uniform(&rg[R_UNIFORM]);
	if (is_huge_fd(&rg[R_MERGE_OFF])) {
		test_merge_off(&rg[R_MERGE_OFF]);
		test_merge_shared(&rg[R_MERGE_SHARED]);
		test_merge_private(&rg[R_MERGE_PRIVATE]);
		test_merge_pin(&rg[R_MERGE_PIN]);
		/* the boot's default again */
		if (!access(MERGE_PARAM, W_OK))
			merge_switch(false);
	} else {
		tap_skip("the fd has no huge folio (shmem THP off?)",
			 "the merge back of a split 2M block (four cases)");
	}

	kvm_stats_close(&vstats);
	kvm_vm_free(vm);
	return tap_finish(true);
}
