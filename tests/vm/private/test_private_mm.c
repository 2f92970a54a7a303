// SPDX-License-Identifier: GPL-2.0
/*
 * Private pages under the host's memory management: what the series
 * claims ("unmovable", "cannot be mapped", "a conversion keeps or clears
 * the content") tried against the mm paths that could break it.
 *
 *   compaction   the guest fills private memory, the host compacts (and
 *                migrates other pages), the guest writes again, KVM's
 *                mappings are dropped: the guest must read what it wrote
 *   hwpoison     a memory error on a private page that KVM maps must
 *                reach KVM (the next access fails, no data comes back)
 *   THP          MADV_HUGEPAGE on the VMM's mapping: a host fault on one
 *                shared offset must not allocate a huge folio over the
 *                private offsets around it; nor may a fallocate() of one
 *                page (its neighbours would turn private)
 *   punch        a PUNCH_HOLE over part of a huge folio whose split fails
 *                (a pinned page) must still zap KVM's mappings
 *   ZERO         converting with MEMFD_CONVERT_ZERO clears exactly the
 *                offsets that change state
 *   busy         a pin that stays fails to-private with EAGAIN and the
 *                pinned offset; a fresh page's LRU-batch reference does
 *                not
 *   hole         in an in-place slot, a shared access to a private hole
 *                is a KVM_EXIT_MEMORY_ERROR exit, not a bare EFAULT
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

#define TEST_NAME	"test_private_mm"
#define PAGE		GUEST_PAGE_SIZE
#define SMALL_SIZE	(64ULL << 10)	/* < 2M: 4K folios */
#define SMALL_SLOT	1
#define SMALL_GPA	0x40000000ULL
#define HUGE_SLOT	2
#define HUGE_GPA	0x40200000ULL
#define COMPACT_SLOT	3
#define COMPACT_GPA	0x42000000ULL
#define COMPACT_SIZE	(32ULL << 20)
#define KPF_COMPOUND_HEAD 15
#define THP_SHMEM	"/sys/kernel/mm/transparent_hugepage/shmem_enabled"
#define HWPOISON_PFN	"/sys/kernel/debug/hwpoison/corrupt-pfn"

/* small fd pages */
#define PG_HWPOISON	0
#define PG_ZERO_A	2	/* shared and mapped before to-shared|ZERO */
#define PG_ZERO_B	3	/* private before it */
#define PG_ZERO_C	4	/* private before to-private|ZERO */
#define PG_ZERO_D	5	/* shared before it */
#define PG_PIN		8
#define PG_FRESH	10
#define PG_HOLE		12

#define P_GUEST		0x4755455354575254ULL	/* "GUESTWRT" */
#define P_HOST		0x484f535457524954ULL	/* "HOSTWRIT" */
#define P_FILL1		0x46494c4c31000000ULL	/* "FILL1" + page */
#define P_FILL2		0x46494c4c32000000ULL	/* "FILL2" + page */

#define TO_SHARED	(INPLACE_TO_SHARED | INPLACE_PRESERVE)
#define TO_PRIVATE	(INPLACE_TO_PRIVATE | INPLACE_PRESERVE)

static struct kvm_vm *vm;
static struct kvm_vcpu *vcpu;
static int small_fd, huge_fd;
static char *small_map;		/* the small slot's shared part */
/*
 * Page 0 of the huge fd, mapped on its own: the huge slot's shared part
 * is anonymous, so that a punch reaches KVM only through the memfile
 * notifier (a mapping of the fd at the slot's address would zap KVM's
 * mappings through the mmu notifier too).
 */
static char *huge_map;

static const char *ename(int err)
{
	const char *n = strerrorname_np(err);

	return n ? n : "?";
}

/* ------------------------------------------------------------------ */
/* guest code: whole ranges                                            */

static GUEST_CODE void guest_fill_range(uint64_t gpa, uint64_t size,
					uint64_t base)
{
	uint64_t off;

	for (off = 0; off < size; off += PAGE)
		guest_fill64((void *)(gpa + off), base + off / PAGE, PAGE);
	GUEST_SYNC(0);
	GUEST_DONE();
}

