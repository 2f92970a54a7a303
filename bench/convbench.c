// SPDX-License-Identifier: GPL-2.0
/*
 * convbench: private<->shared conversion latency of KVM guest memory on
 * the v5 private-memory series, destructive (as posted) and in place,
 * and on guest_memfd as upstream merged it (another kernel, gmem).
 * See --help and README.md.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "churn_report.h"
#include "clock_mark.h"
#include "conv_mode.h"
#include "design.h"
#include "invariants.h"
#include "merge.h"
#include "options.h"
#include "plan.h"
#include "probe_cal.h"
#include "progress.h"
#include "report.h"
#include "trace_hook.h"
#include "vm_exec.h"
#include "work_counts.h"
#include "cell.h"

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
	cell_request_stop();
}

/* the first SIGINT/SIGTERM stops the run and keeps it, a second kills */
static void install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal,
				.sa_flags = SA_RESETHAND };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static struct cell_params params_of(const struct env *env,
				    const struct plan_cell *pc)
{
	return (struct cell_params) {
		.round = pc->round,
		.block = pc->block,
		.boot_slot = pc->boot_slot,
		.mode = pc->mode,
		.size = pc->size,
		.dir_mask = env->dir_mask,
		.trigger = env->trigger,
		.preserve = env->preserve,
		.vcpus = env->vcpus,
		.busy_vcpus = env->busy_vcpus,
		.warmup = env->warmup,
		.iterations = pc->iterations ? pc->iterations :
			      env_iterations(env, pc->size),
		.duration_s = env->duration_s,
		.seed = env->seed,
		.stall_s = env->stall_s,
		.max_exits = env->max_exits,
		.inject = env->inject,
		.verbose = env->verbose,
		.counts = env->counts,
	};
}

/* one cell: run it, check it (--debug), say what went wrong */
static int run_one(const struct env *env, struct cell_params *p,
		   struct cell_result *res, struct progress *pg)
{
	char why[512], sz[32];
	uint64_t bad;
	int r;

	size_str(p->size, sz, sizeof(sz));
	if (env->verbose)
		fprintf(stderr, "convbench: round %u: %s %s ...\n", p->round,
			conv_mode_name(p->mode), sz);
	r = cell_run(p, res);
	progress_cell_end(pg, res->conversions);
	bad = env->debug ? inv_check_cell(res, 0, why, sizeof(why)) : 0;
	if (bad) {
		fprintf(stderr, "convbench: %s %s: --debug: %llu of %llu conversions break a timing invariant, the first: %s\n",
			conv_mode_name(p->mode), sz, (unsigned long long)bad,
			(unsigned long long)res->n, why);
		if (!res->error[0])
			snprintf(res->error, sizeof(res->error),
				 "timing invariant broken: %.480s", why);
		r = r ? r : -EPROTO;
	}
	if (r)
		fprintf(stderr, "convbench: %s %s: %s\n",
			conv_mode_name(p->mode), sz,
			res->error[0] ? res->error : strerror(-r));
	return r;
}

/* summary.json's rounds: the order each round ran its cells in */
static struct report_round *rounds_of(const struct env *env,
				      const struct plan_cell *plan,
				      size_t nplan)
{
	struct report_round *rr = calloc(env->rounds, sizeof(*rr));
	char sz[32];
	size_t i;

	for (i = 0; rr && i < env->rounds; i++)
		rr[i].round = env->first_round + i;
	for (i = 0; rr && i < nplan; i++) {
		struct report_round *x = &rr[plan[i].round - env->first_round];
		size_t len = strlen(x->order);

		snprintf(x->order + len, sizeof(x->order) - len, "%s%s %s",
			 len ? ", " : "", size_str(plan[i].size, sz, sizeof(sz)),
			 conv_mode_name(plan[i].mode));
	}
	return rr;
}

