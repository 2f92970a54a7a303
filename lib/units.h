/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sizes as every convbench file spells them: "4K", "64K", "2M" (binary
 * units, no "B"), a plain byte count when not a whole K. One spelling
 * for samples.csv, hist.csv, trace.csv, summary.json and the reports.
 */
#ifndef CONVBENCH_UNITS_H
#define CONVBENCH_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* 4096 -> "4K", 2097152 -> "2M", 100 -> "100" */
const char *size_str(uint64_t bytes, char *buf, size_t len);
/*
 * "4K", "64k", "2M", "1G", "4KiB", "4096" -> bytes; 0 when it is not a
 * size (or overflows)
 */
uint64_t size_parse(const char *s);

#endif /* CONVBENCH_UNITS_H */