/* pages whose words are not all base + page index, and the first one */
static GUEST_CODE void guest_check_range(uint64_t gpa, uint64_t size,
					 uint64_t base)
{
	uint64_t off, bad = 0, first = ~0ULL, found = 0;

	for (off = 0; off < size; off += PAGE) {
		if (!guest_count_mismatch64((void *)(gpa + off),
					    base + off / PAGE, PAGE))
			continue;
		if (!bad++) {
			first = off / PAGE;
			found = guest_read64(gpa + off);
		}
	}
	GUEST_SYNC_ARGS(bad, first, found, 0);
	GUEST_DONE();
}


/* ------------------------------------------------------------------ */
/* helpers                                                             */

static bool record(uint64_t gpa, uint64_t size, bool private)
{
	return record_range(vm, gpa, size, private);
}

static bool convert(int fd, unsigned int pg, unsigned int n, unsigned int flags)
{
	int r = memfd_convert(fd, pg * PAGE, n * PAGE, flags, NULL);

	return check(!r, "convert pages %u..%u flags %#x: %s", pg, pg + n - 1,
		     flags, strerror(-r));
}

static uint64_t vmstat(const char *name)
{
	char line[128];
	uint64_t v = 0;
	size_t n = strlen(name);
	FILE *f = fopen("/proc/vmstat", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, name, n) && line[n] == ' ')
			v = strtoull(line + n + 1, NULL, 10);
	if (f)
		fclose(f);
	return v;
}

/* the bracketed word of a sysfs choice file, "" if unknown */
static void read_choice(const char *path, char *out, size_t len)
{
	char buf[128] = "", *a, *b;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	out[0] = 0;
	if (n <= 0)
		return;
	buf[n] = 0;
	a = strchr(buf, '[');
	b = a ? strchr(a, ']') : NULL;
	if (a && b && (size_t)(b - a) < len) {
		memcpy(out, a + 1, b - a - 1);
		out[b - a - 1] = 0;
	}
}

static uint64_t stat_vm(const char *name)
{
	uint64_t v = ~0ULL;

	kvm_stat_once(vm->fd, name, &v);
	return v;
}

/* ------------------------------------------------------------------ */
/* compaction                                                          */

