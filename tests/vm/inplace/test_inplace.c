// SPDX-License-Identifier: GPL-2.0
/*
 * In-place private<->shared conversion of an MFD_INACCESSIBLE memfd
 * (kernel/patches 0027-0029, bench/kvm/inplace.h): one TAP line per
 * invariant, each built from several checks whose failures are printed
 * as "#" lines. Skips (exit 4) when KVM_CAP_PRIVATE_MEM_INPLACE is
 * absent, fails instead under CONVBENCH_REQUIRE_SERIES=1.
 *
 * Layout: one fd of 128 KiB (< 2 MiB: no THP folio, so per-page
 * references and busy offsets are exact; see test_private_fault.c).
 *   slot 1 (in place) at IP_GPA: private part fd[0, 64K), shared part
 *          the VMM's MAP_SHARED mapping of the same fd range (ip_hva);
 *   slot 2 (destructive) at DS_GPA: private part fd[64K, 128K), shared
 *          part anonymous memory, as convbench's destructive mode has it.
 *   slot 3 (in place, 2M) at HP_GPA: a second fd of 2 MiB, whose pages
 *          are one huge folio when shmem THP is on (the VM runs with
 *          "within_size"): part of a huge folio shared, the rest private.
 * Each check uses its own pages of slot 1 (page numbers below). The
 * guest runs on one vCPU that restarts at a new function for each step.
 */
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "inplace.h"
#include "inplace_check.h"
#include "kvm_util.h"
#include "tap.h"

#define TEST_NAME	"test_inplace"
#define PAGE		GUEST_PAGE_SIZE
#define SLOT_SIZE	(64ULL << 10)
#define FD_SIZE		(2 * SLOT_SIZE)
#define IP_SLOT		1
#define IP_GPA		0x40000000ULL
#define DS_SLOT		2
#define DS_GPA		0x40200000ULL
#define DS_OFF		SLOT_SIZE	/* slot 2's part of the fd */
#define HP_SLOT		3
#define HP_GPA		0x40400000ULL
#define HP_LAST		511		/* last page of the 2M slot */
#define KPF_COMPOUND_HEAD 15		/* /proc/kpageflags bit */

/* slot 1 pages */
#define PG_TRIP		0	/* PRESERVE / ZERO round trips */
#define PG_HOST		1	/* host access to private content */
#define PG_OLDMAP	2	/* mapping made while shared */
#define PG_BOTH		3	/* never mapped private and shared */
#define PG_PIN		4	/* 4..7: pinned page blocks to-private */
#define PG_PINNED	6
#define PG_MIX		8	/* 8, 9: next to destructive conversions */

#define P_PRIVATE	0x5052495641544521ULL	/* "PRIVATE!" */
#define P_HOST		0x484f535457524954ULL	/* "HOSTWRIT" */
#define P_GUEST		0x4755455354575254ULL	/* "GUESTWRT" */
#define P_ANON		0x414e4f4e53484152ULL	/* "ANONSHAR" */

#define TO_SHARED	(INPLACE_TO_SHARED | INPLACE_PRESERVE)
#define TO_PRIVATE	(INPLACE_TO_PRIVATE | INPLACE_PRESERVE)

static struct kvm_vm *vm;
static struct kvm_vcpu *vcpu;
static int fd;
static char *ip_hva;		/* slot 1 shared part = fd mapping */
static char *ds_hva;		/* slot 2 shared part, anonymous */
static int hp_fd;		/* slot 3: 2 MiB fd */
static char *hp_hva;		/* slot 3 shared part = fd mapping */

static uint64_t gpa_of(unsigned int pg)
{
	return IP_GPA + pg * PAGE;
}

static uint64_t off_of(unsigned int pg)
{
	return pg * PAGE;
}

static bool record(unsigned int pg, unsigned int npages, bool private)
{
	int r = __vm_set_sw_private(vm, gpa_of(pg), npages * PAGE, private);

	return check(!r, "KVM_SET_SW_PRIVATE_RANGE(page %u, %s): %s", pg,
		     private ? "private" : "shared", strerror(-r));
}

static bool convert_fd(int f, unsigned int pg, unsigned int npages,
		       unsigned int flags)
{
	int r = memfd_convert(f, off_of(pg), npages * PAGE, flags, NULL);

	return check(!r, "convert pages %u..%u flags %#x: %s", pg,
		     pg + npages - 1, flags, strerror(-r));
}