/* --design-boots: the boots in running order, a line each, for make bench */
static int design_boots_print(const struct env *env)
{
	struct design_params p;
	struct design d;
	unsigned int i;

	env_design_params(env, &p);
	if (design_build(&p, &d)) {
		fprintf(stderr, "convbench: --design: no design of these parameters\n");
		return 2;
	}
	for (i = 0; i < d.nboots; i++) {
		const struct design_boot *b = &d.boot[i];

		printf("boot %u round %u kernel %s slot %u traced_first %d mode_first %s seed %016llx\n",
		       b->id, b->round, design_kernel_name(b->kernel), b->slot,
		       b->traced_first, design_mode_name(b->mode_first),
		       (unsigned long long)b->seed);
	}
	design_free(&d);
	return 0;
}

/* --design: this boot's cells of its phase (traced with --trace) */
static int design_plan(const struct env *env, struct plan_cell **plan,
		       size_t *nplan)
{
	enum design_kernel k = env->modes[MODE_GMEM] ? DESIGN_K_GMEM :
						       DESIGN_K_V5;
	const struct design_boot *b;
	uint32_t iters[MAX_SIZES];
	struct design_params p;
	struct design d;
	unsigned int i;
	int r;

	env_design_params(env, &p);
	r = design_build(&p, &d);
	if (r)
		return r;
	for (i = 0; i < env->nsizes; i++)
		iters[i] = env_iterations(env, env->sizes[i]);
	b = design_round_boot(&d, env->first_round, k);
	r = b ? plan_from_design(b, env->trace ? DESIGN_TRACED :
				 DESIGN_UNTRACED, env->sizes,
				 env->design_blocks, iters, plan,
				 nplan) : -EINVAL;
	design_free(&d);
	return r;
}

/* the modes asked for that this kernel offers; the others noted */
static unsigned int usable_modes(const struct env *env, struct report *rep,
				 bool modes[MODE_NR])
{
	unsigned int m, unavailable = 0;
	char why[512];

	for (m = 0; m < MODE_NR; m++) {
		if (!env->modes[m])
			continue;
		if (mode_supported(m, env->trigger, why, sizeof(why))) {
			fprintf(stderr, "convbench: --mode=%s: %s\n",
				conv_mode_name(m), why);
			report_note(rep, conv_mode_name(m), why);
			unavailable++;
			continue;
		}
		modes[m] = true;
	}
	return unavailable;
}

/*
 * --workload=churn (split, accept, io): every mode offered, --rounds
 * times, each in a fresh VM, the mode that goes first rotating by
 * round; every mode and round runs the same sequence (the seed). 0, 1 (a cell failed), 4 (no mode).
 */