static void test_compaction(void)
{
	struct vm_mem_opts o = {
		.slot = COMPACT_SLOT, .flags = KVM_MEM_PRIVATE,
		.gpa = COMPACT_GPA, .size = COMPACT_SIZE,
		.backing = VM_BACKING_ANON,
	};
	size_t frag_size = 256ULL << 20, i;
	char thp[32], *frag;
	uint64_t migrated;
	struct ucall uc = { 0 };
	bool ok = true;
	int fd, r;

	/* 4K private pages: compaction skips huge folios */
	read_choice(THP_SHMEM, thp, sizeof(thp));
	write_file(THP_SHMEM, "never");
	/* scatter the private pages over memory: fill, then free half */
	frag = mmap(NULL, frag_size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (frag != MAP_FAILED) {
		madvise(frag, frag_size, MADV_NOHUGEPAGE);
		for (i = 0; i < frag_size; i += 2 * PAGE)
			madvise(frag + i, PAGE, MADV_DONTNEED);
	}
	fd = memfd_inaccessible_create("convbench-mm-compact", COMPACT_SIZE);
	o.private_fd = fd;
	r = fd < 0 ? fd : __vm_mem_add(vm, &o, NULL);
	if (!r)
		r = __private_fallocate(fd, 0, COMPACT_SIZE);
	if (frag != MAP_FAILED)
		munmap(frag, frag_size);
	if (thp[0])
		write_file(THP_SHMEM, thp);
	if (!r)
		r = __vm_set_sw_private(vm, COMPACT_GPA, COMPACT_SIZE, true);
	if (!r)
		r = guest_call3(guest_fill_range, COMPACT_GPA, COMPACT_SIZE,
				P_FILL1, &uc);
	if (r) {
		tap_result(false, "compaction leaves private pages where KVM maps them (setup: %s)",
			   strerror(-r));
		if (fd >= 0)
			close(fd);
		return;
	}

	migrated = vmstat("pgmigrate_success");
	ok &= check(write_file("/proc/sys/vm/compact_memory", "1"),
		    "echo 1 > /proc/sys/vm/compact_memory failed");
	migrated = vmstat("pgmigrate_success") - migrated;
	ok &= check(migrated > 0, "compaction migrated nothing: the check below proves little");

	/* the guest writes through whatever KVM maps now... */
	r = guest_call3(guest_fill_range, COMPACT_GPA, COMPACT_SIZE, P_FILL2,
			&uc);
	ok &= check(!r, "guest fill after compaction: %s", strerror(-r));
	/* ...and after KVM's mappings are dropped reads the fd's pages */
	ok &= record(COMPACT_GPA, COMPACT_SIZE, true);
	r = guest_call3(guest_check_range, COMPACT_GPA, COMPACT_SIZE, P_FILL2,
			&uc);
	ok &= check(!r && !uc.args[0],
		    "%llu of %llu pages lost the guest's writes (first: page %llu reads %#llx): KVM mapped pages that had moved",
		    (unsigned long long)uc.args[0],
		    (unsigned long long)(COMPACT_SIZE / PAGE),
		    (unsigned long long)uc.args[1],
		    (unsigned long long)uc.args[2]);
	tap_result(ok, "compaction (%llu other pages migrated) moves no private page: all %llu pages keep the guest's later writes",
		   (unsigned long long)migrated,
		   (unsigned long long)(COMPACT_SIZE / PAGE));
	__vm_mem_del(vm, COMPACT_SLOT);
	close(fd);
}

/* ------------------------------------------------------------------ */
/* hwpoison                                                            */

static void test_hwpoison(void)
{
	uint64_t gpa = SMALL_GPA + PG_HWPOISON * PAGE, pfn;
	struct kvm_run_memory_exit *m = kvm_run_memory(vcpu->run);
	struct ucall uc = { 0 };
	char buf[32];
	bool ok;
	int r;

	if (access(HWPOISON_PFN, W_OK)) {
		tap_skip("no hwpoison injector (CONFIG_HWPOISON_INJECT)",
			 "a memory error on a private page reaches KVM");
		return;
	}
	/* learn the pfn while the page is shared, then make it private */
	ok = convert(small_fd, PG_HWPOISON, 1, TO_SHARED) &&
	     host_fills(small_map, PG_HWPOISON, P_HOST, "hwpoison setup");
	pfn = host_pfn(small_map + PG_HWPOISON * PAGE);
	ok &= check(pfn, "no pfn for the page") &&
	      convert(small_fd, PG_HWPOISON, 1, TO_PRIVATE) &&
	      record(gpa, PAGE, true) &&
	      guest_sees(gpa, P_HOST, "private page before the error");
	if (!ok) {
		tap_result(false, "a memory error on a private page reaches KVM (setup failed)");
		return;
	}
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)pfn);
	ok &= check(write_file(HWPOISON_PFN, buf), "injecting at pfn %#llx failed: %s",
		    (unsigned long long)pfn, strerror(errno));
	r = __vcpu_set_entry(vcpu, guest_read_page);
	if (!r)
		r = __vcpu_args_set(vcpu, 1, &gpa);
	if (!r)
		r = __vcpu_run(vcpu);
	ok &= check(r && r != -ETIMEDOUT && vcpu->run->exit_reason == KVM_EXIT_MEMORY_ERROR,
		    "after the error the guest's access %s (KVM_RUN %s, exit %s)",
		    !r && get_ucall(vcpu, &uc) == UCALL_SYNC ?
		    "still read the page" : "did not fail as expected",
		    r ? ename(-r) : "0",
		    exit_reason_str(vcpu->run->exit_reason));
	tap_result(ok, "a memory error on a private page (pfn %#llx) reaches KVM: the guest's next access fails (KVM_RUN %s, KVM_EXIT_MEMORY_ERROR gpa %#llx flags %#x)",
		   (unsigned long long)pfn, r ? ename(-r) : "0",
		   (unsigned long long)m->gpa, m->flags);
}

/* ------------------------------------------------------------------ */
/* no huge folio from a host fault                                     */

