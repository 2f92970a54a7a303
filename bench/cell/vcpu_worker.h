/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What cell.c (a cell's VM, its setup and results) and vcpu_worker.c
 * (the vCPU threads and their watchdog) share: the cell and its
 * workers, which cell.c sets up and vcpu_worker.c runs. Not for other
 * users.
 */
#ifndef CONVBENCH_VCPU_WORKER_H
#define CONVBENCH_VCPU_WORKER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "conv_mode.h"
#include "guest_conv.h"
#include "kvm_stats.h"
#include "cell.h"

/* what --counts reads at each conversion's start (bench/cell/vcpu_worker.c) */
struct work_snap {
	uint64_t exits, pf_taken, pf_fixed, faults;
};

/* why the watchdog stopped a vCPU thread */
enum kick_why {
	KICK_NONE,
	KICK_STOP,	/* SIGINT/SIGTERM: keep what was measured */
	KICK_TIMEOUT,	/* a conversion took longer than stall_s */
};

struct worker {
	struct cell *cell;
	struct kvm_vcpu *vcpu;
	struct guest_args *args;	/* host view of the guest's copy */
	uint64_t base;			/* gpa of the range */
	struct host_phases *host;	/* indexed by conversion k */
	struct conv_work *work;		/* --counts: indexed by k */
	struct kvm_stats stats;		/* --counts: the vCPU's */
	struct work_snap snap;		/* at the start of snap_k */
	struct work_snap io_snap;	/* as the last port IO exit came */
	uint64_t snap_k;		/* ~0: none yet */
	uint64_t max_k;
	pthread_t thread;
	/* the vCPU thread's own: the conversion its exits belong to */
	uint64_t cur_k;
	uint32_t cur_exits;		/* exits of cur_k so far */
	uint32_t last_exit;		/* reason of the last exit */
	uint64_t last_gpa;		/* of the last conversion exit */
	uint64_t exits;			/* all exits handled */
	uint64_t cal_gpa;		/* a null exit's gpa; 0: none */
	uint64_t cal_exits;		/* null exits answered */
	bool interrupted;
	char error[512];
	/* set by the watchdog, read by the vCPU thread */
	_Atomic int kick;		/* enum kick_why, the first one wins */
	_Atomic bool done;
};

struct cell {
	const struct cell_params *p;
	struct kvm_vm *vm;
	struct conv_ctx conv;
	uint32_t max_exits;
	/* start gate: vCPU threads wait here until all exist (or abort) */
	pthread_mutex_t gate_lock;
	pthread_cond_t gate;
	int gate_state;		/* 0 wait, 1 go, -1 abort */
	/*
	 * a UCALL_SYNC the conversion workload does not know (churn's
	 * marks), its arguments: 1 run on, -1 fail (w->error says why)
	 */
	int (*sync_hook)(struct worker *w, const uint64_t *args);
	void *hook_arg;
	struct worker w[VM_MAX_VCPUS];
};

/* install the kick signal's handler (once per cell, before threads) */
void worker_signals_init(void);
/* pthread start routine of vCPU w */
void *worker_main(void *arg);
/*
 * Until every vCPU thread is done: end the cell after duration_s, stop
 * it on SIGINT/SIGTERM (cell_request_stop), and stop a vCPU whose
 * conversion takes longer than stall_s. Sleeps between checks.
 */
void cell_watch(struct cell *c, struct cell_result *res);

#endif /* CONVBENCH_VCPU_WORKER_H */