static bool convert(unsigned int pg, unsigned int npages, unsigned int flags)
{
	return convert_fd(fd, pg, npages, flags);
}

static bool fd_op(int r, const char *what)
{
	return check(!r, "%s: %s", what, strerror(-r));
}



/* ------------------------------------------------------------------ */
/* the invariants                                                      */

static void test_api(void)
{
	static const struct { uint64_t off, len; uint32_t flags; } bad[] = {
		{ 100, PAGE, TO_SHARED },		/* unaligned offset */
		{ 0, PAGE + 100, TO_SHARED },		/* unaligned length */
		{ 0, 0, TO_SHARED },			/* empty */
		{ FD_SIZE, PAGE, TO_SHARED },		/* beyond i_size */
		{ 0, FD_SIZE + PAGE, TO_SHARED },	/* partly beyond */
		{ 0, PAGE, INPLACE_PRESERVE },		/* no direction */
		{ 0, PAGE, TO_SHARED | INPLACE_TO_PRIVATE },
		{ 0, PAGE, INPLACE_TO_SHARED },		/* no content mode */
		{ 0, PAGE, TO_SHARED | INPLACE_ZERO },
		{ 0, PAGE, TO_SHARED | (1U << 4) },	/* unknown flag */
	};
	struct memfd_convert_range padded = {
		.len = PAGE, .flags = TO_SHARED, .pad = 1,
	};
	int plain = memfd_create("convbench-plain", MFD_CLOEXEC);
	bool ok = true;
	unsigned int i;
	int r;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		r = memfd_convert(fd, bad[i].off, bad[i].len, bad[i].flags, NULL);
		ok &= check(r == -EINVAL, "offset %#llx len %#llx flags %#x: %s (want EINVAL)",
			    (unsigned long long)bad[i].off,
			    (unsigned long long)bad[i].len, bad[i].flags,
			    strerror(-r));
	}
	r = ioctl(fd, MEMFD_IOC_CONVERT_RANGE, &padded) ? -errno : 0;
	ok &= check(r == -EINVAL, "pad != 0: %s (want EINVAL)", strerror(-r));
	r = plain < 0 || ftruncate(plain, PAGE) ? -errno :
	    memfd_convert(plain, 0, PAGE, TO_SHARED, NULL);
	ok &= check(r == -ENOTTY, "ordinary memfd: %s (want ENOTTY)", strerror(-r));
	close(plain);
	ok &= check(mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED &&
		    errno == EPERM, "mmap(MAP_PRIVATE) of the private fd should be EPERM");
	tap_result(ok, "MEMFD_IOC_CONVERT_RANGE refuses bad ranges and flags (EINVAL), ordinary memfds (ENOTTY); MAP_PRIVATE is EPERM");
}

static void test_host_never_accesses_private(char *fresh)
{
	const char *w = "host/private";
	bool ok;

	/* guest content in a private page, in a fresh and the slot mapping */
	ok = record(PG_HOST, 1, true) &&
	     fd_op(__private_fallocate(fd, off_of(PG_HOST), PAGE), "fallocate") &&
	     guest_writes(gpa_of(PG_HOST), P_PRIVATE, w);
	ok &= host_io_eperm(fd, PG_HOST, w);
	ok &= host_bus(fresh, PG_HOST, "fresh mapping");
	ok &= host_bus(ip_hva, PG_HOST, "slot's mapping");

	/* a mapping that worked while the page was shared stops working */
	ok &= convert(PG_OLDMAP, 1, TO_SHARED) &&
	      host_fills(fresh, PG_OLDMAP, P_HOST, w) &&
	      host_sees(fresh, PG_OLDMAP, P_HOST, w) &&
	      convert(PG_OLDMAP, 1, TO_PRIVATE);
	ok &= host_bus(fresh, PG_OLDMAP, "mapping made while shared");
	ok &= host_io_eperm(fd, PG_OLDMAP, w);

	/* the private content is intact, the page was there all along */
	ok &= record(PG_OLDMAP, 1, true) &&
	      guest_sees(gpa_of(PG_OLDMAP), P_HOST, "kept by to-private");
	ok &= guest_sees(gpa_of(PG_HOST), P_PRIVATE, "untouched by the host");
	tap_result(ok, "the host never reads or writes a private offset: read/pread/write/pwrite EPERM, SIGBUS through a fresh mapping, the slot's mapping and one made while shared");
}

