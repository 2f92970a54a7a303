/* SPDX-License-Identifier: GPL-2.0 */
/* convbench on a kernel without the series: the same run in the project's VM */
#ifndef CONVBENCH_VM_EXEC_H
#define CONVBENCH_VM_EXEC_H

#include <stdbool.h>
#include <stddef.h>

#include "run_env.h"

/* this kernel lacks the series (why says so) and the run may go to the VM */
bool vm_exec_wanted(const struct env *env, char *why, size_t len);

/*
 * Exec bench/vm/run-in-vm.sh with the same arguments (--out as a guest
 * path, --no-vm added). Returns only on failure: 2 for a bad --out, 4
 * when the VM cannot be used, after saying why.
 */
int vm_exec(const struct env *env, const char *why);

#endif /* CONVBENCH_VM_EXEC_H */
