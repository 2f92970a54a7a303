/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a result comes from: kernel, series and config hashes, QEMU and
 * accelerator (passed on the kernel command line as convbench.KEY=VALUE
 * by kernel/vm/run-vm.sh and make bench), CPU, TSC, time, options.
 */
#ifndef CONVBENCH_PROVENANCE_H
#define CONVBENCH_PROVENANCE_H

#include "jsonw.h"
#include "run_env.h"

/* write the "provenance" object's members into an open JSON object */
void provenance_write(struct jsonw *w, const struct env *env);
/* one line: kernel, accelerator, CPU (for text output and reports) */
void provenance_line(char *buf, size_t len);

#endif /* CONVBENCH_PROVENANCE_H */
