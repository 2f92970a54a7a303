// SPDX-License-Identifier: GPL-2.0
/*
 * A private page must be unreachable from the host by every path. Each
 * check here tries one way in and expects the kernel to refuse it:
 *
 *   fd binding   an O_RDONLY or O_WRONLY fd of the memfd as private_fd;
 *                a second VM over the same memfd (while the first lives
 *                and after it is gone); two slots over the same offsets;
 *                a slot beyond the file; and that deleting a slot frees
 *                its offsets for a new slot of the same VM
 *   memfd flags  MFD_HUGETLB | MFD_INACCESSIBLE
 *   ABI numbers  upstream's KVM_SET_MEMORY_ATTRIBUTES number is not ours
 *   syscalls     io_uring and AIO reads, userfaultfd registration,
 *                process_vm_readv and /proc/PID/mem, move_pages() to
 *                another node, MADV_SOFT_OFFLINE: against private
 *                offsets of a MAP_SHARED mapping of the fd (the in-place
 *                variant allows one)
 *
 * A syscall the kernel lacks (the main kernel has no io_uring, AIO,
 * userfaultfd, NUMA or memory-failure support; the debug kernel has
 * them all, kernel/config/debug.config) is a SKIP line, never a pass.
 */
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <linux/aio_abi.h>
#include <linux/io_uring.h>
#include <linux/userfaultfd.h>

#include "inplace.h"
#include "inplace_check.h"
#include "kvm_util.h"
#include "tap.h"

#define TEST_NAME	"test_private_isolation"
#define PAGE		GUEST_PAGE_SIZE
#define SLOT_SIZE	(64ULL << 10)
#define GPA_A		0x40000000ULL
#define GPA_B		0x40200000ULL
#define GPA_C		0x40400000ULL
#define P_GUEST		0x4755455354575254ULL	/* "GUESTWRT" */
#define P_HOST		0x484f535457524954ULL	/* "HOSTWRIT" */

#ifndef MFD_HUGETLB
#define MFD_HUGETLB	0x0004U
#endif
#ifndef MADV_SOFT_OFFLINE
#define MADV_SOFT_OFFLINE 101
#endif

/* upstream's (6.8+) number for KVM_SET_MEMORY_ATTRIBUTES: never ours */
struct upstream_kvm_memory_attributes {
	__u64 address, size, attributes, flags;
};
#define UPSTREAM_KVM_SET_MEMORY_ATTRIBUTES \
	_IOW(KVMIO, 0xd2, struct upstream_kvm_memory_attributes)

static const char *ename(int err)
{
	const char *n = strerrorname_np(err);

	return n ? n : "?";
}

static int slot_add(struct kvm_vm *v, uint32_t slot, uint64_t gpa,
		    uint64_t size, int fd, uint64_t off)
{
	struct vm_mem_opts o = {
		.slot = slot, .flags = KVM_MEM_PRIVATE, .gpa = gpa,
		.size = size, .backing = VM_BACKING_ANON, .private_fd = fd,
		.private_offset = off,
	};

	return __vm_mem_add(v, &o, NULL);
}

static int reopen(int fd, int flags)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return open(path, flags | O_CLOEXEC);
}

/* ------------------------------------------------------------------ */
/* fd binding                                                          */

static void test_fd_modes(void)
{
	struct kvm_vm *v = NULL;
	int fd = memfd_inaccessible_create("convbench-iso-modes", SLOT_SIZE);
	int ro = fd < 0 ? -1 : reopen(fd, O_RDONLY);
	int wo = fd < 0 ? -1 : reopen(fd, O_WRONLY);
	int r = fd < 0 ? fd : ro < 0 || wo < 0 ? -errno : __vm_create(&v, NULL);
	int r_ro = -1, r_wo = -1, r_rw = -1;

	if (!r) {
		r_ro = slot_add(v, 1, GPA_A, SLOT_SIZE, ro, 0);
		r_wo = slot_add(v, 2, GPA_B, SLOT_SIZE, wo, 0);
		r_rw = slot_add(v, 3, GPA_C, SLOT_SIZE, fd, 0);
	}
	tap_result(!r && r_ro == -EBADF && r_wo == -EBADF && !r_rw,
		   "private_fd must be open read-write: O_RDONLY %s, O_WRONLY %s (want EBADF), O_RDWR %s (want ok)",
		   ename(-r_ro), ename(-r_wo), r_rw ? ename(-r_rw) : "ok");
	if (r)
		tap_diag("  setup: %s", strerror(-r));
	if (v)
		kvm_vm_free(v);
	close(ro);
	close(wo);
	close(fd);
}

