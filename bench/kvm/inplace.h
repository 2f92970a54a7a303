/* SPDX-License-Identifier: GPL-2.0 */
/*
 * In-place private<->shared conversion of an MFD_INACCESSIBLE memfd, the
 * variant our kernel adds (kernel/patches 0027-0029, ABI in
 * bench/kvm/privmem_uapi.h, documented with KVM_CAP_PRIVATE_MEM_INPLACE in
 * the patched Documentation/virt/kvm/api.rst).
 *
 * How a VMM uses it, per private slot:
 *   - the slot's shared part (userspace_addr) is the VMM's own
 *     MAP_SHARED mapping of the private fd at private_offset
 *     (inplace_map_shared()), so a shared guest access and the host see
 *     the very same page;
 *   - a conversion is two steps with the vCPU stopped: the access kind
 *     (KVM_SET_SW_PRIVATE_RANGE, __vm_set_sw_private()) and the fd's
 *     state (memfd_convert()).
 *
 * Every offset starts private. The host may touch only shared offsets:
 * read()/write() of a private one fail with EPERM, an access through a
 * mapping raises SIGBUS. A shared access to a private page exits with
 * KVM_EXIT_MEMORY_ERROR (flags 0), a private access to a shared page
 * with KVM_MEMORY_EXIT_FLAG_PRIVATE. fallocate()/PUNCH_HOLE still work
 * on the same fd and do not change whether an offset is shared.
 */
#ifndef CONVBENCH_INPLACE_H
#define CONVBENCH_INPLACE_H

#include <stdbool.h>
#include <stdint.h>

#include "privmem_uapi.h"

/* flags of memfd_convert(): one direction | one content mode */
#define INPLACE_TO_SHARED	MEMFD_CONVERT_TO_SHARED
#define INPLACE_TO_PRIVATE	MEMFD_CONVERT_TO_PRIVATE
#define INPLACE_PRESERVE	MEMFD_CONVERT_PRESERVE	/* keep the content */
#define INPLACE_ZERO		MEMFD_CONVERT_ZERO	/* clear it */

/*
 * MEMFD_IOC_CONVERT_RANGE on fd for [off, off + len) (page aligned,
 * inside the file). Returns 0 or -errno: -MEMFD_CONVERT_BUSY_ERRNO when
 * converting to private finds a page with an extra reference (a pin);
 * nothing changed then and *error_offset (if not NULL) is the file
 * offset of the first busy page. -ENOTTY: not an MFD_INACCESSIBLE fd of
 * an in-place kernel. -EINVAL: bad range or flags. error_offset is
 * untouched unless busy.
 */
int memfd_convert(int fd, uint64_t off, uint64_t len, unsigned int flags,
		  uint64_t *error_offset);

/* KVM_CAP_PRIVATE_MEM_INPLACE on /dev/kvm is 1 */
bool inplace_supported(void);

/*
 * Map [off, off + len) of the private fd MAP_SHARED at addr (MAP_FIXED,
 * replacing what is there, e.g. a slot's shared part; addr page
 * aligned). Private offsets of the mapping SIGBUS until converted.
 * Returns 0 or -errno.
 */
int inplace_map_shared(int fd, uint64_t off, uint64_t len, void *addr);

#endif /* CONVBENCH_INPLACE_H */
