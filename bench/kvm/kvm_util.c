// SPDX-License-Identifier: GPL-2.0
/*
 * convbench KVM library: assertions, VM, memslots, private memory.
 * vCPUs, bounded KVM_RUN and ucalls are in kvm_vcpu.c. See kvm_util.h
 * for the layering (__foo returns -errno, foo asserts).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>

#include "kvm_util.h"

static inline uint64_t align_up(uint64_t x, uint64_t a)
{
	return (x + a - 1) & ~(a - 1);
}

/* ------------------------------------------------------------------ */
/* assertions                                                          */

void test_assert_fail(const char *file, int line, const char *expr, int err,
		      const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "==== Test Assertion Failure ====\n");
	fprintf(stderr, "  %s:%d: %s\n", file, line, expr);
	fprintf(stderr, "  errno: %d (%s)\n  ", err, strerror(err));
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(KSFT_FAIL);
}

void test_skip(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	printf("SKIP: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	exit(KSFT_SKIP);
}

/* ------------------------------------------------------------------ */
/* /dev/kvm                                                            */

int kvm_open_dev(void)
{
	int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int kvm_check_cap(long cap)
{
	int fd = kvm_open_dev(), r;

	if (fd < 0)
		return fd;
	r = ioctl(fd, KVM_CHECK_EXTENSION, cap);
	r = r < 0 ? -errno : r;
	close(fd);
	return r;
}

int __vm_check_cap(struct kvm_vm *vm, long cap)
{
	int r = __vm_ioctl(vm, KVM_CHECK_EXTENSION, cap);

	return r < 0 ? -errno : r;
}

/* ------------------------------------------------------------------ */
/* VM                                                                  */

int __vm_create(struct kvm_vm **out, const struct vm_opts *opts)
{
	struct vm_opts o = opts ? *opts : (struct vm_opts){ 0 };
	struct vm_mem_opts slot0 = { .private_fd = -1 };
	struct kvm_vm *vm;
	uint64_t min_size, image_end = x86_image_end();
	int r;

	if (!image_end)
		return -ENOEXEC;	/* not a static non-PIE executable */

	vm = calloc(1, sizeof(*vm));
	if (!vm)
		return -ENOMEM;
	vm->kvm_fd = vm->fd = -1;
	for (r = 0; r < VM_MAX_REGIONS; r++)
		vm->regions[r].memfd = vm->regions[r].private_fd = -1;

	vm->map_gib = o.map_gib ? o.map_gib : VM_DEFAULT_MAP_GIB;
	vm->mem_size = align_up(o.mem_size ? o.mem_size : VM_DEFAULT_MEM_SIZE,
				SZ_2M);
	min_size = align_up(image_end, SZ_2M) + SZ_2M;
	if (vm->mem_size < min_size)
		vm->mem_size = min_size;
	r = -EINVAL;
	if (vm->map_gib > 512 || vm->mem_size > VM_MAX_MEM_SIZE)
		goto fail;

	vm->kvm_fd = kvm_open_dev();
	if (vm->kvm_fd < 0) {
		r = vm->kvm_fd;
		goto fail;
	}
	do {
		vm->fd = ioctl(vm->kvm_fd, KVM_CREATE_VM, o.type);
	} while (vm->fd < 0 && errno == EINTR);
	if (vm->fd < 0) {
		r = -errno;
		goto fail;
	}
	vm->run_size = ioctl(vm->kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (vm->run_size < (int)sizeof(struct kvm_run)) {
		r = vm->run_size < 0 ? -errno : -EINVAL;
		goto fail;
	}

	slot0.size = vm->mem_size;
	slot0.backing = o.backing;
	r = __vm_mem_add(vm, &slot0, NULL);
	if (r)
		goto fail;
	vm->alloc_next = align_up(image_end, 64 << 10);

	r = __x86_load_image(vm);
	if (!r)
		r = __x86_vm_setup(vm);
	if (r)
		goto fail;
	*out = vm;
	return 0;
fail:
	kvm_vm_free(vm);
	return r;
}

struct kvm_vm *vm_create(const struct vm_opts *opts)
{
	struct kvm_vm *vm = NULL;
	int r = __vm_create(&vm, opts);

	errno = -r;
	TEST_ASSERT(!r, "vm_create: %s%s", strerror(-r),
		    r == -ENOEXEC ? " (link with -static -no-pie)" : "");
	return vm;
}

static void region_release(struct vm_mem_region *mr)
{
	if (mr->mmap_base)
		munmap(mr->mmap_base, mr->mmap_size);
	if (mr->memfd >= 0)
		close(mr->memfd);
	memset(mr, 0, sizeof(*mr));
	mr->memfd = mr->private_fd = -1;
}

void kvm_vm_free(struct kvm_vm *vm)
{
	int i;

	if (!vm)
		return;
	for (i = 0; i < VM_MAX_VCPUS; i++)
		if (vm->vcpus[i])
			kvm_vcpu_free(vm->vcpus[i]);
	if (vm->fd >= 0)
		close(vm->fd);		/* slots go with the VM */
	if (vm->kvm_fd >= 0)
		close(vm->kvm_fd);
	for (i = 0; i < VM_MAX_REGIONS; i++)
		if (vm->regions[i].in_use)
			region_release(&vm->regions[i]);
	free(vm->cpuid);
	free(vm);
}

int __vm_enable_cap(struct kvm_vm *vm, uint32_t cap, uint64_t arg0)
{
	struct kvm_enable_cap ec = { .cap = cap, .args[0] = arg0 };

	return __vm_ioctl(vm, KVM_ENABLE_CAP, &ec) ? -errno : 0;
}

void vm_enable_cap(struct kvm_vm *vm, uint32_t cap, uint64_t arg0)
{
	int r = __vm_enable_cap(vm, cap, arg0);

	errno = -r;
	TEST_ASSERT(!r, "KVM_ENABLE_CAP(%u, %#llx) failed", cap,
		    (unsigned long long)arg0);
}

int __vm_enable_exit_map_gpa_range(struct kvm_vm *vm)
{
	int r = __vm_check_cap(vm, KVM_CAP_EXIT_HYPERCALL);

	if (r < 0)
		return r;
	if (!(r & (1 << KVM_HC_MAP_GPA_RANGE)))
		return -EOPNOTSUPP;
	return __vm_enable_cap(vm, KVM_CAP_EXIT_HYPERCALL,
			       1ULL << KVM_HC_MAP_GPA_RANGE);
}

uint64_t __vm_alloc(struct kvm_vm *vm, uint64_t size, uint64_t align)
{
	uint64_t gpa = align_up(vm->alloc_next, align ? align : 8);

	if (!size || gpa + size > vm->mem_size || gpa + size < gpa)
		return 0;
	vm->alloc_next = gpa + size;
	return gpa;
}

uint64_t vm_alloc(struct kvm_vm *vm, uint64_t size, uint64_t align)
{
	uint64_t gpa = __vm_alloc(vm, size, align);

	TEST_ASSERT(gpa, "slot 0 full: %#llx bytes wanted, %#llx free",
		    (unsigned long long)size,
		    (unsigned long long)(vm->mem_size - vm->alloc_next));
	return gpa;
}

/* ------------------------------------------------------------------ */
/* memslots                                                            */

int __vm_set_user_memory_region(struct kvm_vm *vm, uint32_t slot,
				uint32_t flags, uint64_t gpa, uint64_t size,
				void *hva)
{
	struct kvm_userspace_memory_region m = {
		.slot = slot,
		.flags = flags,
		.guest_phys_addr = gpa,
		.memory_size = size,
		.userspace_addr = (uintptr_t)hva,
	};

	return __vm_ioctl(vm, KVM_SET_USER_MEMORY_REGION, &m) ? -errno : 0;
}

int __vm_set_private_memory_region(struct kvm_vm *vm, uint32_t slot,
				   uint32_t flags, uint64_t gpa,
				   uint64_t size, void *hva,
				   uint32_t private_fd,
				   uint64_t private_offset)
{
	struct kvm_userspace_memory_region_ext m = {
		.region = {
			.slot = slot,
			.flags = flags,
			.guest_phys_addr = gpa,
			.memory_size = size,
			.userspace_addr = (uintptr_t)hva,
		},
		.private_offset = private_offset,
		.private_fd = private_fd,
	};

	return __vm_ioctl(vm, KVM_SET_USER_MEMORY_REGION, &m) ? -errno : 0;
}

/* 2M-aligned shared memory, so KVM can use huge pages where THP does */
static int region_alloc(struct vm_mem_region *mr)
{
	size_t len = mr->size + SZ_2M;
	char *base, *aligned;

	base = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED)
		return -errno;
	mr->mmap_base = base;
	mr->mmap_size = len;
	aligned = (char *)align_up((uintptr_t)base, SZ_2M);

	if (mr->backing == VM_BACKING_MEMFD) {
		mr->memfd = memfd_create("convbench-shared", MFD_CLOEXEC);
		if (mr->memfd < 0)
			return -errno;
		if (ftruncate(mr->memfd, mr->size))
			return -errno;
		if (mmap(aligned, mr->size, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED, mr->memfd, 0) == MAP_FAILED)
			return -errno;
	}
	mr->hva = aligned;
	return 0;
}

int __vm_mem_add(struct kvm_vm *vm, const struct vm_mem_opts *opts,
		 struct vm_mem_region **out)
{
	struct vm_mem_region *mr = NULL;
	bool private = opts->flags & KVM_MEM_PRIVATE;
	int i, r;

	if ((opts->gpa | opts->size) & (GUEST_PAGE_SIZE - 1) || !opts->size ||
	    private != (opts->private_fd >= 0))
		return -EINVAL;
	for (i = 0; i < VM_MAX_REGIONS; i++) {
		if (vm->regions[i].in_use && vm->regions[i].slot == opts->slot)
			return -EEXIST;
		if (!vm->regions[i].in_use && !mr)
			mr = &vm->regions[i];
	}
	if (!mr)
		return -ENOSPC;

	mr->slot = opts->slot;
	mr->flags = opts->flags;
	mr->gpa = opts->gpa;
	mr->size = opts->size;
	mr->backing = opts->backing;
	mr->memfd = -1;
	mr->private_fd = opts->private_fd;
	mr->private_offset = opts->private_offset;

	r = region_alloc(mr);
	if (!r && private)
		r = __vm_set_private_memory_region(vm, mr->slot, mr->flags,
						   mr->gpa, mr->size, mr->hva,
						   (uint32_t)mr->private_fd,
						   mr->private_offset);
	else if (!r)
		r = __vm_set_user_memory_region(vm, mr->slot, mr->flags,
						mr->gpa, mr->size, mr->hva);
	if (r) {
		region_release(mr);
		return r;
	}
	mr->in_use = true;
	if (out)
		*out = mr;
	return 0;
}

struct vm_mem_region *vm_mem_add(struct kvm_vm *vm,
				 const struct vm_mem_opts *opts)
{
	struct vm_mem_region *mr = NULL;
	int r = __vm_mem_add(vm, opts, &mr);

	errno = -r;
	TEST_ASSERT(!r, "adding slot %u (gpa %#llx size %#llx flags %#x) failed",
		    opts->slot, (unsigned long long)opts->gpa,
		    (unsigned long long)opts->size, opts->flags);
	return mr;
}

int __vm_mem_del(struct kvm_vm *vm, uint32_t slot)
{
	int i, r;

	for (i = 0; i < VM_MAX_REGIONS; i++) {
		struct vm_mem_region *mr = &vm->regions[i];

		if (!mr->in_use || mr->slot != slot)
			continue;
		r = __vm_set_user_memory_region(vm, slot, 0, mr->gpa, 0, NULL);
		if (r)
			return r;
		region_release(mr);
		return 0;
	}
	return -ENOENT;
}

struct vm_mem_region *vm_mem_region_find(struct kvm_vm *vm, uint64_t gpa)
{
	int i;

	for (i = 0; i < VM_MAX_REGIONS; i++) {
		struct vm_mem_region *mr = &vm->regions[i];

		if (mr->in_use && gpa >= mr->gpa && gpa - mr->gpa < mr->size)
			return mr;
	}
	return NULL;
}

void *__addr_gpa2hva(struct kvm_vm *vm, uint64_t gpa)
{
	struct vm_mem_region *mr = vm_mem_region_find(vm, gpa);

	return mr ? (char *)mr->hva + (gpa - mr->gpa) : NULL;
}

void *addr_gpa2hva(struct kvm_vm *vm, uint64_t gpa)
{
	void *hva = __addr_gpa2hva(vm, gpa);

	TEST_ASSERT(hva, "no memslot holds gpa %#llx", (unsigned long long)gpa);
	return hva;
}

/* ------------------------------------------------------------------ */
/* private memory                                                      */

int memfd_inaccessible_create(const char *name, uint64_t size)
{
	int fd, seals;

	fd = memfd_create(name, MFD_INACCESSIBLE | MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	/*
	 * From 6.3 on, 0x0008 is MFD_NOEXEC_SEAL: an ordinary memfd whose
	 * seals lack F_SEAL_SEAL. The series seals with F_SEAL_SEAL only.
	 */
	seals = fcntl(fd, F_GET_SEALS);
	if (seals != F_SEAL_SEAL) {
		close(fd);
		return -EOPNOTSUPP;
	}
	if (size && ftruncate(fd, size)) {
		int err = errno;

		close(fd);
		return -err;
	}
	return fd;
}

int __private_fallocate(int fd, uint64_t offset, uint64_t len)
{
	return fallocate(fd, 0, offset, len) ? -errno : 0;
}

int __private_punch_hole(int fd, uint64_t offset, uint64_t len)
{
	return fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			 offset, len) ? -errno : 0;
}

int __vm_set_sw_private(struct kvm_vm *vm, uint64_t gpa, uint64_t size,
			bool private)
{
	struct kvm_sw_private_range range = {
		.gpa = gpa,
		.size = size,
		.flags = private ? KVM_SW_PRIVATE : 0,
	};

	return __vm_ioctl(vm, KVM_SET_SW_PRIVATE_RANGE, &range) ? -errno : 0;
}