static void test_second_vm(void)
{
	struct kvm_vm *v1 = NULL, *v2 = NULL;
	int fd = memfd_inaccessible_create("convbench-iso-vm", SLOT_SIZE);
	int rw = fd < 0 ? -1 : reopen(fd, O_RDWR);
	int r, r_live = -1, r_gone = -1;

	r = fd < 0 ? fd : rw < 0 ? -errno : __vm_create(&v1, NULL);
	if (!r)
		r = __vm_create(&v2, NULL);
	if (!r)
		r = slot_add(v1, 1, GPA_A, SLOT_SIZE, fd, 0);
	if (!r) {
		/* another VM, the same file through its own open */
		r_live = slot_add(v2, 1, GPA_A, SLOT_SIZE, rw, 0);
		kvm_vm_free(v1);
		v1 = NULL;
		/* the file stays the first VM's: its private data is there */
		r_gone = slot_add(v2, 2, GPA_B, SLOT_SIZE, rw, 0);
	}
	tap_result(!r && r_live == -EBUSY && r_gone == -EBUSY,
		   "a memfd that backs one VM's private memory cannot back another VM's: while the first lives %s, after it is gone %s (want EBUSY)",
		   r_live ? ename(-r_live) : "accepted",
		   r_gone ? ename(-r_gone) : "accepted");
	if (r)
		tap_diag("  setup: %s", strerror(-r));
	if (v1)
		kvm_vm_free(v1);
	if (v2)
		kvm_vm_free(v2);
	close(rw);
	close(fd);
}

static void test_overlap(void)
{
	struct kvm_vm *v = NULL;
	int fd = memfd_inaccessible_create("convbench-iso-overlap",
					   3 * SLOT_SIZE);
	int r = fd < 0 ? fd : __vm_create(&v, NULL);
	int r_same = -1, r_part = -1, r_next = -1, r_del = -1, r_again = -1;
	int r_beyond = -1;

	if (!r)
		r = slot_add(v, 1, GPA_A, SLOT_SIZE, fd, SLOT_SIZE);
	if (!r) {
		r_same = slot_add(v, 2, GPA_B, SLOT_SIZE, fd, SLOT_SIZE);
		r_part = slot_add(v, 3, GPA_C, SLOT_SIZE, fd, SLOT_SIZE / 2);
		r_next = slot_add(v, 4, GPA_C, SLOT_SIZE, fd, 2 * SLOT_SIZE);
		r_beyond = slot_add(v, 5, GPA_B, SLOT_SIZE, fd, 3 * SLOT_SIZE);
		r_del = __vm_mem_del(v, 1);
		r_again = slot_add(v, 6, GPA_B, SLOT_SIZE, fd, SLOT_SIZE / 2);
	}
	tap_result(!r && r_same == -EEXIST && r_part == -EEXIST && !r_next &&
		   r_beyond == -EINVAL && !r_del && !r_again,
		   "offsets of the memfd back one slot at a time: the same offsets %s, overlapping ones %s (want EEXIST), the next ones %s, beyond the file %s (want EINVAL), after deleting the slot its offsets %s",
		   r_same ? ename(-r_same) : "accepted",
		   r_part ? ename(-r_part) : "accepted",
		   r_next ? ename(-r_next) : "ok",
		   r_beyond ? ename(-r_beyond) : "accepted",
		   r_del || r_again ? ename(-(r_del ? r_del : r_again)) : "ok");
	if (r)
		tap_diag("  setup: %s", strerror(-r));
	if (v)
		kvm_vm_free(v);
	close(fd);
}

/* ------------------------------------------------------------------ */
/* memfd flags and ABI numbers                                         */

static void test_hugetlb(void)
{
	int plain = memfd_create("convbench-iso-huge", MFD_HUGETLB | MFD_CLOEXEC);
	int fd, err;

	if (plain < 0) {
		tap_skip("no hugetlbfs in this kernel", "MFD_HUGETLB | MFD_INACCESSIBLE is refused (MFD_HUGETLB alone: %s)",
			 ename(errno));
		return;
	}
	close(plain);
	fd = memfd_create("convbench-iso-huge",
			  MFD_HUGETLB | MFD_INACCESSIBLE | MFD_CLOEXEC);
	err = errno;
	tap_result(fd < 0 && err == EINVAL,
		   "MFD_HUGETLB | MFD_INACCESSIBLE is refused with EINVAL (%s): hugetlbfs has none of the series' protections",
		   fd < 0 ? ename(err) : "a readable hugetlbfs file was created");
	if (fd >= 0)
		close(fd);
}

