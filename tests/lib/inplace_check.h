/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Checks for the in-place conversion test (test_inplace.c): what the
 * guest and the host see of a page. Each check returns whether it held
 * and prints "#   FAILED: ..." when it did not, so that one TAP line can
 * stand for many checks and still say which one broke.
 *
 * Pages are named by index pg into a host mapping (map + pg * 4096) or
 * into the fd (offset pg * 4096); guest pages by gpa.
 */
#ifndef CONVBENCH_INPLACE_CHECK_H
#define CONVBENCH_INPLACE_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "kvm_util.h"

bool __attribute__((format(printf, 2, 3)))
check(bool cond, const char *fmt, ...);

/* Guest side: vcpu restarts at a small guest function for each check */
void guest_checks_init(struct kvm_vcpu *vcpu);
/* a read of gpa goes without an exit and every word is val */
bool guest_sees(uint64_t gpa, uint64_t val, const char *what);
bool guest_writes(uint64_t gpa, uint64_t val, const char *what);
/* a read of gpa exits with KVM_EXIT_MEMORY_ERROR, these flags */
bool guest_exits(uint64_t gpa, uint32_t flags, const char *what);
/* the guest function of guest_sees(): a vCPU's first entry point */
void guest_read_page(uint64_t gpa);
/*
 * for guest_call3(): write base + page to the first word of each of
 * npages pages from gpa; count the pages that do not hold it (args[0])
 * and name the first (args[1])
 */
void guest_fill_pages(uint64_t gpa, uint64_t npages, uint64_t base);
void guest_read_pages(uint64_t gpa, uint64_t npages, uint64_t base);
/*
 * run guest function fn(a, b, c) to its next ucall: 0 when that is a
 * UCALL_SYNC (in *uc), -errno otherwise
 */
int guest_call3(void *fn, uint64_t a, uint64_t b, uint64_t c,
		struct ucall *uc);

/* Host side, through a mapping (SIGBUS caught) or the fd */
void host_catch_sigbus(void);
bool host_sees(char *map, unsigned int pg, uint64_t val, const char *what);
bool host_fills(char *map, unsigned int pg, uint64_t val, const char *what);
/* neither a read nor a write gets through: both SIGBUS */
bool host_bus(char *map, unsigned int pg, const char *what);
/* read/pread/write/pwrite of the page fail with EPERM */
bool host_io_eperm(int fd, unsigned int pg, const char *what);
bool host_pread_sees(int fd, unsigned int pg, uint64_t val, const char *what);

/*
 * The test needs /dev/kvm and the series (with inplace, the in-place
 * variant too): otherwise a SKIP (a FAIL under CONVBENCH_REQUIRE_SERIES),
 * and the process exits. SIGBUS is caught from here on.
 */
void require_series(const char *test, bool inplace);
/* KVM_SET_SW_PRIVATE_RANGE over [gpa, gpa + size), checked */
bool record_range(struct kvm_vm *vm, uint64_t gpa, uint64_t size,
		  bool private);
/* write val to a sysfs/procfs file: true if all of it was taken */
bool write_file(const char *path, const char *val);

/* pfn behind a host address (/proc/self/pagemap), 0 if unknown */
uint64_t host_pfn(const void *addr);
/* /proc/kpageflags of pfn, 0 if unknown */
uint64_t kpageflags(uint64_t pfn);
uint64_t fd_blocks(int fd);	/* st_blocks, ~0 on error */

#endif /* CONVBENCH_INPLACE_CHECK_H */
