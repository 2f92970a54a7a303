// SPDX-License-Identifier: GPL-2.0
/*
 * The in-VM isolation tests' checks (tests/lib/inplace_check.c) on this
 * host, fed outcomes made on purpose: each check must hold on the
 * outcome the series promises and fail on the ones a kernel bug gives.
 *   - host_bus: a page past the end of a file (SIGBUS both ways) holds;
 *     a normal page, and one that is read but not written (a
 *     write-protecting userfaultfd in SIGBUS mode), fail;
 *   - host_io_eperm: in a child whose seccomp filter answers EPERM to
 *     read/pread/write/pwrite of that fd it holds; the same with only
 *     the writes refused, a normal fd and a read-only one fail;
 *   - host_sees, host_fills, host_pread_sees: the right word holds, one
 *     wrong word, a SIGBUS and a read past the end fail;
 *   - guest_sees, guest_writes, guest_exits (on /dev/kvm, skipped
 *     without it): a guest read without an exit holds for guest_sees
 *     and fails guest_exits; one wrong word, a gpa without memory (an
 *     MMIO exit) and a write to a read-only slot fail. The right outcome
 *     of guest_exits, KVM_EXIT_MEMORY_ERROR, needs the series: the in-VM
 *     tests have it.
 * check() prints "#   FAILED: ..." for each failure: those lines are
 * expected below.
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <linux/userfaultfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "inplace_check.h"
#include "tap.h"

#define PAGE		4096
#define VAL		0x0123456789abcdefULL
#define DATA_GPA	0x40000000ULL
#define RO_GPA		0x40200000ULL
#define HOLE_GPA	0x40400000ULL	/* no memslot: an MMIO exit */

/* a memfd of one page holding VAL, mapped over two: page 1 is past EOF */
static int memfd_page(char **map)
{
	int fd = memfd_create("test_inplace_check", MFD_CLOEXEC);

	if (fd < 0 || ftruncate(fd, PAGE))
		return -1;
	*map = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (*map == MAP_FAILED)
		return -1;
	for (unsigned int i = 0; i < PAGE / 8; i++)
		((uint64_t *)*map)[i] = VAL;
	return fd;
}

/*
 * an anonymous page, read-only to the host through a write-protecting
 * userfaultfd that answers faults with SIGBUS: NULL when unavailable
 */
static char *wp_page(void)
{
	struct uffdio_api api = {
		.api = UFFD_API,
		.features = UFFD_FEATURE_SIGBUS | UFFD_FEATURE_PAGEFAULT_FLAG_WP,
	};
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_WP };
	struct uffdio_writeprotect wp = { .mode = UFFDIO_WRITEPROTECT_MODE_WP };
	char *p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int uffd;

	if (p == MAP_FAILED)
		return NULL;
	memset(p, 0x5a, PAGE);
	uffd = syscall(__NR_userfaultfd, O_CLOEXEC);
	reg.range = wp.range = (struct uffdio_range){ (uintptr_t)p, PAGE };
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api) ||
	    ioctl(uffd, UFFDIO_REGISTER, &reg) ||
	    ioctl(uffd, UFFDIO_WRITEPROTECT, &wp)) {
		tap_diag("no write-protecting userfaultfd: %s", strerror(errno));
		return NULL;
	}
	return p;	/* the uffd stays open: it keeps the protection */
}

static void test_host_bus(void)
{
	char *map, *wp;
	int fd = memfd_page(&map);

	if (fd < 0) {
		tap_result(false, "host_bus: a memfd to probe (%s)", strerror(errno));
		return;
	}
	tap_result(host_bus(map, 1, "past EOF"),
		   "host_bus: a page past the end of the file (SIGBUS both ways) holds");
	tap_result(!host_bus(map, 0, "a normal page"),
		   "host_bus: a page read and written fails");
	wp = wp_page();
	if (!wp)
		tap_skip("no write-protecting userfaultfd",
			 "host_bus: a page read but not written fails");
	else
		tap_result(!host_bus(wp, 0, "write-protected"),
			   "host_bus: a page read but not written fails");
	munmap(map, 2 * PAGE);
	close(fd);
}

/* read/pread/write/pwrite of fd answered with EPERM by a seccomp filter */
static int refuse_io(int fd, bool reads, bool writes)
{
	/* jump offsets to the fd check (6) or to allow (5) */
	unsigned char r = reads ? 1 : 0, w = writes ? 1 : 0;
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_read, 3 + r, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_pread64, 2 + r, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_write, 1 + w, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_pwrite64, 0 + w, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		/* this fd only: stdout stays writable */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, fd, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) ? -errno : 0;
}

/*
 * host_io_eperm(fd) in a child, with reads and/or writes refused: 1 it
 * held, 0 it failed, -2 no seccomp filters here, -1 the child died
 */
static int io_eperm_child(int fd, bool reads, bool writes)
{
	int status, r;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		/* EINVAL: a kernel without seccomp filters (the project's) */
		_exit(refuse_io(fd, reads, writes) ? 3 : host_io_eperm(fd, 0,
		      !reads ? "writes refused" : !writes ? "reads refused" :
		      "all refused"));
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	r = WEXITSTATUS(status);
	return r == 3 ? -2 : r > 1 ? -1 : r;
}