static void test_abi_numbers(struct kvm_vm *v)
{
	struct upstream_kvm_memory_attributes a = {
		.address = GPA_A, .size = PAGE, .attributes = 1ULL << 3,
	};
	int r = ioctl(v->fd, UPSTREAM_KVM_SET_MEMORY_ATTRIBUTES, &a) ? -errno : 0;
	int ours = __vm_set_sw_private(v, GPA_A, PAGE, false);

	tap_result(r == -ENOTTY && !ours,
		   "our record ioctl (%#lx) is not upstream's KVM_SET_MEMORY_ATTRIBUTES (%#lx): that number is ENOTTY here (%s), ours works (%s)",
		   (unsigned long)KVM_SET_SW_PRIVATE_RANGE,
		   (unsigned long)UPSTREAM_KVM_SET_MEMORY_ATTRIBUTES,
		   r ? ename(-r) : "accepted", ours ? ename(-ours) : "ok");
}

/* ------------------------------------------------------------------ */
/* syscalls against private offsets of a mapping of the fd             */

static int pfd;			/* in-place memfd: page 0 shared, 1.. private */
static char *pmap;		/* MAP_SHARED mapping of all of it */
#define PG_SHARED	0
#define PG_PRIV		1

static void test_io_uring(void)
{
	struct io_uring_params p = { 0 };
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqe;
	char *sq, *cq, buf[PAGE];
	unsigned int *sq_tail, *sq_array, *cq_head, *cq_tail;
	size_t sq_len, cq_len;
	int ring, res = 1, n;

	ring = syscall(__NR_io_uring_setup, 4, &p);
	if (ring < 0) {
		tap_skip(ename(errno), "io_uring read of a private offset fails with EPERM");
		return;
	}
	sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	sq = mmap(NULL, sq_len, PROT_READ | PROT_WRITE, MAP_SHARED, ring,
		  IORING_OFF_SQ_RING);
	cq = mmap(NULL, cq_len, PROT_READ | PROT_WRITE, MAP_SHARED, ring,
		  IORING_OFF_CQ_RING);
	sqes = mmap(NULL, p.sq_entries * sizeof(*sqes), PROT_READ | PROT_WRITE,
		    MAP_SHARED, ring, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED) {
		tap_result(false, "io_uring read of a private offset fails with EPERM (ring mmap: %s)",
			   strerror(errno));
		close(ring);
		return;
	}
	sq_tail = (unsigned int *)(sq + p.sq_off.tail);
	sq_array = (unsigned int *)(sq + p.sq_off.array);
	cq_head = (unsigned int *)(cq + p.cq_off.head);
	cq_tail = (unsigned int *)(cq + p.cq_off.tail);
	memset(&sqes[0], 0, sizeof(sqes[0]));
	sqes[0].opcode = IORING_OP_READ;
	sqes[0].fd = pfd;
	sqes[0].addr = (uintptr_t)buf;
	sqes[0].len = PAGE;
	sqes[0].off = PG_PRIV * PAGE;
	sq_array[0] = 0;
	__atomic_store_n(sq_tail, *sq_tail + 1, __ATOMIC_RELEASE);
	n = syscall(__NR_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS,
		    NULL, 0);
	if (n >= 0 && __atomic_load_n(cq_tail, __ATOMIC_ACQUIRE) != *cq_head) {
		cqe = (struct io_uring_cqe *)(cq + p.cq_off.cqes) +
		      (*cq_head & (p.cq_entries - 1));
		res = cqe->res;
	}
	tap_result(res == -EPERM,
		   "io_uring read of a private offset fails with EPERM (%s)",
		   res > 0 ? "it read the page" : res ? ename(-res) : "no completion");
	munmap(sq, sq_len);
	munmap(cq, cq_len);
	munmap(sqes, p.sq_entries * sizeof(*sqes));
	close(ring);
}