static void test_thp_madvise(void)
{
	int fd = memfd_inaccessible_create("convbench-mm-thp", SZ_2M);
	char *raw = MAP_FAILED, *map = MAP_FAILED;
	uint64_t blocks = 0;
	off_t data = 0;
	bool ok;

	ok = check(fd >= 0, "memfd: %s", strerror(-fd)) &&
	     convert(fd, 0, 1, TO_SHARED);
	if (ok)
		raw = mmap(NULL, 2 * SZ_2M, PROT_NONE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (raw != MAP_FAILED)
		map = mmap((void *)(((uintptr_t)raw + SZ_2M - 1) & ~(SZ_2M - 1)),
			   SZ_2M, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
			   fd, 0);
	ok &= check(map != MAP_FAILED, "mmap: %s", strerror(errno));
	if (ok) {
		/* clears the VM_NOHUGEPAGE that mmap of the fd set */
		ok &= check(!madvise(map, SZ_2M, MADV_HUGEPAGE),
			    "madvise(MADV_HUGEPAGE): %s", strerror(errno));
		ok &= host_fills(map, 0, P_HOST, "the shared page");
		blocks = fd_blocks(fd);
		data = lseek(fd, PAGE, SEEK_DATA);
		ok &= check(blocks == PAGE / 512,
			    "st_blocks %llu after one host fault (want %llu): a huge folio was allocated over private offsets",
			    (unsigned long long)blocks,
			    (unsigned long long)(PAGE / 512));
		ok &= check(data < 0 && errno == ENXIO,
			    "SEEK_DATA from the first private offset finds data at %lld",
			    (long long)data);
	}
	tap_result(ok, "MADV_HUGEPAGE on a mapping of the memfd: a host fault on one shared offset allocates one 4K page, no huge folio over the private offsets (st_blocks %llu)",
		   (unsigned long long)blocks);
	if (raw != MAP_FAILED)
		munmap(raw, 2 * SZ_2M);
	if (fd >= 0)
		close(fd);
}

/* an allocated page is a private page: fallocate() allocates its range */
static void test_falloc_range(void)
{
	int fd = memfd_inaccessible_create("convbench-mm-falloc", SZ_2M);
	uint64_t blocks = ~0ULL;
	bool ok;

	ok = check(fd >= 0, "memfd: %s", strerror(-fd)) &&
	     check(!__private_fallocate(fd, 8 * PAGE, PAGE), "fallocate: %s",
		   strerror(errno));
	if (ok) {
		blocks = fd_blocks(fd);
		ok &= check(blocks == PAGE / 512,
			    "st_blocks %llu after fallocate() of one page (want %llu): a huge folio was allocated",
			    (unsigned long long)blocks,
			    (unsigned long long)(PAGE / 512));
	}
	tap_result(ok, "fallocate() of one page of a 2M hole allocates that page only: its neighbours stay holes, not private (st_blocks %llu)",
		   (unsigned long long)blocks);
	if (fd >= 0)
		close(fd);
}

/* ------------------------------------------------------------------ */
/* PUNCH_HOLE over part of a huge folio that cannot split              */

static uint64_t kvm_mapped_pages(void)
{
	uint64_t p4 = stat_vm("pages_4k"), p2 = stat_vm("pages_2m");

	return p4 == ~0ULL || p2 == ~0ULL ? ~0ULL : p4 + 512 * p2;
}

static void test_partial_punch(void)
{
	const unsigned int first = 16, n = 16;
	uint64_t before, after, pfn;
	struct iovec iov = { huge_map, PAGE };
	int pipefd[2] = { -1, -1 };
	unsigned int i;
	bool ok;
	int r;

	/*
	 * The whole folio shared (a conversion that leaves a folio partly
	 * shared splits it), page 0 pinned: nothing can split it now.
	 * KVM maps the shared pages from the fd, 2M.
	 */
	ok = check(!memfd_convert(huge_fd, 0, SZ_2M, TO_SHARED, NULL),
		   "convert the 2M folio to shared") &&
	     record(HUGE_GPA, SZ_2M, false) &&
	     host_fills(huge_map, 0, P_HOST, "page 0 of the huge folio");
	pfn = host_pfn(huge_map);
	if (ok && !(kpageflags(pfn) & (1ULL << KPF_COMPOUND_HEAD))) {
		tap_skip("the 2M fd has no huge folio (shmem THP off?)",
			 "PUNCH_HOLE over part of a huge folio that cannot split zaps KVM's mappings");
		return;
	}
	ok &= check(!pipe(pipefd) && vmsplice(pipefd[1], &iov, 1, 0) == PAGE,
		    "vmsplice pin: %s", strerror(errno));
	for (i = first; ok && i < first + n; i++)
		ok &= guest_sees(HUGE_GPA + i * PAGE, 0, "shared page before the punch");
	before = kvm_mapped_pages();
	/* the folio stays: EAGAIN, the range cleared, KVM told */
	r = __private_punch_hole(huge_fd, first * PAGE, n * PAGE);
	ok &= check(r == -EAGAIN, "punch: %s (want EAGAIN: a pinned page keeps the folio)",
		    r ? strerror(-r) : "ok");
	after = kvm_mapped_pages();
	ok &= check(before != ~0ULL && after != ~0ULL && after + n <= before,
		    "pages KVM maps %llu -> %llu: the punched pages stayed mapped",
		    (unsigned long long)before, (unsigned long long)after);
	for (i = first; ok && i < first + n; i++)
		ok &= guest_sees(HUGE_GPA + i * PAGE, 0, "punched page");
	tap_result(ok, "PUNCH_HOLE over %u pages of a huge folio whose split fails (a pinned page) fails with EAGAIN, clears them and zaps KVM's mappings of them (pages mapped %llu -> %llu)",
		   n, (unsigned long long)before, (unsigned long long)after);
	close(pipefd[0]);
	close(pipefd[1]);
}

/* ------------------------------------------------------------------ */
/* ZERO touches exactly the offsets that change state                  */

static void test_zero(void)
{
	bool ok;

	/* A shared and mapped by the host, B private with guest data */
	ok = convert(small_fd, PG_ZERO_A, 1, TO_SHARED) &&
	     host_fills(small_map, PG_ZERO_A, P_HOST, "A") &&
	     record(SMALL_GPA + PG_ZERO_B * PAGE, PAGE, true) &&
	     guest_writes(SMALL_GPA + PG_ZERO_B * PAGE, P_GUEST, "B");
	ok &= convert(small_fd, PG_ZERO_A, 2, INPLACE_TO_SHARED | INPLACE_ZERO);
	ok &= host_sees(small_map, PG_ZERO_A, P_HOST,
			"to-shared|ZERO: A was shared already, its content stays");
	ok &= host_sees(small_map, PG_ZERO_B, 0,
			"to-shared|ZERO: B became shared, it is cleared");

	/* C private with guest data, D shared with host data */
	ok &= record(SMALL_GPA + PG_ZERO_C * PAGE, PAGE, true) &&
	      guest_writes(SMALL_GPA + PG_ZERO_C * PAGE, P_GUEST, "C") &&
	      convert(small_fd, PG_ZERO_D, 1, TO_SHARED) &&
	      host_fills(small_map, PG_ZERO_D, P_HOST, "D");
	ok &= convert(small_fd, PG_ZERO_C, 2, INPLACE_TO_PRIVATE | INPLACE_ZERO) &&
	      record(SMALL_GPA + PG_ZERO_C * PAGE, 2 * PAGE, true);
	ok &= guest_sees(SMALL_GPA + PG_ZERO_C * PAGE, P_GUEST,
			 "to-private|ZERO: C was private already, its content stays");
	ok &= guest_sees(SMALL_GPA + PG_ZERO_D * PAGE, 0,
			 "to-private|ZERO: D became private, it is cleared");
	tap_result(ok, "MEMFD_CONVERT_ZERO clears exactly the offsets that change state: a shared page the host maps and a private page the guest uses keep their content");
}

/* ------------------------------------------------------------------ */
/* a pin that stays fails with EAGAIN, a transient reference does not  */

static void test_busy(void)
{
	struct iovec iov = { small_map + PG_PIN * PAGE, PAGE };
	uint64_t err_off = ~0ULL;
	int pipefd[2] = { -1, -1 };
	bool ok;
	int r;

	ok = convert(small_fd, PG_PIN, 2, TO_SHARED) &&
	     host_fills(small_map, PG_PIN, P_HOST, "pinned page");
	ok &= check(!pipe(pipefd) && vmsplice(pipefd[1], &iov, 1, 0) == PAGE,
		    "vmsplice pin: %s", strerror(errno));
	r = memfd_convert(small_fd, PG_PIN * PAGE, 2 * PAGE, TO_PRIVATE, &err_off);
	ok &= check(r == -MEMFD_CONVERT_BUSY_ERRNO && err_off == PG_PIN * PAGE,
		    "to-private of a pinned page: %s, error_offset %#llx (want EAGAIN, %#llx)",
		    r ? ename(-r) : "ok", (unsigned long long)err_off,
		    (unsigned long long)(PG_PIN * PAGE));
	ok &= host_sees(small_map, PG_PIN, P_HOST, "nothing changed after EAGAIN");
	close(pipefd[0]);
	close(pipefd[1]);
	ok &= convert(small_fd, PG_PIN, 2, TO_PRIVATE);

	/* fresh pages sit in a CPU's LRU batch with an extra reference */
	ok &= check(!__private_fallocate(small_fd, PG_FRESH * PAGE, 2 * PAGE),
		    "fallocate: %s", strerror(errno)) &&
	      convert(small_fd, PG_FRESH, 2, TO_SHARED) &&
	      host_fills(small_map, PG_FRESH, P_HOST, "fresh page") &&
	      convert(small_fd, PG_FRESH, 2, TO_PRIVATE);
	tap_result(ok, "to-private: a pin that stays fails with EAGAIN and the pinned offset, changing nothing; fresh pages (LRU batch references) convert at once");
}

/* ------------------------------------------------------------------ */
/* a shared access to a private hole of an in-place slot               */

static void test_hole(void)
{
	uint64_t gpa = SMALL_GPA + PG_HOLE * PAGE;
	bool ok;

	ok = check(!__private_punch_hole(small_fd, PG_HOLE * PAGE, PAGE),
		   "punch: %s", strerror(errno)) &&
	     record(gpa, PAGE, false);
	ok &= guest_exits(gpa, 0, "shared access to a private hole");
	tap_result(ok, "in an in-place slot a shared access to a private hole exits with KVM_EXIT_MEMORY_ERROR (flags 0), so the VMM can convert it");
}

static int setup(void)
{
	struct vm_mem_opts o = {
		.flags = KVM_MEM_PRIVATE, .backing = VM_BACKING_ANON,
	};
	struct vm_mem_region *mr;
	int r;

	small_fd = memfd_inaccessible_create("convbench-mm-small", SMALL_SIZE);
	huge_fd = memfd_inaccessible_create("convbench-mm-huge", SZ_2M);
	r = small_fd < 0 ? small_fd : huge_fd < 0 ? huge_fd : 0;
	if (!r)
		r = __private_fallocate(small_fd, 0, SMALL_SIZE);
	if (!r)
		r = __private_fallocate(huge_fd, 0, SZ_2M);
	if (!r)
		r = __vm_create(&vm, NULL);
	if (!r)
		r = __vm_vcpu_add(vm, 0, guest_read_page, &vcpu);
	if (!r) {
		o.slot = SMALL_SLOT;
		o.gpa = SMALL_GPA;
		o.size = SMALL_SIZE;
		o.private_fd = small_fd;
		r = __vm_mem_add(vm, &o, &mr);
	}
	if (!r) {
		small_map = mr->hva;
		r = inplace_map_shared(small_fd, 0, SMALL_SIZE, small_map);
	}
	if (!r) {
		o.slot = HUGE_SLOT;
		o.gpa = HUGE_GPA;
		o.size = SZ_2M;
		o.private_fd = huge_fd;
		r = __vm_mem_add(vm, &o, &mr);
	}
	if (!r) {
		huge_map = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED,
				huge_fd, 0);
		r = huge_map == MAP_FAILED ? -errno : 0;
	}
	if (!r) {
		vcpu_set_timeout(vcpu, 20000);
		guest_checks_init(vcpu);
	}
	return r;
}

int main(void)
{
	int r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	require_series(TEST_NAME, true);

	r = setup();
	tap_result(!r, "VM with an in-place 64K slot and a 2M slot on fallocated memfds (%s)",
		   r ? strerror(-r) : "ok");
	if (r)
		return tap_finish(true);

	test_thp_madvise();
	test_falloc_range();
	test_zero();
	test_busy();
	test_hole();
	test_partial_punch();
	test_hwpoison();
	test_compaction();

	kvm_vm_free(vm);
	close(small_fd);
	close(huge_fd);
	return tap_finish(true);
}