static void test_host_io_eperm(void)
{
	char *map, path[64];
	int fd = memfd_page(&map), ro, held;

	if (fd < 0) {
		tap_result(false, "host_io_eperm: a memfd to probe (%s)",
			   strerror(errno));
		return;
	}
	held = io_eperm_child(fd, true, true);
	if (held == -2) {
		tap_skip("no seccomp filters in this kernel",
			 "host_io_eperm: all refused holds, half refused fails");
	} else {
		tap_result(held == 1,
			   "host_io_eperm: read, pread, write and pwrite refused with EPERM holds");
		tap_result(io_eperm_child(fd, false, true) == 0,
			   "host_io_eperm: only the writes refused fails");
		tap_result(io_eperm_child(fd, true, false) == 0,
			   "host_io_eperm: only the reads refused fails");
	}
	tap_result(!host_io_eperm(fd, 0, "a normal fd"),
		   "host_io_eperm: a normal fd (all four go through) fails");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ro = open(path, O_RDONLY | O_CLOEXEC);
	tap_result(ro >= 0 && !host_io_eperm(ro, 0, "a read-only fd"),
		   "host_io_eperm: reads through, writes EBADF fails");
	if (ro >= 0)
		close(ro);
	munmap(map, 2 * PAGE);
	close(fd);
}

static void test_host_sees(void)
{
	char *map;
	int fd = memfd_page(&map);

	if (fd < 0) {
		tap_result(false, "host_sees: a memfd to probe (%s)", strerror(errno));
		return;
	}
	tap_result(host_sees(map, 0, VAL, "right"),
		   "host_sees: every word right holds");
	tap_result(!host_sees(map, 0, VAL + 1, "wrong word"),
		   "host_sees: another word fails");
	tap_result(host_pread_sees(fd, 0, VAL, "right"),
		   "host_pread_sees: every word right holds");
	((uint64_t *)map)[PAGE / 8 - 1] = 0;
	tap_result(!host_sees(map, 0, VAL, "last word"),
		   "host_sees: a wrong last word fails");
	tap_result(!host_pread_sees(fd, 0, VAL, "last word"),
		   "host_pread_sees: a wrong last word fails");
	tap_result(!host_sees(map, 1, 0, "past EOF"),
		   "host_sees: SIGBUS fails");
	tap_result(!host_fills(map, 1, VAL, "past EOF"),
		   "host_fills: SIGBUS fails");
	tap_result(!host_pread_sees(fd, 1, 0, "past EOF"),
		   "host_pread_sees: a read past the end (0 bytes) fails");
	tap_result(host_fills(map, 0, VAL + 2, "fill") &&
		   host_sees(map, 0, VAL + 2, "filled"),
		   "host_fills then host_sees of the new word hold");
	munmap(map, 2 * PAGE);
	close(fd);
}

/* the checks' vCPU from now on: a new one, 0 or -errno */
static int fresh_vcpu(struct kvm_vm *vm)
{
	static uint32_t id;
	struct kvm_vcpu *vcpu;
	int r = __vm_vcpu_add(vm, ++id, guest_read_page, &vcpu);

	if (r)
		return r;
	vcpu_set_timeout(vcpu, 5000);
	guest_checks_init(vcpu);
	return 0;
}

static void test_guest(void)
{
	struct vm_mem_opts data = {
		.slot = 1, .gpa = DATA_GPA, .size = SZ_2M,
		.backing = VM_BACKING_ANON, .private_fd = -1,
	};
	struct vm_mem_opts ro = {
		.slot = 2, .flags = KVM_MEM_READONLY, .gpa = RO_GPA,
		.size = SZ_2M, .backing = VM_BACKING_ANON, .private_fd = -1,
	};
	struct vm_mem_region *mr, *mro;
	struct kvm_vm *vm;
	uint64_t *p;
	int r = kvm_open_dev();

	if (r < 0) {
		tap_skip("no /dev/kvm", "guest_sees, guest_writes, guest_exits");
		return;
	}
	close(r);
	r = __vm_create(&vm, NULL);
	if (!r)
		r = __vm_mem_add(vm, &data, &mr);
	if (!r)
		r = __vm_mem_add(vm, &ro, &mro);
	if (!r)
		r = fresh_vcpu(vm);
	if (r) {
		tap_result(false, "a VM with a data and a read-only slot (%s)",
			   strerror(-r));
		return;
	}
	p = mr->hva;
	for (unsigned int i = 0; i < PAGE / 8; i++)
		p[i] = VAL;

	tap_result(guest_sees(DATA_GPA, VAL, "right"),
		   "guest_sees: every word right, no exit, holds");
	tap_result(!guest_sees(DATA_GPA, VAL + 1, "wrong word"),
		   "guest_sees: another word fails");
	p[100] = 0;
	tap_result(!guest_sees(DATA_GPA, VAL, "one word"),
		   "guest_sees: one wrong word in the page fails");
	tap_result(!guest_exits(DATA_GPA, 0, "no exit"),
		   "guest_exits: a read that went through without an exit fails");
	tap_result(guest_writes(DATA_GPA + PAGE, VAL, "write") &&
		   p[PAGE / 8] == VAL,
		   "guest_writes: a write that lands holds");
	/* an MMIO exit leaves its instruction to complete: a vCPU each */
	tap_result(!fresh_vcpu(vm) && !guest_exits(HOLE_GPA, 0, "MMIO"),
		   "guest_exits: an MMIO exit is not the memory-error exit");
	tap_result(!fresh_vcpu(vm) && !guest_sees(HOLE_GPA, 0, "MMIO"),
		   "guest_sees: an MMIO exit fails");
	tap_result(!fresh_vcpu(vm) &&
		   !guest_writes(RO_GPA, VAL, "read-only slot"),
		   "guest_writes: a write to a read-only slot (an MMIO exit) fails");
	kvm_vm_free(vm);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	host_catch_sigbus();
	tap_result(check(true, "not printed") && !check(false, "check(false) prints this line"),
		   "check: true holds, false fails");
	test_host_bus();
	test_host_io_eperm();
	test_host_sees();
	test_guest();
	return tap_finish(false);
}
