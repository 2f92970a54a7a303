/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A run's identity, read on the host from its meta.json (make bench
 * writes it): what must be equal for two runs' TCG timings to be
 * comparable. The environment (host CPU model and count, whether the
 * host is itself a virtual machine, its kernel; QEMU's version,
 * accelerator, emulated CPU, vCPUs and memory) and what a run was asked
 * to measure (the convbench commit, the kernels' cache keys, rounds,
 * conversions and sizes). convreport --repeat takes only runs that
 * agree on all of it; convreport --compare compares any two runs and
 * flags the environment fields where they differ (the other fields
 * are what an A/B changes on purpose).
 */
#ifndef CONVBENCH_IDENTITY_H
#define CONVBENCH_IDENTITY_H

#include <stdbool.h>

#include "runfiles.h"

/* the fields of meta.json, then gmem's kernel and the run's sizes */
#define RUN_ID_META	14
#define RUN_ID_GMEM	RUN_ID_META
#define RUN_ID_SIZES	(RUN_ID_META + 1)
#define RUN_NID		(RUN_ID_META + 2)

/* indexes of fields other code names */
enum {
	RUN_ID_HOST_CPU, RUN_ID_HOST_CPUS, RUN_ID_HOST_VIRT,
	RUN_ID_HOST_KERNEL, RUN_ID_QEMU, RUN_ID_ACCEL, RUN_ID_CPU,
	RUN_ID_VCPUS, RUN_ID_MEM, RUN_ID_CONVBENCH, RUN_ID_KERNEL,
	RUN_ID_ROUNDS, RUN_ID_CONVERSIONS, RUN_ID_CONV_AT,
};

struct run_ident {
	char v[RUN_NID][160];	/* "?" where meta.json lacks a field */
};

/*
 * dir's identity (r: the run loaded from dir, for its sizes); 0, or
 * -ENOENT when dir has no readable meta.json
 */
int run_ident_load(const char *dir, const struct run *r,
		   struct run_ident *id);
/* the first field from `from` on where a and b differ, or -1 */
int run_ident_diff(const struct run_ident *a, const struct run_ident *b,
		   unsigned int from);
const char *run_ident_label(unsigned int i);
/* whether field i describes the machine and emulator (not the A/B) */
bool run_ident_is_env(unsigned int i);

#endif /* CONVBENCH_IDENTITY_H */