static int run_churn(const struct env *env, struct report *rep)
{
	const struct churn_params *cp = &env->churn_p;
	bool modes[MODE_NR] = { false };
	unsigned int nm = 0, order[MODE_NR], m, i, k, round, failed = 0;
	unsigned int unavailable = usable_modes(env, rep, modes);
	unsigned int ncls = cp->accept ? cp->nclasses : 1;
	const char *workload = cp->io ? "io" : cp->accept ? "accept" :
			       cp->events ? "split" : "churn";
	struct churn_params per[CHURN_CLASSES];
	struct trace_hook hook = { 0 };
	struct cell_result *res;
	char sz[32];
	size_t n = 0;
	int r;

	for (m = 0; m < MODE_NR; m++)
		if (modes[m])
			order[nm++] = m;
	/* accept: a cell per chunk size, its sweeps' conversions */
	for (k = 0; k < ncls; k++) {
		per[k] = *cp;
		if (!cp->accept)
			continue;
		per[k].nclasses = 1;
		per[k].size[0] = cp->size[k];
		per[k].weight[0] = 1;
		per[k].ops = 1 + 2 * (cp->range / cp->size[k]);
	}
	if (cp->merge && access(CHURN_MERGE_SWITCH, W_OK)) {
		fprintf(stderr, "convbench: --churn-merge: this kernel has no merge back (%s: %s; kernel/patches 0048)\n",
			CHURN_MERGE_SWITCH, strerror(errno));
		return 4;
	}
	/* --workload=io --counts: each block's work from BPF counters */
	if (env->counts) {
		r = trace_hook_open(&hook, env->trace, true, env->verbose);
		if (r)
			return r;
	}
	res = calloc(env->rounds * nm * ncls + 1, sizeof(*res));
	if (!res) {
		trace_hook_close(&hook);
		return 1;
	}
	for (round = 0; round < env->rounds && !cell_stop_requested(); round++)
		for (i = 0; i < nm * ncls && !cell_stop_requested(); i++) {
			struct cell_params p = {
				.round = env->first_round + round,
				.mode = order[(i / ncls + round) % nm],
				.size = cp->range,
				.dir_mask = DIRS_ROUNDTRIP,
				.trigger = TRIGGER_EXPLICIT,
				.preserve = !cp->accept,
				.vcpus = env->vcpus,
				.seed = env->seed,
				.stall_s = env->stall_s,
				.max_exits = env->max_exits,
				.verbose = env->verbose,
				.churn = &per[i % ncls],
			};

			fprintf(stderr, "convbench: %s: round %u, %s%s%s\n",
				workload, p.round, churn_mode_name(cp, p.mode),
				cp->accept ? ", chunks of " : "",
				cp->accept ? size_str(p.churn->size[0], sz, sizeof(sz)) : "");
			trace_hook_churn_cell(&hook, &p);
			r = cell_run(&p, &res[n]);
			trace_hook_cell_end(&hook, &res[n]);
			if (r) {
				fprintf(stderr, "convbench: %s: round %u, %s: %s\n",
					workload, p.round, churn_mode_name(cp, p.mode),
					res[n].error[0] ? res[n].error : strerror(-r));
				failed++;
			}
			n++;
		}
	if (stop_signal)
		fprintf(stderr, "convbench: stopped by signal %d (%s); writing "
			"what was measured\n", stop_signal,
			strsignal(stop_signal));
	r = churn_report(rep, res, n);
	trace_hook_close(&hook);
	for (i = 0; i < n; i++)
		cell_result_free(&res[i]);
	free(res);
	if (failed || r)
		return 1;
	if (stop_signal)
		return 128 + stop_signal;
	return unavailable || !n ? 4 : 0;
}

/* the plan's cells in order, until a signal; how many failed */
static unsigned int run_cells(const struct env *env,
			      const struct plan_cell *plan, size_t nplan,
			      struct trace_hook *hook, struct report *rep,
			      struct cell_result *results, size_t *ncells)
{
	struct progress progress;
	unsigned int failed = 0;
	size_t i;

	if (nplan) {
		struct cell_params proto = params_of(env, &plan[0]);

		progress_init(&progress, plan, nplan, &proto);
	}
	for (i = 0; i < nplan && !cell_stop_requested(); i++) {
		struct cell_params p = params_of(env, &plan[i]);

		trace_hook_cell(hook, &p);
		progress_cell_start(&progress, i, &p);
		failed += run_one(env, &p, &results[*ncells], &progress) != 0;
		trace_hook_cell_end(hook, &results[*ncells]);
		report_cell(rep, &results[(*ncells)++]);
	}
	return failed;
}

/*
 * convbench compare ...: convreport --compare ..., found beside this
 * program (build/bench/convbench: build/analysis/convreport; an
 * installed pair side by side), else on PATH
 */
static int compare_exec(int argc, char **argv)
{
	static const char *const rel[] = { "/../analysis/convreport",
					   "/convreport" };
	char self[4096], path[4200], **args;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	size_t i;
	int k;

	args = calloc(argc + 2, sizeof(*args));
	if (!args) {
		fprintf(stderr, "convbench compare: out of memory\n");
		return 1;
	}
	args[0] = "convreport";
	args[1] = "--compare";
	for (k = 2; k < argc; k++)
		args[k] = argv[k];
	if (n > 0) {
		self[n] = '\0';
		*strrchr(self, '/') = '\0';
		for (i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
			snprintf(path, sizeof(path), "%s%s", self, rel[i]);
			if (!access(path, X_OK))
				execv(path, args);
		}
	}
	execvp("convreport", args);
	fprintf(stderr, "convbench compare: cannot run convreport (make "
		"convreport builds it): %s\n", strerror(errno));
	free(args);
	return 1;
}