static void test_aio(void)
{
	aio_context_t ctx = 0;
	struct iocb cb = { 0 }, *cbs[1] = { &cb };
	struct io_event ev = { 0 };
	struct timespec ts = { 5, 0 };
	char buf[PAGE];
	long n;

	if (syscall(__NR_io_setup, 1, &ctx)) {
		tap_skip(ename(errno), "AIO read of a private offset fails with EPERM");
		return;
	}
	cb.aio_fildes = pfd;
	cb.aio_lio_opcode = IOCB_CMD_PREAD;
	cb.aio_buf = (uintptr_t)buf;
	cb.aio_nbytes = PAGE;
	cb.aio_offset = PG_PRIV * PAGE;
	n = syscall(__NR_io_submit, ctx, 1, cbs);
	if (n == 1)
		n = syscall(__NR_io_getevents, ctx, 1, 1, &ev, &ts);
	tap_result(n == 1 && ev.res == -EPERM,
		   "AIO read of a private offset fails with EPERM (%s)",
		   n != 1 ? ename(errno) : ev.res > 0 ? "it read the page" :
		   ename((int)-ev.res));
	syscall(__NR_io_destroy, ctx);
}

static void test_userfaultfd(void)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = {
		.range = { .start = (uintptr_t)pmap, .len = 2 * PAGE },
	};
	int uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	int r_missing, r_minor, e_missing, e_minor;

	if (uffd < 0) {
		tap_skip(ename(errno), "userfaultfd cannot register a mapping of the private memfd");
		return;
	}
	if (ioctl(uffd, UFFDIO_API, &api)) {
		tap_result(false, "userfaultfd cannot register a mapping of the private memfd (UFFDIO_API: %s)",
			   strerror(errno));
		close(uffd);
		return;
	}
	/* a registered MISSING range would let UFFDIO_COPY fill a hole */
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	r_missing = ioctl(uffd, UFFDIO_REGISTER, &reg);
	e_missing = errno;
	reg.mode = UFFDIO_REGISTER_MODE_MINOR;
	r_minor = ioctl(uffd, UFFDIO_REGISTER, &reg);
	e_minor = errno;
	tap_result(r_missing && r_minor,
		   "userfaultfd cannot register a mapping of the private memfd: MISSING %s, MINOR %s",
		   r_missing ? ename(e_missing) : "registered",
		   r_minor ? ename(e_minor) : "registered");
	close(uffd);
}

static void test_remote_reads(void)
{
	char buf[PAGE];
	struct iovec local = { buf, PAGE };
	struct iovec remote = { pmap + PG_PRIV * PAGE, PAGE };
	pid_t child = fork();
	int mem, st = 0;
	ssize_t n_vm = -1, n_mem = -1;
	int e_vm = 0, e_mem = 0;
	bool nosys = false;

	if (child == 0) {
		pause();
		_exit(0);
	}
	if (child < 0) {
		tap_result(false, "another process cannot read private offsets (fork: %s)",
			   strerror(errno));
		return;
	}
	/* the child has the same mapping (fork keeps MAP_SHARED) */
	n_vm = process_vm_readv(child, &local, 1, &remote, 1, 0);
	e_vm = errno;
	nosys = n_vm < 0 && e_vm == ENOSYS;
	snprintf(buf, sizeof(buf), "/proc/%d/mem", child);
	mem = open(buf, O_RDONLY | O_CLOEXEC);
	if (mem >= 0) {
		n_mem = pread(mem, buf, PAGE, (uintptr_t)pmap + PG_PRIV * PAGE);
		e_mem = errno;
		close(mem);
	} else {
		e_mem = errno;
	}
	kill(child, SIGKILL);
	waitpid(child, &st, 0);
	if (nosys) {
		tap_skip("no CROSS_MEMORY_ATTACH", "process_vm_readv cannot read a private offset; /proc/PID/mem %s",
			 n_mem < 0 ? ename(e_mem) : "read it");
		tap_result(n_mem < 0, "/proc/PID/mem cannot read a private offset (%s)",
			   n_mem < 0 ? ename(e_mem) : "it read the page");
		return;
	}
	tap_result(n_vm < 0 && n_mem < 0,
		   "another process cannot read a private offset: process_vm_readv %s, /proc/PID/mem %s",
		   n_vm < 0 ? ename(e_vm) : "read it",
		   n_mem < 0 ? ename(e_mem) : "read it");
}

