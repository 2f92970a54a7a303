/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KVM's binary statistics (KVM_GET_STATS_FD, Linux 5.14+) of a VM or a
 * vCPU, read by name: the work KVM did, counted by KVM itself (exits,
 * page faults, SPTEs mapped at each level, TLB flushes). These counts
 * do not depend on how fast the machine is, so they transfer from TCG
 * to hardware.
 *
 *   struct kvm_stats s;
 *   kvm_stats_open(&s, vm->fd);          (or a vCPU fd)
 *   kvm_stats_read(&s);                  one pread of all values
 *   kvm_stats_get(&s, "pages_2m", &v);
 *   kvm_stats_close(&s);
 *
 * Functions return 0 or -errno (-ENOENT: no such statistic, -ENOTTY:
 * the kernel has no binary stats).
 */
#ifndef CONVBENCH_KVM_STATS_H
#define CONVBENCH_KVM_STATS_H

#include <stdint.h>

struct kvm_stats {
	int fd;			/* the stats fd, -1 when closed */
	unsigned int num;	/* descriptors */
	char (*names)[64];	/* num names, truncated to 63 chars */
	uint32_t *offset;	/* of each value in data[], in u64 units */
	uint32_t *size;		/* values per statistic (1 but histograms) */
	uint64_t *data;		/* last read values */
	uint64_t data_size;	/* in bytes */
	uint64_t data_offset;	/* of the values in the stats fd */
};

int kvm_stats_open(struct kvm_stats *s, int vm_or_vcpu_fd);
int kvm_stats_read(struct kvm_stats *s);
/* first value of the statistic name, as of the last kvm_stats_read() */
int kvm_stats_get(const struct kvm_stats *s, const char *name, uint64_t *val);
/* the same, 0 when the kernel has no such statistic */
uint64_t kvm_stats_value(const struct kvm_stats *s, const char *name);
void kvm_stats_close(struct kvm_stats *s);

/* open, read one value, close: for a single look */
int kvm_stat_once(int vm_or_vcpu_fd, const char *name, uint64_t *val);

#endif /* CONVBENCH_KVM_STATS_H */