int main(int argc, char **argv)
{
	struct cell_result *results = NULL;
	struct report_round *rounds = NULL;
	struct trace_hook hook = { 0 };
	struct probe_cal cal;
	struct plan_cell *plan = NULL;
	struct work_job work = { 0 };
	bool modes[MODE_NR] = { false };
	size_t nplan = 0, i, ncells = 0;
	unsigned int failed = 0, unavailable;
	struct report rep;
	struct env env;
	char why[512];
	int r;

	if (argc > 1 && !strcmp(argv[1], "compare"))
		return compare_exec(argc, argv);
	r = parse_options(argc, argv, &env, stdout, stderr);
	if (r)
		return r == 1 ? 0 : 2;
	if (env.clock_mark)
		return clock_mark_print(env.clock_mark, stdout) ? 1 : 0;
	if (env.design_boots)
		return design_boots_print(&env);
	if (env.merge)
		return merge_run(&env);
	if (vm_exec_wanted(&env, why, sizeof(why)))
		return vm_exec(&env, why);
	install_signals();

	r = report_open(&rep, &env);
	if (r)
		return r;
	if (env.churn) {
		r = run_churn(&env, &rep);
		report_close(&rep);
		return r;
	}
	unavailable = usable_modes(&env, &rep, modes);
	if (env.design && unavailable)
		r = 0;	/* a boot of the design runs all its modes or none */
	else if (env.design)
		r = design_plan(&env, &plan, &nplan);
	else
		r = plan_build(modes, env.sizes, env.nsizes, env.first_round,
			       env.rounds, env.order_seed, &plan, &nplan);
	results = calloc(nplan ? nplan : 1, sizeof(*results));
	rounds = rounds_of(&env, plan, nplan);
	if (r == -EINVAL) {
		fprintf(stderr, "convbench: --design: no boot of round %u for these modes\n",
			env.first_round);
		r = 2;
		goto out;
	}
	if (r || !results || !rounds) {
		fprintf(stderr, "convbench: out of memory\n");
		r = 1;
		goto out;
	}
	rep.rounds = rounds;
	rep.nrounds = env.rounds;
	if (env.format == FORMAT_TEXT && nplan)
		printf("convbench: %u round%s, order seed %llu\n", env.rounds,
		       env.rounds == 1 ? "" : "s",
		       (unsigned long long)env.order_seed);
	if (env.trace || env.counts) {
		r = trace_hook_open(&hook, env.trace, env.counts, env.verbose);
		if (r)
			goto out;
		trace_hook_report_to(&hook, &rep);
	}
	if (env.counts) {
		work = (struct work_job) {
			.hook = &hook, .res = results, .nres = &ncells,
		};
		work_report_to(&work, &rep);
	}
	/* the probes' cost per hit, before the first cell (probe_cal.h) */
	if (nplan && !env.counts) {
		trace_hook_calibrate(&hook, &cal);
		probe_cal_report_to(&cal, &rep);
	}
	failed = run_cells(&env, plan, nplan, &hook, &rep, results, &ncells);
	if (stop_signal)
		fprintf(stderr, "convbench: stopped by signal %d (%s); writing "
			"what was measured\n", stop_signal,
			strsignal(stop_signal));

	/* summary.json last: the trace files first */
	r = trace_hook_write(&hook, &rep);
	r = report_finish(&rep, results, ncells) ?: r;
out:
	trace_hook_close(&hook);
	report_close(&rep);
	for (i = 0; i < ncells; i++)
		cell_result_free(&results[i]);
	free(results);
	free(rounds);
	free(plan);
	if (r > 0)
		return r;	/* an exit status already (2, 4) */
	if (failed || r)
		return 1;
	if (stop_signal)
		return 128 + stop_signal;
	if (unavailable)
		return 4;
	return ncells ? 0 : 4;
}
