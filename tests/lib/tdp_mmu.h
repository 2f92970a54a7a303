/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KVM's kvm.tdp_mmu module parameter, for the tests of what private
 * slots need from the MMU (kernel/patches: private slots need the TDP
 * MMU). In Linux 6.1 the parameter is writable and read when a VM is
 * created, so a test can make one VM without the TDP MMU and put it back.
 */
#ifndef CONVBENCH_TDP_MMU_H
#define CONVBENCH_TDP_MMU_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <unistd.h>

#define TDP_MMU_PARAM	"/sys/module/kvm/parameters/tdp_mmu"

/* 1 when new VMs get the TDP MMU (Y), 0 when not (N), -errno unknown */
static inline int tdp_mmu_param(void)
{
	char c = 0;
	int fd = open(TDP_MMU_PARAM, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, &c, 1);
	close(fd);
	if (n != 1)
		return -EIO;
	return c == 'Y' || c == 'y' || c == '1';
}

/* 0, or -errno (-EACCES/-EPERM where the parameter is read-only) */
static inline int tdp_mmu_set(bool on)
{
	int fd = open(TDP_MMU_PARAM, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, on ? "Y" : "N", 1);
	n = n == 1 ? 0 : -errno;
	close(fd);
	return n;
}

#endif /* CONVBENCH_TDP_MMU_H */
