// SPDX-License-Identifier: GPL-2.0
/* In-place conversion of an MFD_INACCESSIBLE memfd: see inplace.h */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "inplace.h"

int memfd_convert(int fd, uint64_t off, uint64_t len, unsigned int flags,
		  uint64_t *error_offset)
{
	struct memfd_convert_range arg = {
		.offset = off,
		.len = len,
		.flags = flags,
	};

	if (!ioctl(fd, MEMFD_IOC_CONVERT_RANGE, &arg))
		return 0;
	if (errno == MEMFD_CONVERT_BUSY_ERRNO && error_offset)
		*error_offset = arg.error_offset;
	return -errno;
}

bool inplace_supported(void)
{
	int kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	int r;

	if (kvm < 0)
		return false;
	r = ioctl(kvm, KVM_CHECK_EXTENSION, KVM_CAP_PRIVATE_MEM_INPLACE);
	close(kvm);
	return r > 0;
}

int inplace_map_shared(int fd, uint64_t off, uint64_t len, void *addr)
{
	void *p = mmap(addr, len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_FIXED, fd, (off_t)off);

	return p == MAP_FAILED ? -errno : 0;
}
