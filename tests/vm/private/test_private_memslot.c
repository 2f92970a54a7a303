// SPDX-License-Identifier: GPL-2.0
/*
 * KVM_MEM_PRIVATE memslots (v5 05/13, 06/13, 10/13 and our 12/13):
 * kvm_userspace_memory_region_ext with an MFD_INACCESSIBLE private_fd is
 * accepted, bad fds, flags and offsets are refused, a private slot can
 * be deleted and created again but not changed, and cannot be read-only
 * or dirty-logged. In a boot with kvm.tdp_mmu=0 private slots are refused
 * (EINVAL, the capability 0), which is all it checks there. Skips (exit
 * 4) when KVM_CAP_PRIVATE_MEM is absent.
 */
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>

#include "kvm_util.h"
#include "tap.h"
#include "tdp_mmu.h"

#define TEST_NAME	"test_private_memslot"
#define SLOT		1
#define SLOT_GPA	0x40000000ULL
#define BAD_SLOT	2
#define BAD_GPA		0x40200000ULL
#define SLOT_SIZE	SZ_2M

static struct kvm_vm *vm;
static void *shared;		/* shared part of both slots */

static const char *err_name(int err)
{
	const char *n = strerrorname_np(err);

	return err ? (n ? n : "?") : "success";
}

static int set_private(uint32_t slot, uint32_t flags, uint64_t gpa,
		       uint64_t size, uint32_t fd, uint64_t offset)
{
	return __vm_set_private_memory_region(vm, slot, flags, gpa, size,
					      shared, fd, offset);
}

static void delete_slot(uint32_t slot, uint64_t gpa)
{
	__vm_set_user_memory_region(vm, slot, 0, gpa, 0, shared);
}

/* A bad private_fd must be refused, and say how */
static void expect_bad_fd(uint32_t fd, const char *what)
{
	int r = set_private(BAD_SLOT, KVM_MEM_PRIVATE, BAD_GPA, SLOT_SIZE, fd, 0);

	tap_result(r == -EINVAL || r == -EBADF || r == -EOPNOTSUPP,
		   "private_fd %s is refused (%s)", what, err_name(-r));
	if (!r)
		delete_slot(BAD_SLOT, BAD_GPA);
}

static void expect_einval(int r, const char *what)
{
	tap_result(r == -EINVAL, "%s is EINVAL (%s)", what, err_name(-r));
}

static void test_bad_fds(void)
{
	int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	int memfd = memfd_create("convbench-ordinary", MFD_CLOEXEC);
	int closed = open("/dev/null", O_RDONLY);

	close(closed);		/* the lowest free number: stays free below */
	expect_bad_fd((uint32_t)-1, "-1");
	expect_bad_fd(closed, "of a closed fd");
	expect_bad_fd(devnull, "of /dev/null");
	if (memfd >= 0 && !ftruncate(memfd, SLOT_SIZE))
		expect_bad_fd(memfd, "of an ordinary memfd (no MFD_INACCESSIBLE)");
	else
		tap_result(false, "ordinary memfd for the bad-fd check (%s)",
			   err_name(errno));
	close(devnull);
	close(memfd);
}

static void test_bad_flags(int fd)
{
	static const struct {
		uint32_t flags;
		const char *name;
	} bad[] = {
		{ KVM_MEM_PRIVATE | (1U << 3), "KVM_MEM_PRIVATE | bit 3" },
		{ KVM_MEM_PRIVATE | (1U << 16), "KVM_MEM_PRIVATE | bit 16" },
		{ KVM_MEM_PRIVATE | (1U << 31), "KVM_MEM_PRIVATE | bit 31" },
		{ 1U << 3, "bit 3 without KVM_MEM_PRIVATE" },
	};
	char what[96];
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = set_private(BAD_SLOT, bad[i].flags, BAD_GPA, SLOT_SIZE,
				    fd, 0);

		snprintf(what, sizeof(what), "undefined flags %s", bad[i].name);
		expect_einval(r, what);
		if (!r)
			delete_slot(BAD_SLOT, BAD_GPA);
	}
}

static void test_bad_offsets(int fd)
{
	int r;

	r = set_private(BAD_SLOT, KVM_MEM_PRIVATE, BAD_GPA, SLOT_SIZE, fd, 0x800);
	expect_einval(r, "private_offset 0x800 (not page aligned)");
	if (!r)
		delete_slot(BAD_SLOT, BAD_GPA);

	r = set_private(BAD_SLOT, KVM_MEM_PRIVATE, BAD_GPA, SLOT_SIZE, fd,
			~0ULL << GUEST_PAGE_SHIFT);
	expect_einval(r, "private_offset + size wrapping around");
	if (!r)
		delete_slot(BAD_SLOT, BAD_GPA);
}

/*
 * Neither read-only nor dirty-logged (kernel/patches: a read-only private
 * slot made a guest write fault forever without an exit), and the
 * padding of the _ext struct must be zero
 */
