/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Breaking a design of lib/stats/design.c on purpose, for the tests that
 * show what its balance is for (test_design.c: design_check() names the
 * imbalance; test_effect.c: the intervals stop covering the truth).
 */
#ifndef CONVBENCH_DESIGN_BREAK_H
#define CONVBENCH_DESIGN_BREAK_H

#include "design.h"

/* every block starts with destructive: AB AB instead of ABBA */
void design_break_abab(struct design *d);

#endif /* CONVBENCH_DESIGN_BREAK_H */
