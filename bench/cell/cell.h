/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The conversion workload: one VM per (mode, size) cell, each vCPU owning
 * its own range of a private memslot, converting it private->shared and
 * back, every conversion verified by the guest and timed by the guest
 * (TSC) and by the host handler (TSC).
 */
#ifndef CONVBENCH_CELL_H
#define CONVBENCH_CELL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cell_types.h"

/* 0, or -errno / -ENOTSUP with res->error saying what and where */
int cell_run(const struct cell_params *p, struct cell_result *res);
void cell_result_free(struct cell_result *res);

/* exits a conversion of p may take (max_exits or 2 per page + 16) */
uint32_t cell_max_exits(const struct cell_params *p);

/*
 * Stop the running cell within a second, keeping what was measured, and
 * start no other (async-signal-safe)
 */
void cell_request_stop(void);
bool cell_stop_requested(void);

#endif /* CONVBENCH_CELL_H */
