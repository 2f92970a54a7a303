// SPDX-License-Identifier: GPL-2.0
/*
 * A small, exactly countable workload for convtrace's in-VM test: an
 * MFD_INACCESSIBLE memfd is sized, fallocated and hole-punched in a
 * fixed pattern, and the program prints how often each traced function
 * must have run ("expect NAME N" lines), from a model of v5's shmem:
 *
 * - shmem_fallocate: every fallocate(2) on the memfd (failing ones too:
 *   our unaligned and beyond-i_size calls fail inside shmem_fallocate);
 * - memfile_notifier_fallocate: every successful non-punch fallocate
 *   (notify_fallocate() at the end of shmem_fallocate);
 * - memfile_notifier_invalidate: one per folio removed by
 *   shmem_undo_range() (notify_invalidate_page()), from punches and from
 *   the final truncate when the inode is evicted; the file stays below
 *   2 MiB so every folio is one page even with shmem THP on;
 * - kvm_memfile_notifier_handler (with --kvm): one per notifier call
 *   while the private memslot is registered, i.e. before the VM is
 *   closed (KVM unregisters the notifier before it drops the file);
 * - kvm_unmap_gfn_range (with --kvm): one per handler call (the slot
 *   covers the file) plus one per KVM_SET_SW_PRIVATE_RANGE;
 * - shmem_convert_range: one per MEMFD_IOC_CONVERT_RANGE (in-place
 *   conversion, our 0019), each also one memfile_notifier_invalidate of
 *   the whole range when it succeeds (skipped on a kernel without it).
 *
 *   workload [-n N] [-k K] [-m M] [-g G] [-r R] [-c C] [--kvm [-s S]]
 *   workload --pairs P [--warmup W] [--inplace]
 *	timing: P pairs of (fallocate + punch) of one page, or with
 *	--inplace of (to shared + to private) conversions of one page
 *
 * Exit 0 done, 1 an unexpected result, 2 usage, 4 skip (no series, or no
 * /dev/kvm with --kvm).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "privmem_uapi.h"

#define PAGE		4096L
#define MAX_PAGES	256	/* 1 MiB: below the 2 MiB of a THP */
#define PUNCH		(FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE)
#define SLOT_GPA	0x100000000ULL

static struct {
	int n, k, m, g, r, s, c;
	bool kvm, inplace;
	long pairs, warmup;
} opt = { .n = 16, .k = 4, .m = 4, .g = 3, .r = 2, .s = 2, .c = 2,
	  .warmup = 50 };

/* the model: which pages are allocated, and the counts it implies */
static bool present[MAX_PAGES];
static long n_shmem, n_notify_falloc, n_invalidate, n_handler, n_unmap;
static long n_convert = -1;	/* -1: the kernel cannot convert in place */
static bool registered;		/* KVM notifier on the memfd */
static int fd = -1, vm_fd = -1, kvm_fd = -1;