static void test_never_both(void)
{
	uint64_t gpa = gpa_of(PG_BOTH);
	const char *w = "private/shared";
	bool ok;

	ok = record(PG_BOTH, 1, true) &&
	     fd_op(__private_fallocate(fd, off_of(PG_BOTH), PAGE), "fallocate") &&
	     guest_writes(gpa, P_PRIVATE, w);

	/* to-shared zapped the private mapping: a private access exits */
	ok &= convert(PG_BOTH, 1, TO_SHARED) &&
	      guest_exits(gpa, KVM_MEMORY_EXIT_FLAG_PRIVATE,
			  "private access after to-shared");
	/* a shared access maps the host's page: both see each other */
	ok &= record(PG_BOTH, 1, false) &&
	      guest_sees(gpa, P_PRIVATE, "shared access after to-shared") &&
	      host_fills(ip_hva, PG_BOTH, P_HOST, w) &&
	      guest_sees(gpa, P_HOST, "host write seen by the guest") &&
	      guest_writes(gpa, P_GUEST, w) &&
	      host_sees(ip_hva, PG_BOTH, P_GUEST, "guest write seen by the host");

	/* to-private zapped the shared mapping: a shared access exits */
	ok &= convert(PG_BOTH, 1, TO_PRIVATE) &&
	      guest_exits(gpa, 0, "shared access after to-private") &&
	      host_bus(ip_hva, PG_BOTH, "after to-private");
	ok &= record(PG_BOTH, 1, true) &&
	      guest_sees(gpa, P_GUEST, "private access after to-private");
	tap_result(ok, "KVM never maps a gfn private and shared at once: after each conversion the old kind of access exits, the new kind sees the same page as the host");
}

static void test_pin(void)
{
	const char *w = "pin";
	uint64_t err_off = ~0ULL;
	struct iovec iov = { ip_hva + PG_PINNED * PAGE, PAGE };
	unsigned int pg;
	int pipefd[2] = { -1, -1 }, r;
	bool ok;

	ok = convert(PG_PIN, 4, TO_SHARED) && record(PG_PIN, 4, false);
	for (pg = PG_PIN; pg < PG_PIN + 4; pg++)
		ok &= host_fills(ip_hva, pg, P_HOST + pg, w);
	/* vmsplice() takes a get_user_pages() reference, held by the pipe */
	ok &= check(!pipe(pipefd) && vmsplice(pipefd[1], &iov, 1, 0) == PAGE,
		    "vmsplice of page %u: %s", PG_PINNED, strerror(errno));

	r = memfd_convert(fd, off_of(PG_PIN), 4 * PAGE, TO_PRIVATE, &err_off);
	ok &= check(r == -MEMFD_CONVERT_BUSY_ERRNO &&
		    err_off == off_of(PG_PINNED),
		    "to-private of pages %u..%u: %s, error_offset %#llx (want %s, %#llx)",
		    PG_PIN, PG_PIN + 3, strerror(-r),
		    (unsigned long long)err_off,
		    strerror(MEMFD_CONVERT_BUSY_ERRNO),
		    (unsigned long long)off_of(PG_PINNED));
	/* nothing changed: all four still shared, content and all */
	for (pg = PG_PIN; pg < PG_PIN + 4; pg++) {
		ok &= host_sees(ip_hva, pg, P_HOST + pg, "after the busy failure");
		ok &= host_pread_sees(fd, pg, P_HOST + pg, "after the busy failure");
		ok &= guest_sees(gpa_of(pg), P_HOST + pg, "after the busy failure");
	}
	/* the pin holds only its own page */
	ok &= convert(PG_PIN, 2, TO_PRIVATE) &&
	      host_bus(ip_hva, PG_PIN, "converted beside the pin");
	close(pipefd[0]);
	close(pipefd[1]);
	ok &= convert(PG_PINNED, 2, TO_PRIVATE) &&
	      host_bus(ip_hva, PG_PINNED, "converted after the unpin") &&
	      record(PG_PIN, 4, true);
	for (pg = PG_PIN; pg < PG_PIN + 4; pg++)
		ok &= guest_sees(gpa_of(pg), P_HOST + pg, "private after the unpin");
	tap_result(ok, "a pinned page blocks to-private: busy (MEMFD_CONVERT_BUSY_ERRNO) with error_offset of the pinned page, nothing changed; converts once unpinned");
}

