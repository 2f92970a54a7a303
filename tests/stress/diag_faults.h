/* SPDX-License-Identifier: GPL-2.0 */
/*
 * convstress's hang report, the faults part (diag_faults.c): the
 * kvm:kvm_page_fault events of a window, per vCPU, and the MMU
 * notifier's invalidations, by the task that caused them.
 */
#ifndef CONVBENCH_DIAG_FAULTS_H
#define CONVBENCH_DIAG_FAULTS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "stress_host.h"

#define MAX_COMMS	8
#define MAX_ADDRS	16	/* distinct fault addresses kept per vCPU */

struct fault_addr {
	uint64_t gpa, rip, error, count;
};

struct fault_sum {
	uint64_t count;
	/* by what the VMM's record says of the page: private, shared, neither */
	uint64_t on_private, on_shared, elsewhere;
	unsigned int naddr;
	struct fault_addr addr[MAX_ADDRS];
};

struct unmap_sum {
	uint64_t count;
	unsigned int ncomm;
	struct { char comm[20]; uint64_t count; } comm[MAX_COMMS];
};

/* the reports' own: sleep; read a small file (procfs, tracefs) into buf */
void sleep_ms(unsigned int ms);
ssize_t read_text(const char *path, char *buf, size_t len);

/* trace ms of kvm:kvm_page_fault and the invalidations: per vCPU (n) */
bool trace_faults(struct stress *st, struct fault_sum *sum, unsigned int n,
		  struct unmap_sum *unmap, unsigned int ms);
/* vCPU id's faults of the window, by kind and address */
void print_faults(struct stress *st, unsigned int id,
		  const struct fault_sum *f, unsigned int ms);

#endif /* CONVBENCH_DIAG_FAULTS_H */
