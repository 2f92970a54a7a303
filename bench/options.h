/* SPDX-License-Identifier: GPL-2.0 */
/* convbench's command line: parsed into struct env (run_env.h), checked, no KVM needed */
#ifndef CONVBENCH_OPTIONS_H
#define CONVBENCH_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "run_env.h"
#include "units.h"

/*
 * Parse argv into env. Returns 0, 1 when --help was printed (exit 0), or
 * 2 after printing to err which option is wrong and what it expects.
 */
int parse_options(int argc, char **argv, struct env *env, FILE *out,
		  FILE *err);

struct design_params;
/* --design's parameters: the options', the run's sizes and seed */
void env_design_params(const struct env *env, struct design_params *p);

/* --help (usage.c) */
extern const char convbench_usage[];

/* "4K" "64k" "2M" "4096": bytes, a positive multiple of 4096; 0 on error */
uint64_t parse_size(const char *s);

#endif /* CONVBENCH_OPTIONS_H */