static void test_mixed(void)
{
	const char *w = "mixed";
	uint64_t ds = DS_GPA, m = gpa_of(PG_MIX), n = gpa_of(PG_MIX + 1);
	uint64_t i, *anon = (uint64_t *)ds_hva;
	bool ok;

	for (i = 0; i < PAGE / 8; i++)
		anon[i] = P_ANON;
	/* destructive page in slot 2 and in-place pages in slot 1, one fd */
	ok = fd_op(__vm_set_sw_private(vm, ds, PAGE, true), "record") &&
	     fd_op(__private_fallocate(fd, DS_OFF, PAGE), "fallocate") &&
	     guest_writes(ds, P_PRIVATE, w);
	ok &= record(PG_MIX, 2, true) &&
	      fd_op(__private_fallocate(fd, off_of(PG_MIX), 2 * PAGE), "fallocate") &&
	      guest_writes(m, P_GUEST, w) && guest_writes(n, P_GUEST + 1, w);
	ok &= convert(PG_MIX, 1, TO_SHARED) && record(PG_MIX, 1, false);

	/* destructive to-shared next to them: punch, the anonymous page */
	ok &= fd_op(__private_punch_hole(fd, DS_OFF, PAGE), "punch") &&
	      fd_op(__vm_set_sw_private(vm, ds, PAGE, false), "record") &&
	      guest_sees(ds, P_ANON, "destructive to-shared");
	ok &= guest_sees(m, P_GUEST, "in-place shared neighbour") &&
	      host_sees(ip_hva, PG_MIX, P_GUEST, "in-place shared neighbour") &&
	      guest_sees(n, P_GUEST + 1, "private neighbour");

	/* punching an in-place shared page: still shared, now zero */
	ok &= fd_op(__private_punch_hole(fd, off_of(PG_MIX), PAGE), "punch") &&
	      host_sees(ip_hva, PG_MIX, 0, "punched shared page") &&
	      guest_sees(m, 0, "punched shared page");
	/* in place back to private, then destructive to-private beside it */
	ok &= convert(PG_MIX, 2, TO_PRIVATE) && record(PG_MIX, 1, true) &&
	      guest_sees(m, 0, "to-private after the punch") &&
	      guest_sees(n, P_GUEST + 1, "private neighbour");
	ok &= fd_op(__vm_set_sw_private(vm, ds, PAGE, true), "record") &&
	      guest_exits(ds, KVM_MEMORY_EXIT_FLAG_PRIVATE, "punched private") &&
	      fd_op(__private_fallocate(fd, DS_OFF, PAGE), "fallocate") &&
	      guest_sees(ds, 0, "destructive to-private");
	/* and a hole converts in place: private hole, then fallocate */
	ok &= fd_op(__private_punch_hole(fd, off_of(PG_MIX + 1), PAGE), "punch") &&
	      convert(PG_MIX + 1, 1, TO_SHARED) &&
	      convert(PG_MIX + 1, 1, TO_PRIVATE) &&
	      guest_exits(n, KVM_MEMORY_EXIT_FLAG_PRIVATE, "private hole") &&
	      fd_op(__private_fallocate(fd, off_of(PG_MIX + 1), PAGE), "fallocate") &&
	      guest_sees(n, 0, "fallocated private hole");
	tap_result(ok, "destructive (PUNCH_HOLE/fallocate) and in-place conversions mix on one fd without disturbing each other");
}

