/* SPDX-License-Identifier: GPL-2.0 */
/*
 * convbench --clock-mark=LABEL: one line on stdout for make bench's
 * per-boot clock check,
 *
 *   CONVBENCH-CLOCK LABEL tsc=N raw_ns=N tsc_khz=N clocksource=NAME
 *     tsc_early_khz=N tsc_unstable=0|1
 *
 * (one line): the TSC and CLOCK_MONOTONIC_RAW now, the TSC rate KVM
 * gives a vCPU (KVM_GET_TSC_KHZ, what convbench turns cycles into ns
 * with), the clocksource, tsc_early_khz from the command line (0 when
 * absent) and whether the kernel log says the TSC is unstable. The VM
 * runner stamps such lines with the host's clock as they arrive on the
 * console. A user program's console output is interrupt driven and has
 * been seen held back for a whole boot under TCG, then flushed at once:
 * with CONVBENCH_CLOCK_KMSG=1 in the environment the lines go to
 * /dev/kmsg as error-level records instead, which the kernel writes to
 * the console synchronously (bench/vm/vm-bench.sh sets it). The console's
 * latency still jumps now and then (a busy host): a mark is
 * CLOCK_MARK_LINES lines,
 * CLOCK_MARK_GAP_MS apart, and bench/vm/run-bench.sh takes the median
 * offset of each group, then the TSC rate between the groups.
 */

#define CLOCK_MARK_LINES	5
#define CLOCK_MARK_GAP_MS	100
#ifndef CONVBENCH_CLOCK_MARK_H
#define CONVBENCH_CLOCK_MARK_H

#include <stdio.h>

/* 0, or -errno when the TSC rate cannot be had from KVM */
int clock_mark_print(const char *label, FILE *f);

#endif /* CONVBENCH_CLOCK_MARK_H */
