// SPDX-License-Identifier: GPL-2.0
/*
 * ./convbench on a kernel without the private-memory series (every
 * kernel a developer has): run the same command in the project's kernel
 * under QEMU, as virtme-ng's `vng -- CMD` does. bench/vm/run-in-vm.sh of the
 * tree this binary was built in boots the VM; this side decides whether
 * to go, sizes the VM for the run and rewrites --out to a guest path.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conv_mode.h"
#include "report.h"
#include "vm_exec.h"
#include "cell.h"

#define GUEST_OUT	"/out/run"

/* run-vm.sh's guest: its kernel command line names the accelerator */
static bool in_project_vm(void)
{
	char line[4096] = "";
	FILE *f = fopen("/proc/cmdline", "r");

	if (!f)
		return false;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	return strstr(line, "convbench.accel=") != NULL;
}

static bool wants_v5(const struct env *env)
{
	return env->modes[MODE_DESTRUCTIVE] || env->modes[MODE_INPLACE];
}

bool vm_exec_wanted(const struct env *env, char *why, size_t len)
{
	if (env->no_vm || env->merge || env->clock_mark || in_project_vm())
		return false;
	/* a mode this kernel runs: run here, as always */
	if (wants_v5(env) &&
	    !mode_supported(MODE_DESTRUCTIVE, env->trigger, why, len))
		return false;
	if (env->modes[MODE_GMEM] &&
	    !mode_supported(MODE_GMEM, env->trigger, why, len))
		return false;
	return true;
}

/*
 * FLAVOUR for run-in-vm.sh: the v5 modes run in the 6.1 kernel (main, or
 * its debug build), gmem in the 6.12 one; one VM cannot run both.
 * FLAVOUR=custom: the last custom kernel, whatever it runs
 */
static int pick_kernel(const struct env *env)
{
	const char *f = getenv("FLAVOUR");
	bool gmem_kernel = f && !strcmp(f, "gmem");

	/*
	 * a kernel of your own (kernel/build.sh FLAVOUR=custom): it runs
	 * whichever modes it has; convbench probes them there and says
	 * which it lacks (exit 4)
	 */
	if (f && !strcmp(f, "custom"))
		return 0;
	if (wants_v5(env) && env->modes[MODE_GMEM]) {
		fprintf(stderr, "convbench: --mode: destructive and inplace run in the 6.1 kernel, gmem in the 6.12 one: ask for them in two runs (make bench runs both kernels and compares them)\n");
		return 2;
	}
	if (env->modes[MODE_GMEM])
		return setenv("FLAVOUR", "gmem", 1) ? 1 : 0;
	if (gmem_kernel) {
		fprintf(stderr, "convbench: FLAVOUR=gmem is the 6.12 kernel, which runs --mode=gmem only\n");
		return 2;
	}
	return 0;
}

/* the tree this binary was built in: <top>/build/bench/convbench */
static int find_script(const char *exe, char *script, size_t len)
{
	char top[PATH_MAX];
	char *slash;
	int i;

	snprintf(top, sizeof(top), "%s", exe);
	for (i = 0; i < 3; i++) {
		slash = strrchr(top, '/');
		if (!slash)
			return -ENOENT;
		*slash = '\0';
	}
	if ((size_t)snprintf(script, len, "%s/bench/vm/run-in-vm.sh", top) >= len)
		return -ENAMETOOLONG;
	return access(script, X_OK) ? -errno : 0;
}

/* is argv[i] (with argv[i + 1]) the --out option env->out_dir came from? */
static int out_arg_len(const struct env *env, int i)
{
	const char *a = env->argv[i];

	if (!env->out_dir || strncmp(a, "--", 2))
		return 0;
	if (env->out_dir > a && env->out_dir <= a + strlen(a))
		return 1;	/* --out=DIR */
	if (i + 1 < env->argc && env->out_dir == env->argv[i + 1])
		return 2;	/* --out DIR */
	return 0;
}

