/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The smallest KVM guest that makes exits on demand, for the BPF tests:
 * real mode, no library, it does `out` to TINY_GUEST_PORT n times, then
 * `hlt`. Without an in-kernel irqchip HLT is a userspace exit too
 * (KVM_EXIT_HLT), so one guest gives n + 1 kvm_userspace_exit events
 * and n re-entries. Runs on a software KVM as well as nested.
 */
#ifndef CONVBENCH_TINY_GUEST_H
#define CONVBENCH_TINY_GUEST_H

#include <stdint.h>
#include <linux/kvm.h>

#define TINY_GUEST_PORT	0x10

struct tiny_guest {
	int kvm, vm, vcpu;
	struct kvm_run *run;
	uint8_t *mem;
};

/* 0 or -errno with *what naming the failing step */
int tiny_guest_create(struct tiny_guest *g, uint16_t n, const char **what);
void tiny_guest_destroy(struct tiny_guest *g);

#endif /* CONVBENCH_TINY_GUEST_H */
