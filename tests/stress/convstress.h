/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parts of convstress share: its options (stress_opts.c), the
 * run's state (convstress.c), the vCPU threads (stress_vcpu.c) and the
 * attackers of the vCPUs' ranges (stress_attack.c).
 */
#ifndef CONVBENCH_CONVSTRESS_H
#define CONVBENCH_CONVSTRESS_H

#include <stdbool.h>
#include <stdint.h>

#include "stress_host.h"

#define PAGE		STRESS_PAGE
#define GPA_D		0x40000000ULL
#define GPA_I		0x60000000ULL
#define HOST_REGION	(16ULL << 20)
/* the vCPU's own bound, should the main thread's watch not see a hang */
#define RUN_BACKSTOP_MS	(opt.crawl_ms + 30000)
#define DIAG_WINDOW_MS	2000	/* between the two looks of a report */
#define DIAG_KICK_MS	5000	/* for every vCPU to leave KVM_RUN */
#define SHUTDOWN_WAIT_MS 30000	/* a SHUTDOWN waits this long for its report */
#define BUSY_RETRY_US	200
#define BUSY_MAX_US	5000000	/* a pin that stays this long is a failure */
#define LOOP_SIZE	(16ULL << 20)
#define MAX_VCPUS	16

struct stress_opts {
	double duration;
	uint64_t seed;
	uint64_t start_op[MAX_VCPUS];	/* --start-op, per vCPU */
	unsigned int nstart;		/* how many were given */
	unsigned int vcpus;
	unsigned int range_mb;
	unsigned int hang_ms;		/* no exit, no fault fixed: a hang */
	unsigned int crawl_ms;		/* one KVM_RUN this long: a failure */
	uint32_t inject;		/* --inject, on vCPU 0 */
	uint64_t inject_op;
	bool loop;
	bool verbose;
};

extern struct stress_opts opt;
/* KVM_RUNs past the hang timeout whose faults KVM fixed: crawls */
extern unsigned int crawls;
extern uint64_t longest_run_us;
extern struct stress st;
extern uint64_t hseed;		/* the host threads' (host_seed()) */
extern struct kvm_vm *vm;
extern struct stress_vcpu vcpus[MAX_VCPUS];

/* CLOCK_MONOTONIC_RAW in microseconds; a sleep of us */
uint64_t now_us(void);
void sleep_us(uint64_t us);

/* a slot's conv_ctx.retry: wait a busy conversion out, up to BUSY_MAX_US */
bool busy_retry(struct conv_ctx *c, enum conv_busy why, unsigned int tries);

/* 0, or 2 after saying what is wrong (or 1 after --help) */
int parse_options(int argc, char **argv);

/* the threads: a vCPU's, and the attackers of the vCPUs' ranges */
void *vcpu_main(void *arg);
void *pin_main(void *arg);
void *forbid_main(void *arg);
void *mm_main(void *arg);

#endif /* CONVBENCH_CONVSTRESS_H */
