// SPDX-License-Identifier: GPL-2.0
/*
 * memfd_create(MFD_INACCESSIBLE) as our kernel carries it (v5 01/13 and
 * 04/13 ported to 6.1, bench/kvm/privmem_uapi.h): the host cannot read,
 * write or mmap the content, sizing is once and page aligned, sealing
 * is closed. Runs inside the project's kernel; skips (exit 4) on a
 * kernel without the series. With the in-place variant (patches 0027-
 * 0029) mmap(MAP_SHARED) is allowed and a private offset SIGBUSes
 * instead (test_inplace checks the rest).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "privmem_uapi.h"
#include "tap.h"

#define TEST_NAME	"test_memfd_inaccessible"
#define PAGE		4096L
#define SIZE		(2L << 20)
#define ALLOC_OFF	(16 * PAGE)	/* clear of the unaligned attempts */
#ifndef MFD_EXEC
#define MFD_EXEC	0x0010U		/* 6.3+ only */
#endif

static const char *err_name(int err)
{
	const char *n = strerrorname_np(err);

	return n ? n : "?";
}

/* r must be -1 with errno == want */
static void expect_err(long r, int want, const char *what)
{
	int err = errno;

	if (r == -1 && err == want)
		tap_result(true, "%s fails with %s", what, err_name(want));
	else if (r == -1)
		tap_result(false, "%s fails with %s (got %s)", what,
			   err_name(want), err_name(err));
	else
		tap_result(false, "%s fails with %s (it succeeded: %ld)", what,
			   err_name(want), r);
}

static void expect_ok(long r, const char *what)
{
	int err = errno;

	if (r == -1)
		tap_result(false, "%s works (got %s)", what, err_name(err));
	else
		tap_result(true, "%s works", what);
}

static long blocks(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? -1 : (long)st.st_blocks;
}

static long file_size(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? -1 : (long)st.st_size;
}

static void expect_mmap_fails(int fd, int flags, const char *what)
{
	void *p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, flags, fd, 0);

	if (p != MAP_FAILED)
		munmap(p, PAGE);
	expect_err(p == MAP_FAILED ? -1 : 0, EPERM, what);
}

static sigjmp_buf bus_jmp;

static void bus_handler(int sig)
{
	(void)sig;
	siglongjmp(bus_jmp, 1);
}

/* The in-place variant answers its conversion ioctl (EINVAL for len 0) */
static bool inplace_variant(int fd)
{
	struct memfd_convert_range arg = { 0 };

	return ioctl(fd, MEMFD_IOC_CONVERT_RANGE, &arg) && errno == EINVAL;
}

/*
 * v5: mmap(MAP_SHARED) is EPERM. In-place variant: it works, and reading
 * offset 0 (private: nothing was converted) raises SIGBUS.
 */
static void expect_mmap_shared(int fd, const char *what)
{
	struct sigaction sa = { .sa_handler = bus_handler }, old;
	volatile char *p;
	volatile bool bus = false;

	if (!inplace_variant(fd)) {
		expect_mmap_fails(fd, MAP_SHARED, what);
		return;
	}
	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		tap_result(false, "%s works with the in-place variant (got %s)",
			   what, err_name(errno));
		return;
	}
	sigaction(SIGBUS, &sa, &old);
	if (sigsetjmp(bus_jmp, 1))
		bus = true;
	else
		(void)p[0];
	sigaction(SIGBUS, &old, NULL);
	munmap((void *)p, PAGE);
	tap_result(bus, "%s works with the in-place variant; reading a private offset %s",
		   what, bus ? "raises SIGBUS" : "does NOT raise SIGBUS");
}