static void __attribute__((noreturn)) die(const char *what)
{
	fprintf(stderr, "workload: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void __attribute__((noreturn)) usage(const char *why)
{
	fprintf(stderr, "workload: %s\n"
		"usage: workload [-n N] [-k K] [-m M] [-g G] [-r R] [-c C] [--kvm [-s S]]\n"
		"       workload --pairs P [--warmup W] [--inplace]\n", why);
	exit(2);
}

static void invalidate_range(long first, long count)
{
	long i;

	for (i = first; i < first + count && i < MAX_PAGES; i++) {
		if (!present[i])
			continue;
		present[i] = false;
		n_invalidate++;
		n_handler += registered;
		n_unmap += registered;
	}
}

/* fallocate on the memfd, expected to succeed or not; updates the model */
static void do_fallocate(int mode, long off, long len, bool ok)
{
	long i, r = fallocate(fd, mode, off, len);

	n_shmem++;
	if ((r == 0) != ok) {
		fprintf(stderr, "workload: fallocate(%s, %ld, %ld) %s (%s)\n",
			mode ? "PUNCH" : "0", off, len,
			ok ? "failed" : "succeeded", strerror(errno));
		exit(1);
	}
	if (!ok)
		return;
	if (mode & FALLOC_FL_PUNCH_HOLE) {
		invalidate_range(off / PAGE, len / PAGE);
		return;
	}
	for (i = off / PAGE; i < (off + len) / PAGE; i++)
		present[i] = true;
	n_notify_falloc++;
	n_handler += registered;
	n_unmap += registered;
}

static int memfd_private(long size)
{
	int f = memfd_create("convtrace-workload", MFD_INACCESSIBLE);

	if (f < 0 && errno == EINVAL) {
		fprintf(stderr, "workload: memfd_create(MFD_INACCESSIBLE): EINVAL, kernel lacks the series\n");
		exit(4);
	}
	if (f < 0)
		die("memfd_create(MFD_INACCESSIBLE)");
	if (ftruncate(f, size))
		die("ftruncate");
	return f;
}

/* a VM whose only slot is private, backed by the memfd: KVM registers a notifier */
static void kvm_register(long size)
{
	struct kvm_userspace_memory_region_ext m = { 0 };
	void *shared;

	kvm_fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm_fd < 0) {
		fprintf(stderr, "workload: /dev/kvm: %s\n", strerror(errno));
		exit(4);
	}
	vm_fd = ioctl(kvm_fd, KVM_CREATE_VM, 0);
	if (vm_fd < 0)
		die("KVM_CREATE_VM");
	if (ioctl(vm_fd, KVM_CHECK_EXTENSION, KVM_CAP_PRIVATE_MEM) <= 0) {
		fprintf(stderr, "workload: no KVM_CAP_PRIVATE_MEM\n");
		exit(4);
	}
	shared = mmap(NULL, size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (shared == MAP_FAILED)
		die("mmap");
	m.region.slot = 0;
	m.region.flags = KVM_MEM_PRIVATE;
	m.region.guest_phys_addr = SLOT_GPA;
	m.region.memory_size = size;
	m.region.userspace_addr = (uintptr_t)shared;
	m.private_fd = fd;
	m.private_offset = 0;
	if (ioctl(vm_fd, KVM_SET_USER_MEMORY_REGION, &m))
		die("KVM_SET_USER_MEMORY_REGION(KVM_MEM_PRIVATE)");
	registered = true;
}

static void sw_private(int i)
{
	struct kvm_sw_private_range r = {
		.gpa = SLOT_GPA + i * PAGE,
		.size = PAGE,
		.flags = i % 2 ? 0 : KVM_SW_PRIVATE,
	};

	if (ioctl(vm_fd, KVM_SET_SW_PRIVATE_RANGE, &r))
		die("KVM_SET_SW_PRIVATE_RANGE");
	n_unmap++;
}

static int convert(long off, long len, unsigned int flags)
{
	struct memfd_convert_range r = {
		.offset = off, .len = len, .flags = flags,
	};

	return ioctl(fd, MEMFD_IOC_CONVERT_RANGE, &r) ? -errno : 0;
}

/* c round trips of pages [0, 2): to shared (PRESERVE), back (ZERO) */
static void convert_in_place(void)
{
	int i, r;

	r = convert(0, 2 * PAGE, MEMFD_CONVERT_TO_SHARED | MEMFD_CONVERT_PRESERVE);
	if (r == -ENOTTY || r == -EINVAL) {
		printf("# no in-place conversion here (%s)\n", strerror(-r));
		return;
	}
	n_convert = 0;
	for (i = 0; i < 2 * opt.c; i++) {
		if (i)	/* the first one was the probe above */
			r = convert(0, 2 * PAGE, i % 2 ?
				    MEMFD_CONVERT_TO_PRIVATE | MEMFD_CONVERT_ZERO :
				    MEMFD_CONVERT_TO_SHARED | MEMFD_CONVERT_PRESERVE);
		if (r) {
			fprintf(stderr, "workload: MEMFD_IOC_CONVERT_RANGE: %s\n",
				strerror(-r));
			exit(1);
		}
		n_convert++;
		n_invalidate++;
		n_handler += registered;
		n_unmap += registered;
	}
}

static void counted_run(void)
{
	long pages = opt.n + opt.k + opt.g + 1, size = pages * PAGE, p;
	int i;

	if (pages > MAX_PAGES || opt.m + opt.g > opt.n || opt.r > opt.m ||
	    (opt.c && opt.r < 2))
		usage("need n + k + g < 256, m + g <= n, r <= m, r >= 2 with c");
	fd = memfd_private(size);
	if (opt.kvm)
		kvm_register(size);

	do_fallocate(0, 0, opt.n * PAGE, true);		/* n pages at once */
	for (p = opt.n; p < opt.n + opt.k; p++)		/* k single pages */
		do_fallocate(0, p * PAGE, PAGE, true);
	for (p = 0; p < opt.m; p++)			/* m single punches */
		do_fallocate(PUNCH, p * PAGE, PAGE, true);
	do_fallocate(PUNCH, opt.m * PAGE, opt.g * PAGE, true); /* g at once */
	do_fallocate(PUNCH, (pages - 1) * PAGE, PAGE, true); /* never allocated */
	for (p = 0; p < opt.r; p++)			/* refill r */
		do_fallocate(0, p * PAGE, PAGE, true);
	if (opt.c)
		convert_in_place();
	do_fallocate(0, 100, PAGE, false);		/* unaligned: EINVAL */
	do_fallocate(0, size, PAGE, false);		/* beyond i_size: EINVAL */
	for (i = 0; opt.kvm && i < opt.s; i++)
		sw_private(i);

	/* the slot holds a reference: the inode dies with the VM */
	close(fd);
	if (opt.kvm) {
		registered = false;
		close(vm_fd);
		close(kvm_fd);
	}
	invalidate_range(0, pages);

	printf("expect shmem_fallocate %ld\n", n_shmem);
	printf("expect sys_fallocate %ld\n", n_shmem);
	printf("expect memfile_notifier_fallocate %ld\n", n_notify_falloc);
	printf("expect memfile_notifier_invalidate %ld\n", n_invalidate);
	printf("expect kvm_memfile_notifier_handler %ld\n", n_handler);
	if (n_convert >= 0)
		printf("expect shmem_convert_range %ld\n", n_convert);
	if (opt.kvm) {
		printf("expect kvm_vm_ioctl_set_sw_private_range %d\n", opt.s);
		printf("expect kvm_unmap_gfn_range %ld\n", n_unmap);
	}
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
 * P timed pairs: fallocate one page and punch it (a destructive round
 * trip), or convert it to shared and back in place (--inplace)
 */
static void timed_run(void)
{
	uint64_t *t = calloc(opt.pairs, sizeof(*t)), sum = 0, t0;
	long i;

	if (!t)
		die("calloc");
	fd = memfd_private(PAGE);
	if (opt.inplace && fallocate(fd, 0, 0, PAGE))
		die("fallocate");
	for (i = -opt.warmup; i < opt.pairs; i++) {
		t0 = now_ns();
		if (opt.inplace) {
			errno = -convert(0, PAGE, MEMFD_CONVERT_TO_SHARED |
					 MEMFD_CONVERT_PRESERVE);
			if (!errno)
				errno = -convert(0, PAGE, MEMFD_CONVERT_TO_PRIVATE |
						 MEMFD_CONVERT_PRESERVE);
			if (errno)
				die("MEMFD_IOC_CONVERT_RANGE");
		} else if (fallocate(fd, 0, 0, PAGE) ||
			   fallocate(fd, PUNCH, 0, PAGE)) {
			die("fallocate");
		}
		if (i >= 0)
			t[i] = now_ns() - t0;
	}
	close(fd);
	for (i = 0; i < opt.pairs; i++)
		sum += t[i];
	qsort(t, opt.pairs, sizeof(*t), cmp_u64);
	printf("pairs %ld median_ns %llu mean_ns %llu p90_ns %llu\n",
	       opt.pairs, (unsigned long long)t[opt.pairs / 2],
	       (unsigned long long)(sum / opt.pairs),
	       (unsigned long long)t[opt.pairs * 9 / 10]);
	free(t);
}

static long number(const char *s, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < 0 || v > max)
		usage("bad number");
	return v;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "kvm", no_argument, NULL, 'K' },
		{ "pairs", required_argument, NULL, 'P' },
		{ "warmup", required_argument, NULL, 'W' },
		{ "inplace", no_argument, NULL, 'I' },
		{},
	};
	int c;

	while ((c = getopt_long(argc, argv, "n:k:m:g:r:s:c:", lopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			opt.n = number(optarg, MAX_PAGES);
			break;
		case 'k':
			opt.k = number(optarg, MAX_PAGES);
			break;
		case 'm':
			opt.m = number(optarg, MAX_PAGES);
			break;
		case 'g':
			opt.g = number(optarg, MAX_PAGES);
			break;
		case 'r':
			opt.r = number(optarg, MAX_PAGES);
			break;
		case 's':
			opt.s = number(optarg, MAX_PAGES);
			break;
		case 'c':
			opt.c = number(optarg, MAX_PAGES);
			break;
		case 'K':
			opt.kvm = true;
			break;
		case 'I':
			opt.inplace = true;
			break;
		case 'P':
			opt.pairs = number(optarg, 10000000);
			break;
		case 'W':
			opt.warmup = number(optarg, 10000000);
			break;
		default:
			usage("unknown option");
		}
	}
	if (optind != argc)
		usage("no arguments expected");
	if (opt.pairs)
		timed_run();
	else
		counted_run();
	return 0;
}