static void test_preserve_zero(void)
{
	uint64_t gpa = gpa_of(PG_TRIP), pfn1, pfn2, blocks;
	const char *w = "round trip";
	bool ok;

	ok = record(PG_TRIP, 1, true) &&
	     fd_op(__private_fallocate(fd, off_of(PG_TRIP), PAGE), "fallocate") &&
	     guest_writes(gpa, P_PRIVATE, w);
	blocks = fd_blocks(fd);

	/* PRESERVE both ways, the page never moves */
	ok &= convert(PG_TRIP, 1, TO_SHARED) && record(PG_TRIP, 1, false) &&
	      host_sees(ip_hva, PG_TRIP, P_PRIVATE, "to-shared PRESERVE") &&
	      guest_sees(gpa, P_PRIVATE, "to-shared PRESERVE");
	pfn1 = host_pfn(ip_hva + PG_TRIP * PAGE);
	ok &= host_fills(ip_hva, PG_TRIP, P_HOST, w) &&
	      convert(PG_TRIP, 1, TO_PRIVATE) && record(PG_TRIP, 1, true) &&
	      guest_sees(gpa, P_HOST, "to-private PRESERVE") &&
	      guest_writes(gpa, P_GUEST, w);
	ok &= convert(PG_TRIP, 1, TO_SHARED) && record(PG_TRIP, 1, false) &&
	      host_sees(ip_hva, PG_TRIP, P_GUEST, "second to-shared PRESERVE");
	pfn2 = host_pfn(ip_hva + PG_TRIP * PAGE);
	if (pfn1 && pfn2)
		ok &= check(pfn1 == pfn2, "same page across the round trip: pfn %#llx then %#llx",
			    (unsigned long long)pfn1, (unsigned long long)pfn2);
	else
		tap_diag("  (no pfn from /proc/self/pagemap: same-page check left out)");
	ok &= check(fd_blocks(fd) == blocks, "st_blocks %llu -> %llu: a page was freed or allocated",
		    (unsigned long long)blocks, (unsigned long long)fd_blocks(fd));

	/* ZERO both ways */
	ok &= convert(PG_TRIP, 1, INPLACE_TO_PRIVATE | INPLACE_ZERO) &&
	      record(PG_TRIP, 1, true) &&
	      guest_sees(gpa, 0, "to-private ZERO") &&
	      guest_writes(gpa, P_PRIVATE, w);
	ok &= convert(PG_TRIP, 1, INPLACE_TO_SHARED | INPLACE_ZERO) &&
	      record(PG_TRIP, 1, false) &&
	      host_sees(ip_hva, PG_TRIP, 0, "to-shared ZERO") &&
	      guest_sees(gpa, 0, "to-shared ZERO");
	tap_result(ok, "PRESERVE keeps the data across in-place round trips (same page, nothing allocated or freed); ZERO clears it, to-shared and to-private");
}

static bool hp_record(unsigned int pg, unsigned int npages, bool private)
{
	return fd_op(__vm_set_sw_private(vm, HP_GPA + pg * PAGE, npages * PAGE,
					 private), "KVM_SET_SW_PRIVATE_RANGE");
}

static void test_huge(void)
{
	static const unsigned int pages[] = { 0, 1, HP_LAST };
	const char *w = "2M";
	uint64_t pfn1, pfn2, blocks;
	unsigned int i;
	bool ok;

	ok = hp_record(0, HP_LAST + 1, true) &&
	     fd_op(__private_fallocate(hp_fd, 0, SZ_2M), "fallocate");
	for (i = 0; i < 3; i++)
		ok &= guest_writes(HP_GPA + pages[i] * PAGE, P_GUEST + pages[i], w);
	blocks = fd_blocks(hp_fd);

	/* one page of the folio shared: the host reaches it, nothing else */
	ok &= convert_fd(hp_fd, 0, 1, TO_SHARED) &&
	      host_sees(hp_hva, 0, P_GUEST, "first page shared");
	pfn1 = host_pfn(hp_hva);
	if (!(kpageflags(pfn1) & (1ULL << KPF_COMPOUND_HEAD)))
		tap_diag("  (pfn %#llx is not part of a huge folio: shmem THP off? the 2M case is weaker)",
			 (unsigned long long)pfn1);
	ok &= host_bus(hp_hva, 1, "private page of a partly shared folio") &&
	      host_bus(hp_hva, HP_LAST, "private page of a partly shared folio");
	/* KVM maps the private rest 4K: a private access to page 0 exits */
	ok &= guest_sees(HP_GPA + PAGE, P_GUEST + 1, "private next to shared") &&
	      guest_exits(HP_GPA, KVM_MEMORY_EXIT_FLAG_PRIVATE,
			  "shared page inside a private huge folio");
	ok &= hp_record(0, 1, false) &&
	      guest_sees(HP_GPA, P_GUEST, "shared page of a huge folio");

	/* the whole 2M shared, then private again */
	ok &= convert_fd(hp_fd, 0, HP_LAST + 1, TO_SHARED) &&
	      hp_record(0, HP_LAST + 1, false) &&
	      host_sees(hp_hva, 1, P_GUEST + 1, "2M shared") &&
	      host_sees(hp_hva, HP_LAST, P_GUEST + HP_LAST, "2M shared") &&
	      host_fills(hp_hva, HP_LAST, P_HOST, w) &&
	      guest_sees(HP_GPA + HP_LAST * PAGE, P_HOST, "2M shared");
	pfn2 = host_pfn(hp_hva);
	ok &= convert_fd(hp_fd, 0, HP_LAST + 1, TO_PRIVATE) &&
	      host_bus(hp_hva, 0, "2M private") &&
	      host_bus(hp_hva, HP_LAST, "2M private") &&
	      hp_record(0, HP_LAST + 1, true) &&
	      guest_sees(HP_GPA, P_GUEST, "2M private") &&
	      guest_sees(HP_GPA + PAGE, P_GUEST + 1, "2M private") &&
	      guest_sees(HP_GPA + HP_LAST * PAGE, P_HOST, "2M private");
	if (pfn1 && pfn2)
		ok &= check(pfn1 == pfn2, "page 0 moved: pfn %#llx then %#llx",
			    (unsigned long long)pfn1, (unsigned long long)pfn2);
	ok &= check(fd_blocks(hp_fd) == blocks, "st_blocks %llu -> %llu",
		    (unsigned long long)blocks,
		    (unsigned long long)fd_blocks(hp_fd));
	tap_result(ok, "2M: part of a huge folio and then all of it convert in place; the host reaches only shared pages (no PMD, no fault-around), KVM maps the private rest 4K");
}

