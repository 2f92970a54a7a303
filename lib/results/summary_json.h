/* SPDX-License-Identifier: GPL-2.0 */
/*
 * summary.json (bench/report/summary.c writes it, jsonr.h reads it):
 * finding a cell, or a ratio, of a list of it by the keys that name
 * one, for convbench --merge (bench/merge/) and convreport (analysis/).
 */
#ifndef CONVBENCH_SUMMARY_JSON_H
#define CONVBENCH_SUMMARY_JSON_H

#include <stdint.h>

#include "jsonr.h"

/*
 * the first element of list (summary.json's "cells", a list of ratios)
 * whose "mode", "size" (spelled as lib/units.h does) and "direction"
 * are mode, size and dir (mode or dir NULL: any), or NULL
 */
const struct jv *summary_find(const struct jv *list, const char *mode,
			      uint64_t size, const char *dir);

#endif /* CONVBENCH_SUMMARY_JSON_H */
