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

#include "invariants.h"
#include "options.h"
#include "report.h"
#include "trace_hook.h"
#include "workload.h"

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
	workload_request_stop();
}

static int trace_text(FILE *f, void *arg)
{
	return trace_hook_report(arg, f, NULL) ? -EIO : 0;
}

static int trace_csv(FILE *f, void *arg)
{
	return trace_hook_report(arg, NULL, f) ? -EIO : 0;
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

int main(int argc, char **argv)
{
	struct cell_result *results;
	struct trace_hook hook = { 0 };
	struct report rep;
	char why[512], sz[32];
	unsigned int m, i, ncells = 0, failed = 0, unavailable = 0, ran = 0;
	struct env env;
	uint64_t bad;
	int r;

	r = parse_options(argc, argv, &env, stdout, stderr);
	if (r)
		return r == 1 ? 0 : 2;
	install_signals();

	results = calloc(MODE_NR * env.nsizes, sizeof(*results));
	if (!results) {
		fprintf(stderr, "convbench: out of memory\n");
		return 1;
	}
	r = report_open(&rep, &env);
	if (r) {
		free(results);
		return r;
	}
	if (env.trace) {
		r = trace_hook_open(&hook, env.verbose);
		if (r) {
			report_close(&rep);
			free(results);
			return r;
		}
	}

	for (m = 0; m < MODE_NR; m++) {
		if (!env.modes[m])
			continue;
		r = mode_supported(m, env.trigger, why, sizeof(why));
		if (r) {
			fprintf(stderr, "convbench: --mode=%s: %s\n",
				conv_mode_name(m), why);
			report_note(&rep, conv_mode_name(m), why);
			unavailable++;
			continue;
		}
		for (i = 0; i < env.nsizes; i++) {
			struct cell_params p = {
				.mode = m,
				.size = env.sizes[i],
				.dir_mask = env.dir_mask,
				.trigger = env.trigger,
				.preserve = env.preserve,
				.vcpus = env.vcpus,
				.warmup = env.warmup,
				.iterations = env.iterations,
				.duration_s = env.duration_s,
				.seed = env.seed,
				.stall_s = env.stall_s,
				.max_exits = env.max_exits,
				.inject = env.inject,
				.verbose = env.verbose,
			};
			struct cell_result *res;

			if (workload_stop_requested())
				break;
			res = &results[ncells++];

			if (env.verbose)
				fprintf(stderr, "convbench: %s %s ...\n",
					conv_mode_name(m),
					size_str(p.size, sz, sizeof(sz)));
			trace_hook_cell(&hook, &p);
			r = cell_run(&p, res);
			ran++;
			bad = env.debug ? inv_check_cell(res, why, sizeof(why)) : 0;
			if (bad) {
				fprintf(stderr, "convbench: %s %s: --debug: %llu of %llu conversions break a timing invariant, the first: %s\n",
					conv_mode_name(m),
					size_str(p.size, sz, sizeof(sz)),
					(unsigned long long)bad,
					(unsigned long long)res->n, why);
				if (!res->error[0])
					snprintf(res->error, sizeof(res->error),
						 "timing invariant broken: %.480s", why);
				r = r ? r : -EPROTO;
			}
			if (r) {
				failed++;
				fprintf(stderr, "convbench: %s %s: %s\n",
					conv_mode_name(m),
					size_str(p.size, sz, sizeof(sz)),
					res->error[0] ? res->error : strerror(-r));
			}
			report_cell(&rep, res);
		}
	}
	if (stop_signal)
		fprintf(stderr, "convbench: stopped by signal %d (%s); writing "
			"what was measured\n", stop_signal,
			strsignal(stop_signal));

	r = report_finish(&rep, results, ncells);
	if (hook.t) {
		if (env.format == FORMAT_TEXT)
			trace_hook_report(&hook, stdout, NULL);
		if (report_write_file(&rep, "trace.txt", trace_text, &hook) ||
		    report_write_file(&rep, "trace.csv", trace_csv, &hook))
			r = r ? r : -EIO;
		trace_hook_close(&hook);
	}
	report_close(&rep);
	for (i = 0; i < ncells; i++)
		cell_result_free(&results[i]);
	free(results);

	if (failed || r)
		return 1;
	if (stop_signal)
		return 128 + stop_signal;
	if (unavailable)
		return 4;
	return ran ? 0 : 4;
}