int main(void)
{
	char buf[PAGE];
	long before;
	int fd, fd2, seals;

	setvbuf(stdout, NULL, _IOLBF, 0);
	memset(buf, 0x5a, sizeof(buf));

	fd = memfd_create("convbench-inaccessible", MFD_INACCESSIBLE);
	if (fd < 0 && errno == EINVAL)
		tap_no_series(TEST_NAME, true,
			      "memfd_create(MFD_INACCESSIBLE) is EINVAL: kernel lacks the series");
	/* From 6.3 on 0x0008 is MFD_NOEXEC_SEAL, and MFD_EXEC exists */
	fd2 = memfd_create("convbench-probe", MFD_EXEC);
	if (fd2 >= 0)
		tap_no_series(TEST_NAME, true,
			      "0x0008 is MFD_NOEXEC_SEAL on this kernel (MFD_EXEC accepted): kernel lacks the series");
	expect_ok(fd, "memfd_create(MFD_INACCESSIBLE)");
	if (fd < 0)
		return tap_finish(true);

	seals = fcntl(fd, F_GET_SEALS);
	tap_result(seals == F_SEAL_SEAL, "F_GET_SEALS is F_SEAL_SEAL (%#x)", seals);

	fd2 = memfd_create("convbench-sealing", MFD_INACCESSIBLE | MFD_ALLOW_SEALING);
	expect_err(fd2 < 0 ? -1 : fd2, EINVAL,
		   "memfd_create(MFD_INACCESSIBLE | MFD_ALLOW_SEALING)");
	if (fd2 >= 0)
		close(fd2);

	/* size: page aligned, set once */
	expect_err(ftruncate(fd, SIZE + 100), EINVAL,
		   "ftruncate to a non-page-aligned size");
	expect_ok(ftruncate(fd, SIZE), "first ftruncate(2 MiB)");
	tap_result(file_size(fd) == SIZE, "i_size is 2 MiB (%ld)", file_size(fd));
	expect_err(ftruncate(fd, 2 * SIZE), EPERM, "second ftruncate(4 MiB)");

	/* no ordinary access to the content */
	expect_err(read(fd, buf, PAGE), EPERM, "read()");
	expect_err(pread(fd, buf, PAGE, PAGE), EPERM, "pread()");
	expect_err(write(fd, buf, PAGE), EPERM, "write()");
	expect_err(pwrite(fd, buf, PAGE, PAGE), EPERM, "pwrite()");
	expect_mmap_shared(fd, "mmap(MAP_SHARED)");
	expect_mmap_fails(fd, MAP_PRIVATE, "mmap(MAP_PRIVATE)");

	/* fallocate: page granular */
	expect_err(fallocate(fd, 0, 100, PAGE), EINVAL,
		   "fallocate(0) at a non-page-aligned offset");
	expect_err(fallocate(fd, 0, 0, PAGE + 100), EINVAL,
		   "fallocate(0) of a non-page-aligned length");
	expect_err(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			     100, PAGE), EINVAL,
		   "fallocate(PUNCH_HOLE) at a non-page-aligned offset");
	expect_err(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			     0, PAGE + 100), EINVAL,
		   "fallocate(PUNCH_HOLE) of a non-page-aligned length");

	before = blocks(fd);
	expect_ok(fallocate(fd, 0, ALLOC_OFF, 2 * PAGE),
		  "fallocate(0) of two pages");
	tap_result(blocks(fd) >= before + 2 * PAGE / 512,
		   "allocated pages show in st_blocks (%ld -> %ld)", before,
		   blocks(fd));
	expect_err(pread(fd, buf, PAGE, ALLOC_OFF), EPERM,
		   "pread() of an allocated page");
	expect_mmap_shared(fd, "mmap(MAP_SHARED) with allocated pages");

	before = blocks(fd);
	expect_ok(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			    ALLOC_OFF, PAGE),
		  "fallocate(PUNCH_HOLE | KEEP_SIZE) of a page");
	/* a huge folio (shmem THP within_size) is split: fewer blocks */
	tap_result(blocks(fd) < before,
		   "punched page leaves st_blocks (%ld -> %ld)", before,
		   blocks(fd));

	/* sealing is closed from creation on */
	expect_err(fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE), EPERM,
		   "F_ADD_SEALS(F_SEAL_WRITE)");

	/*
	 * Our behaviour, not v5's: patch 04 charges i_size against
	 * RLIMIT_MEMLOCK when it is set, so fallocate() may not grow the
	 * file past it (v5 would extend i_size here).
	 */
	expect_err(fallocate(fd, 0, SIZE, PAGE), EINVAL,
		   "fallocate(0) beyond i_size");
	tap_result(file_size(fd) == SIZE, "i_size still 2 MiB (%ld)",
		   file_size(fd));

	close(fd);
	return tap_finish(true);
}