static uint32_t vm_mem_mb(const struct env *env)
{
	uint64_t largest = 0;
	unsigned int i;

	if (env->vm_mem_mb)
		return env->vm_mem_mb;
	for (i = 0; i < env->nsizes; i++)
		if (env->sizes[i] > largest)
			largest = env->sizes[i];
	if (env->churn)
		largest = env->churn_p.range;
	/* the slot, the copy aside (--preserve), a spare: in 256 MB steps */
	return 2048 + (3 * largest * env->vcpus + (256 << 20) - 1) /
		      (256 << 20) * 256;
}

int vm_exec(const struct env *env, const char *why)
{
	char exe[PATH_MAX], script[PATH_MAX], out[PATH_MAX] = "";
	char cpus[16], mem[16], timeout[16], seed[40];
	const char **argv;
	int i, n = 0, r, skip;

	if (!realpath("/proc/self/exe", exe)) {
		fprintf(stderr, "convbench: %s; cannot find my own binary to run it in the project's kernel: %s\n",
			why, strerror(errno));
		return 4;
	}
	r = find_script(exe, script, sizeof(script));
	if (r) {
		fprintf(stderr, "convbench: %s; and %s is not in a convbench tree (no bench/vm/run-in-vm.sh: %s), so it cannot run itself in the project's kernel; use make vm CMD='convbench ...' there, or --no-vm\n",
			why, exe, strerror(-r));
		return 4;
	}
	r = pick_kernel(env);
	if (r)
		return r;
	/* claim --out here, as a run on this kernel would, before booting */
	if (env->out_dir) {
		r = report_claim_dir(env->out_dir);
		if (r)
			return r;
		if (!realpath(env->out_dir, out)) {
			fprintf(stderr, "convbench: --out=%s: %s\n",
				env->out_dir, strerror(errno));
			return 2;
		}
	}
	snprintf(cpus, sizeof(cpus), "%u", env->vm_cpus ? env->vm_cpus :
		 env->vcpus + env->busy_vcpus + 1);
	snprintf(mem, sizeof(mem), "%u", vm_mem_mb(env));
	snprintf(timeout, sizeof(timeout), "%u", env->vm_timeout_s);

	argv = calloc(env->argc + 16, sizeof(*argv));
	if (!argv) {
		fprintf(stderr, "convbench: out of memory\n");
		return 1;
	}
	argv[n++] = script;
	argv[n++] = "--cpus";
	argv[n++] = cpus;
	argv[n++] = "--mem";
	argv[n++] = mem;
	argv[n++] = "--timeout";
	argv[n++] = timeout;
	argv[n++] = "--why";
	argv[n++] = why;
	if (out[0]) {
		argv[n++] = "--out";
		argv[n++] = out;
	}
	argv[n++] = "--";
	argv[n++] = exe;
	for (i = 1; i < env->argc; i += skip ? skip : 1) {
		skip = out_arg_len(env, i);
		if (!skip)
			argv[n++] = env->argv[i];
	}
	/* inside, never again (a VM whose KVM fails must not recurse) */
	argv[n++] = "--no-vm";
	/*
	 * the shuffle's seed drawn here (or the one given): a guest just
	 * booted has no entropy for getrandom() yet
	 */
	snprintf(seed, sizeof(seed), "--order-seed=%llu",
		 (unsigned long long)env->order_seed);
	argv[n++] = seed;
	if (out[0])
		argv[n++] = "--out=" GUEST_OUT;
	argv[n] = NULL;
	fflush(NULL);
	/*
	 * convbench handles SIGINT even when started with it ignored (a
	 * background job of a script): so does the script, which can trap
	 * only what it was not started ignoring
	 */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	execv(script, (char *const *)argv);
	fprintf(stderr, "convbench: %s; running %s failed: %s\n", why, script,
		strerror(errno));
	free(argv);
	return 4;
}