int main(void)
{
	struct vm_mem_opts o = {
		.flags = KVM_MEM_PRIVATE, .size = SLOT_SIZE,
		.backing = VM_BACKING_ANON,
	};
	struct vm_mem_region *ip, *ds, *hp;
	char *fresh;
	int r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	r = kvm_open_dev();
	if (r < 0)
		tap_no_series(TEST_NAME, true, "no /dev/kvm (%s)", strerror(-r));
	close(r);
	if (!inplace_supported())
		tap_no_series(TEST_NAME, true,
			      "KVM_CAP_PRIVATE_MEM_INPLACE is absent: kernel lacks the in-place variant");
	host_catch_sigbus();

	fd = memfd_inaccessible_create("convbench-inplace", FD_SIZE);
	r = fd < 0 ? fd : __vm_create(&vm, NULL);
	if (!r)
		r = __vm_vcpu_add(vm, 0, guest_read_page, &vcpu);
	if (!r) {
		o.slot = IP_SLOT;
		o.gpa = IP_GPA;
		o.private_fd = fd;
		o.private_offset = 0;
		r = __vm_mem_add(vm, &o, &ip);
	}
	if (!r) {
		/* the slot's shared part becomes the fd itself */
		ip_hva = ip->hva;
		r = inplace_map_shared(fd, 0, SLOT_SIZE, ip_hva);
	}
	if (!r) {
		o.slot = DS_SLOT;
		o.gpa = DS_GPA;
		o.private_offset = DS_OFF;
		r = __vm_mem_add(vm, &o, &ds);
	}
	if (!r) {
		hp_fd = memfd_inaccessible_create("convbench-inplace-2m", SZ_2M);
		r = hp_fd < 0 ? hp_fd : 0;
	}
	if (!r) {
		o.slot = HP_SLOT;
		o.gpa = HP_GPA;
		o.size = SZ_2M;
		o.private_fd = hp_fd;
		o.private_offset = 0;
		r = __vm_mem_add(vm, &o, &hp);
	}
	if (!r) {
		hp_hva = hp->hva;
		r = inplace_map_shared(hp_fd, 0, SZ_2M, hp_hva);
	}
	fresh = r ? MAP_FAILED : mmap(NULL, SLOT_SIZE, PROT_READ | PROT_WRITE,
				      MAP_SHARED, fd, 0);
	if (!r && fresh == MAP_FAILED)
		r = -errno;
	tap_result(!r, "VM with in-place slots (shared part: MAP_SHARED mapping of the private fd), 64K and 2M, and a destructive slot on the first fd (%s)",
		   r ? strerror(-r) : "ok");
	if (r)
		return tap_finish(true);
	ds_hva = ds->hva;
	vcpu_set_timeout(vcpu, 10000);
	guest_checks_init(vcpu);

	test_api();
	test_host_never_accesses_private(fresh);
	test_never_both();
	test_pin();
	test_mixed();
	test_preserve_zero();
	test_huge();

	munmap(fresh, SLOT_SIZE);
	kvm_vm_free(vm);
	close(fd);
	close(hp_fd);
	return tap_finish(true);
}