static void test_move_pages(void)
{
	void *pages[2] = { pmap + PG_SHARED * PAGE, pmap + PG_PRIV * PAGE };
	int nodes[2], status[2] = { 99, 99 }, where = -1;
	uint64_t pfn0 = host_pfn(pmap + PG_SHARED * PAGE);
	long r;
	int err;
	bool ok;

	/* where the shared page is now; the other node is the target */
	r = syscall(__NR_move_pages, 0, 1, pages, NULL, &where, 0);
	err = errno;
	if (r < 0 && (err == ENOSYS || err == ENODEV)) {
		tap_skip(ename(err), "move_pages() moves no page of the private memfd");
		return;
	}
	nodes[0] = nodes[1] = where == 0 ? 1 : 0;
	r = syscall(__NR_move_pages, 0, 2, pages, nodes, status, 0);
	err = errno;
	/* node 1 exists only with numa=fake=2 (the debug kernel's boot) */
	if (r < 0 && (err == EINVAL || err == ENODEV)) {
		tap_skip("one NUMA node", "move_pages() moves no page of the private memfd");
		return;
	}
	ok = check(where >= 0, "move_pages() query of the shared page: status %d", where);
	ok &= check(status[0] != nodes[0], "the shared page is on node %d now", status[0]);
	ok &= check(host_pfn(pmap + PG_SHARED * PAGE) == pfn0,
		   "the shared page moved: pfn %#llx -> %#llx",
		   (unsigned long long)pfn0,
		   (unsigned long long)host_pfn(pmap + PG_SHARED * PAGE));
	ok &= check(status[1] < 0, "private page status %d", status[1]);
	ok &= host_sees(pmap, PG_SHARED, P_HOST, "after move_pages");
	tap_result(ok, "move_pages() to node %d moves no page of the private memfd (returned %ld, status shared %d, private %d)",
		   nodes[0], r, status[0], status[1]);
}

static void test_soft_offline(void)
{
	uint64_t pfn0 = host_pfn(pmap + PG_SHARED * PAGE);
	int r = madvise(pmap + PG_SHARED * PAGE, PAGE, MADV_SOFT_OFFLINE);
	int err = errno;
	bool ok;

	if (r && err == EINVAL) {
		tap_skip("no MEMORY_FAILURE", "MADV_SOFT_OFFLINE does not migrate a page of the private memfd");
		return;
	}
	ok = check(host_pfn(pmap + PG_SHARED * PAGE) == pfn0,
		   "pfn %#llx -> %#llx", (unsigned long long)pfn0,
		   (unsigned long long)host_pfn(pmap + PG_SHARED * PAGE));
	ok &= host_sees(pmap, PG_SHARED, P_HOST, "after MADV_SOFT_OFFLINE");
	tap_result(ok && r, "MADV_SOFT_OFFLINE does not migrate a page of the private memfd: the pages are unmovable (%s)",
		   r ? ename(err) : "it succeeded");
}

static bool setup_mapping(void)
{
	int r;

	pfd = memfd_inaccessible_create("convbench-iso-map", SLOT_SIZE);
	if (pfd < 0) {
		tap_result(false, "in-place memfd: %s", strerror(-pfd));
		return false;
	}
	r = __private_fallocate(pfd, 0, SLOT_SIZE);
	if (!r)
		r = memfd_convert(pfd, PG_SHARED * PAGE, PAGE,
				  INPLACE_TO_SHARED | INPLACE_PRESERVE, NULL);
	pmap = r ? MAP_FAILED : mmap(NULL, SLOT_SIZE, PROT_READ | PROT_WRITE,
				     MAP_SHARED, pfd, 0);
	if (!r && pmap == MAP_FAILED)
		r = -errno;
	if (!r && !host_fills(pmap, PG_SHARED, P_HOST, "setup"))
		r = -EIO;
	if (r)
		tap_result(false, "memfd with a shared page 0, mapped MAP_SHARED: %s",
			   strerror(-r));
	return !r;
}

int main(void)
{
	struct kvm_vm *v = NULL;
	int r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	require_series(TEST_NAME, false);

	test_fd_modes();
	test_second_vm();
	test_overlap();
	test_hugetlb();
	r = __vm_create(&v, NULL);
	if (r)
		tap_result(false, "VM for the ABI check: %s", strerror(-r));
	else
		test_abi_numbers(v);
	if (v)
		kvm_vm_free(v);

	if (!inplace_supported()) {
		tap_skip("no in-place variant: the memfd cannot be mapped at all",
			 "syscalls against a mapping of private offsets");
		return tap_finish(true);
	}
	if (setup_mapping()) {
		test_io_uring();
		test_aio();
		test_userfaultfd();
		test_remote_reads();
		test_move_pages();
		test_soft_offline();
	}
	return tap_finish(true);
}