static void test_private_kinds(int fd)
{
	struct kvm_userspace_memory_region_ext m = {
		.region = {
			.slot = BAD_SLOT,
			.flags = KVM_MEM_PRIVATE,
			.guest_phys_addr = BAD_GPA,
			.memory_size = SLOT_SIZE,
			.userspace_addr = (uintptr_t)shared,
		},
		.private_fd = fd,
	};
	int r;

	r = set_private(BAD_SLOT, KVM_MEM_PRIVATE | KVM_MEM_READONLY, BAD_GPA,
			SLOT_SIZE, fd, 0);
	expect_einval(r, "a KVM_MEM_PRIVATE | KVM_MEM_READONLY slot");
	if (!r)
		delete_slot(BAD_SLOT, BAD_GPA);

	r = set_private(BAD_SLOT, KVM_MEM_PRIVATE | KVM_MEM_LOG_DIRTY_PAGES,
			BAD_GPA, SLOT_SIZE, fd, 0);
	expect_einval(r, "a KVM_MEM_PRIVATE | KVM_MEM_LOG_DIRTY_PAGES slot");
	if (!r)
		delete_slot(BAD_SLOT, BAD_GPA);

	m.padding[4] = 1;
	r = __vm_ioctl(vm, KVM_SET_USER_MEMORY_REGION, &m) ? -errno : 0;
	expect_einval(r, "a private slot with a nonzero padding word");
	if (!r)
		delete_slot(BAD_SLOT, BAD_GPA);
}

/* Private slots are immutable except for deletion (our 12/13) */
static void test_immutable(int fd)
{
	int r;

	r = set_private(SLOT, KVM_MEM_PRIVATE | KVM_MEM_LOG_DIRTY_PAGES,
			SLOT_GPA, SLOT_SIZE, fd, 0);
	expect_einval(r, "re-setting the private slot with LOG_DIRTY_PAGES added");

	r = __vm_set_user_memory_region(vm, SLOT, 0, SLOT_GPA, SLOT_SIZE, shared);
	expect_einval(r, "re-setting the private slot without KVM_MEM_PRIVATE");

	r = set_private(SLOT, KVM_MEM_PRIVATE, SLOT_GPA + 2 * SLOT_SIZE,
			SLOT_SIZE, fd, 0);
	expect_einval(r, "moving the private slot");
}

int main(void)
{
	int fd, fd2, r, cap;

	setvbuf(stdout, NULL, _IOLBF, 0);
	r = kvm_open_dev();
	if (r < 0)
		tap_no_series(TEST_NAME, true, "no /dev/kvm (%s)", err_name(-r));
	close(r);
	r = __vm_create(&vm, NULL);
	if (r) {
		tap_result(false, "VM created (%s)", err_name(-r));
		return tap_finish(true);
	}
	/* on /dev/kvm or on the VM: either may carry the capability */
	cap = kvm_check_cap(KVM_CAP_PRIVATE_MEM);
	if (cap <= 0)
		cap = __vm_check_cap(vm, KVM_CAP_PRIVATE_MEM);
	if (tdp_mmu_param() == 0) {
		/* a boot with kvm.tdp_mmu=0: private slots are refused */
		fd = memfd_inaccessible_create("convbench-private", SLOT_SIZE);
		shared = mmap(NULL, SLOT_SIZE, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		r = fd < 0 || shared == MAP_FAILED ? -ENOMEM :
		    set_private(SLOT, KVM_MEM_PRIVATE, SLOT_GPA, SLOT_SIZE, fd, 0);
		tap_result(cap == 0 && r == -EINVAL,
			   "kvm.tdp_mmu=0: KVM_CAP_PRIVATE_MEM %d (want 0), a KVM_MEM_PRIVATE slot %s (want EINVAL)",
			   cap, err_name(-r));
		kvm_vm_free(vm);
		return tap_finish(true);
	}
	if (cap <= 0)
		tap_no_series(TEST_NAME, true,
			      "KVM_CHECK_EXTENSION(KVM_CAP_PRIVATE_MEM) is %d: kernel lacks the series",
			      cap);
	shared = mmap(NULL, SLOT_SIZE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	fd = memfd_inaccessible_create("convbench-private", SLOT_SIZE);
	fd2 = memfd_inaccessible_create("convbench-private2", 2 * SLOT_SIZE);
	tap_result(fd >= 0 && fd2 >= 0 && shared != MAP_FAILED,
		   "MFD_INACCESSIBLE fds sized with ftruncate (%s)",
		   err_name(fd < 0 ? -fd : fd2 < 0 ? -fd2 : 0));
	if (fd < 0 || fd2 < 0 || shared == MAP_FAILED)
		return tap_finish(true);

	r = set_private(SLOT, KVM_MEM_PRIVATE, SLOT_GPA, SLOT_SIZE, fd, 0);
	tap_result(!r, "KVM_MEM_PRIVATE slot with an MFD_INACCESSIBLE fd is accepted (%s)",
		   err_name(-r));

	test_bad_fds();
	test_bad_flags(fd2);
	test_bad_offsets(fd2);
	test_private_kinds(fd2);
	test_immutable(fd);

	r = __vm_set_user_memory_region(vm, SLOT, 0, SLOT_GPA, 0, shared);
	tap_result(!r, "deleting the private slot (memory_size 0) works (%s)",
		   err_name(-r));
	r = set_private(SLOT, KVM_MEM_PRIVATE, SLOT_GPA, SLOT_SIZE, fd, 0);
	tap_result(!r, "creating it again works (%s)", err_name(-r));

	kvm_vm_free(vm);
	close(fd);
	close(fd2);
	return tap_finish(true);
}
