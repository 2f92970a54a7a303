/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The churn workload's results (--workload=churn, bench/cell/churn.h):
 * with --out, churn.csv (the time series: one row per mark, what the
 * kernel held huge and each size class's latency over the interval that
 * ended there), churn-ops.csv (every operation: class, direction,
 * offset, pages converted, latency, exits; a sequence replays from its
 * seed) and churn.json (provenance, parameters, and per cell and per
 * mode the start and the steady state, the second half of the
 * sequence, with intervals over rounds); on stdout a table per mode.
 *
 * 2M coverage: the share of the churned ranges KVM maps with 2M
 * entries, from the VM's pages_2m less its value at mark 0 (before the
 * ranges were touched), times 2M over the ranges' size. Huge folios:
 * the kernel's ShmemHugePages and AnonHugePages (the private fd and,
 * destructive, the shared side: the project's VM runs nothing else
 * that takes huge pages), in 2M folios. THP events and TLB flushes
 * count from mark 0.
 */
#ifndef CONVBENCH_CHURN_REPORT_H
#define CONVBENCH_CHURN_REPORT_H

#include <stddef.h>

#include "cell_types.h"
#include "report.h"

/* 0, or -errno when a file could not be written */
int churn_report(struct report *rep, const struct cell_result *res,
		 size_t n);

#endif /* CONVBENCH_CHURN_REPORT_H */
