// SPDX-License-Identifier: GPL-2.0
/*
 * convreport: a convbench run folder as a plain-text report to paste
 * into an email (every line at most 72 columns): the setup and method,
 * per cell the pooled p50/p90/p99 with the samples beyond each, the
 * inplace/destructive ratios with their 95% CIs over rounds and the
 * per-round ratios (with a make bench run's gmem/, the gmem rows and
 * the ratios against gmem too: threeway.c), the work each conversion does, the probes'
 * overhead and the kernel functions' histograms. Every number is one
 * that convbench wrote into summary.json: nothing is recomputed here.
 * Written to RUN/report.txt (replaced atomically) and to stdout;
 * --plot-data writes the gnuplot tables instead.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "atomic_file.h"
#include "compare.h"
#include "headline.h"
#include "plotdata.h"
#include "markdown.h"
#include "repeat.h"
#include "sections.h"
#include "text.h"
#include "threeway.h"
#include "units.h"

static const char usage[] =
"Usage: convreport [OPTIONS] RUN_FOLDER\n"
"       convreport --compare [--json] RUN_A RUN_B\n"
"Write RUN_FOLDER/report.txt (and print it): a convbench run as plain\n"
"text for an email, every line at most 72 columns, from the statistics\n"
"convbench wrote into summary.json (and trace.csv's histograms,\n"
"hyperfine.json's whole-run timings).\n"
"\n"
"  --plot-data   write RUN_FOLDER/plots/data/ for analysis/*.gp instead\n"
"  --repeat=ROOT add a repeatability section: the runs in ROOT (make\n"
"                bench's results/) of this run's identity on the host,\n"
"                each p50 ratio's values, spread and agreement (no CI\n"
"                takes them in); runs of another identity listed\n"
"  --margin=PCT  the equivalence margin of --repeat (default 5)\n"
"  --markdown=WHAT  print a README table instead (report.txt untouched):\n"
"                threeway (p50s and ratios), fixed (the emulator's fixed\n"
"                costs, ratios raw and less them), work (the work table),\n"
"                repeat (repeatability over --repeat=ROOT's runs)\n"
"  --compare     compare two runs instead, B against A (convbench\n"
"                compare A B): per cell both hold, p50 (p90, p99 where\n"
"                both have 50 samples beyond) of each and B/A with a\n"
"                95% interval over both runs' boots, '+'/'-' where the\n"
"                change is beyond noise; cells one run holds apart; a\n"
"                different machine or emulator flagged\n"
"  --json        --compare's result as JSON\n"
"  --conf=PCT    --compare's confidence level (default 95)\n"
"  --headline    print the run's headline instead (what make bench\n"
"                prints last): the p50 ratios with their CIs per size\n"
"                and direction, and report.txt's path\n"
"  -q, --quiet   do not print the report, only write it\n"
"  -h, --help    this text\n"
"\n"
"Exit status: 0 ok, 1 no summary.json, no cells in it, or the report\n"
"could not be written, 2 bad usage (or --repeat's folder unreadable).\n"
"--compare: 0 compared, 1 a run unreadable or no cell in common, 2 bad\n"
"usage.\n";

/* drop the marketing from a CPU name: (R), (TM), "CPU", "@ 2.90GHz" */
static void short_cpu(char *s)
{
	static const char *const junk[] = { "(R)", "(r)", "(TM)", "(tm)",
					    " CPU", " Processor", NULL };
	const char *const *j;
	char *p;

	p = strstr(s, " @ ");
	if (p)
		*p = '\0';
	for (j = junk; *j; j++)
		while ((p = strstr(s, *j)))
			memmove(p, p + strlen(*j), strlen(p + strlen(*j)) + 1);
}

static void print_setup(FILE *f, const struct run *r)
{
	const struct jv *method = jv_get(r->sum, "method");
	const struct jv *rounds = jv_get(r->sum, "rounds");
	const struct jv *hist = jv_get(r->sum, "history"), *p50;
	double family, need;
	size_t nhist;
	const struct jv *c0 = jv_at(jv_get(r->sum, "cells"), 0);
	char cpu[128], buf[512], name[256];
	const char *accel = run_prov(r, "accel", "?"), *base;
	size_t len, i;

	snprintf(name, sizeof(name), "%s", r->dir);
	len = strlen(name);
	while (len > 1 && name[len - 1] == '/')
		name[--len] = '\0';
	base = strrchr(name, '/');
	text_line(f, "convbench run %s", base ? base + 1 : name);

	snprintf(cpu, sizeof(cpu), "%s", run_prov(r, "cpu_model", "?"));
	snprintf(buf, sizeof(buf), "setup: kernel %s, accel %s, CPU %s",
		 run_prov(r, "kernel_release", "?"), accel, cpu);
	if (strlen(buf) > TEXT_COLS) {
		short_cpu(cpu);
		snprintf(buf, sizeof(buf), "setup: kernel %s, accel %s, CPU %s",
			 run_prov(r, "kernel_release", "?"), accel, cpu);
	}
	if (strlen(buf) > TEXT_COLS)
		snprintf(buf, sizeof(buf), "setup: %s, %s, %s",
			 run_prov(r, "kernel_release", "?"), accel, cpu);
	text_line(f, "%s", buf);
	snprintf(buf, sizeof(buf), "QEMU %s, series %.12s, config %.12s, "
		 "convbench %s, %s", run_prov(r, "qemu_version", "?"),
		 run_prov(r, "series_sha", "?"), run_prov(r, "config_sha", "?"),
		 run_prov(r, "convbench_version", "?"),
		 run_prov(r, "date", "?"));
	text_wrap(f, "", "  ", buf);
	if (c0) {
		snprintf(buf, sizeof(buf), "workload: %s trigger, %s, %.0f vCPU%s",
			 jv_str(jv_get(c0, "trigger"), "?"),
			 jv_bool(jv_get(c0, "preserve"), true) ? "preserve" :
			 "no-preserve", jv_num(jv_get(c0, "vcpus"), 1),
			 jv_num(jv_get(c0, "vcpus"), 1) > 1 ? "s" : "");
		text_line(f, "%s", buf);
	}
	if (jv_get(r->sum, "design"))
		snprintf(buf, sizeof(buf), "method: %.0f rounds (%.0f valid), "
			 "the declared design (order seed %.0f): each size's "
			 "modes in ABBA blocks inside every boot, kernel, "
			 "traced and mode order counterbalanced over rounds",
			 jv_num(jv_get(method, "rounds"), 0),
			 jv_num(jv_get(method, "rounds_valid"), 0),
			 jv_num(jv_get(method, "order_seed"), 0));
	else
		snprintf(buf, sizeof(buf), "method: %.0f rounds (%.0f valid), "
			 "sizes shuffled per round (order seed %.0f), modes "
			 "ABBA", jv_num(jv_get(method, "rounds"), 0),
			 jv_num(jv_get(method, "rounds_valid"), 0),
			 jv_num(jv_get(method, "order_seed"), 0));
	text_wrap(f, "", "  ", buf);
	p50 = jv_get(jv_at(jv_get(r->sum, "ratios_inplace_over_destructive"),
			   0), "p50");
	if (!p50)	/* gmem alone */
		p50 = jv_get(jv_at(jv_get(jv_get(r->sum, "ratios_against_gmem"),
				  "gmem_over_destructive"), 0), "p50");
	nhist = jv_len(jv_get(hist, "runs"));
	if (jv_get(p50, "joint_family")) {
		snprintf(buf, sizeof(buf), "95%% CI of a ratio: this run's "
			 "ratio on this host, from its own rounds (%s); "
			 "'joint': all %.0f estimated p50 ratios at once. No "
			 "earlier run enters a CI%s", jv_get(r->sum, "design") ?
			 "the boot's time fitted, and against gmem the kernel "
			 "order" : "a drift along the run and the round's "
			 "parity fitted", jv_num(jv_get(p50, "joint_family"), 0),
			 nhist ? "; earlier runs of this build are listed as "
			 "'earlier', for repeatability" : "");
		text_wrap(f, "", "  ", buf);
	} else {	/* a run of the method before (widened by history) */
		family = jv_num(jv_get(p50, "ci95_family"), 0);
		need = jv_num(jv_get(hist, "needed_for_a_between_run_term"), 1);
		snprintf(buf, sizeof(buf), "95%% CI of a ratio (the method "
			 "of this run): where a repeat run lands, jointly over "
			 "%.0f p50 ratios; 'each': that ratio alone; %s",
			 family, nhist >= need && nhist ? "widened by the "
			 "spread of earlier runs" : "from the rounds alone");
		text_wrap(f, "", "  ", buf);
	}
	for (i = 0; i < jv_len(rounds); i++) {
		const struct jv *x = jv_at(rounds, i);
		const struct jv *clock = jv_get(x, "clock");

		if (!jv_bool(jv_get(clock, "checked"), true)) {
			snprintf(buf, sizeof(buf), "note: round %.0f's clock was "
				 "not checked: %s", jv_num(jv_get(x, "round"), 0),
				 jv_str(jv_get(clock, "unchecked_why"), "?"));
			text_wrap(f, "", "  ", buf);
		}
		if (jv_bool(jv_get(x, "valid"), true))
			continue;
		snprintf(buf, sizeof(buf), "note: round %.0f left out: %s",
			 jv_num(jv_get(x, "round"), 0),
			 jv_str(jv_get(x, "invalid_why"), "?"));
		text_wrap(f, "", "  ", buf);
	}
	if (!strcasecmp(accel, "tcg"))
		text_line(f, "note: emulated timings: compare ratios, not absolute us");
}

/* "94.68 [2500]": a percentile and the samples beyond it */
static const char *pct_cell(const struct jv *tot, int p, char *buf,
			    size_t len)
{
	char us[32], key[32];

	snprintf(key, sizeof(key), "%s_beyond", run_pct_name[p]);
	snprintf(buf, len, "%s [%.0f]",
		 text_us(jv_num(jv_get(tot, run_pct_name[p]), NAN), us,
			 sizeof(us)), jv_num(jv_get(tot, key), 0));
	return buf;
}

/* q: num over den; label: "in/de", "gm/de" or "in/gm" */
static void print_ratio(FILE *f, const struct jv *q, int p, const char *label,
			enum conv_mode num, enum conv_mode den)
{
	const struct jv *x = jv_get(q, run_pct_name[p]);
	const struct jv *rounds = jv_get(x, "per_round");
	const struct jv *earlier = jv_get(x, "earlier_runs");
	char buf[256], kn[48], kd[48], *w = buf;
	size_t i;

	if (!jv_bool(jv_get(x, "shown"), false)) {
		snprintf(kn, sizeof(kn), "beyond_%s", conv_mode_names[num]);
		snprintf(kd, sizeof(kd), "beyond_%s", conv_mode_names[den]);
		text_line(f, "  %s %s   not shown: %.0f and %.0f samples beyond, "
			  "< 50", label, run_pct_name[p],
			  jv_num(jv_get(x, kn), 0), jv_num(jv_get(x, kd), 0));
		return;
	}
	if (isnan(jv_num(jv_get(x, "ci95_lo"), NAN)))
		text_line(f, "  %s %s   %.3f  (no CI: one round)", label,
			  run_pct_name[p], jv_num(jv_get(x, "ratio"), NAN));
	else {
		/* the second interval: joint, or "each" in a run of the method before */
		bool joint = jv_get(x, "joint_ci95_lo");

		text_line(f, "  %s %s   %.3f  95%% CI %.3f..%.3f  %s %.3f..%.3f",
			  label, run_pct_name[p],
			  jv_num(jv_get(x, "ratio"), NAN),
			  jv_num(jv_get(x, "ci95_lo"), NAN),
			  jv_num(jv_get(x, "ci95_hi"), NAN),
			  joint ? "joint" : "each",
			  jv_num(jv_get(x, joint ? "joint_ci95_lo" :
					"each_ci95_lo"), NAN),
			  jv_num(jv_get(x, joint ? "joint_ci95_hi" :
					"each_ci95_hi"), NAN));
	}
	for (i = 0; i < jv_len(rounds) && i < 12; i++)
		w += sprintf(w, " %.3f", jv_num(jv_get(jv_at(rounds, i),
							"ratio"), NAN));
	if (jv_len(rounds) > 1)
		text_wrap(f, "    rounds   ", "             ", buf + 1);
	/* the earlier runs of this build, listed (in no CI of this method) */
	w = buf;
	*w = '\0';
	for (i = 0; i < jv_len(earlier) && i < 12; i++)
		w += sprintf(w, " %.3f", jv_num(jv_get(jv_at(earlier, i),
							"ratio"), NAN));
	if (jv_len(earlier))
		text_wrap(f, "    earlier  ", "             ", buf + 1);
}

static void print_table(FILE *f, const struct run *r, const struct run *g)
{
	char sz[32], a[32], b[32], c[32];
	bool any_ratio = false;
	size_t i;
	int d, m;

	fputc('\n', f);
	text_line(f, "Latency per conversion (request to range usable), us,");
	text_line(f, "all rounds pooled; [samples beyond the percentile]");
	for (i = 0; i < r->nsizes; i++) {
		size_str(r->sizes[i], sz, sizeof(sz));
		for (d = 0; d < DIR_NR; d++) {
			const struct jv *q;
			bool any = false;

			for (m = 0; m < MODE_NR; m++)
				any |= run_cell_of(r, g, m, r->sizes[i], d) != NULL;
			if (!any)
				continue;
			fputc('\n', f);
			text_line(f, "%-4s %-10s %6s %15s %15s %15s", sz,
				  conv_dir_names[d], "n", "p50", "p90", "p99");
			for (m = 0; m < MODE_NR; m++) {
				const struct jv *cell = run_cell_of(r, g, m,
							r->sizes[i], d);
				const struct jv *tot = jv_get(cell, "total_ns");

				if (!cell)
					continue;
				text_line(f, "  %-13s %6.0f %15s %15s %15s",
					  conv_mode_names[m],
					  jv_num(jv_get(tot, "n"), 0),
					  pct_cell(tot, 0, a, sizeof(a)),
					  pct_cell(tot, 1, b, sizeof(b)),
					  pct_cell(tot, 2, c, sizeof(c)));
			}
			q = run_ratio(r, r->sizes[i], d);
			for (m = 0; q && m < 3; m++)
				print_ratio(f, q, m, "in/de", MODE_INPLACE,
					    MODE_DESTRUCTIVE);
			any_ratio |= q != NULL;
			q = run_gmem_ratio(r, "gmem_over_destructive",
					   r->sizes[i], d);
			for (m = 0; q && m < 3; m++)
				print_ratio(f, q, m, "gm/de", MODE_GMEM,
					    MODE_DESTRUCTIVE);
			q = run_gmem_ratio(r, "inplace_over_gmem",
					   r->sizes[i], d);
			for (m = 0; q && m < 3; m++)
				print_ratio(f, q, m, "in/gm", MODE_INPLACE,
					    MODE_GMEM);
		}
	}
	fputc('\n', f);
	if (!any_ratio) {
		text_wrap(f, "", "", "No inplace/destructive ratio: each size "
			  "and direction needs samples of both modes.");
		return;
	}
	text_wrap(f, "", "", "in/de: inplace over destructive (below 1: "
		  "inplace faster), the geometric mean of the per-round "
		  "ratios; 95% CI: Student t over rounds, on the log ratio. "
		  "A tail ratio only where at least 50 samples lie beyond "
		  "it in each mode.");
	if (jv_get(r->sum, "ratios_against_gmem"))
		text_wrap(f, "", "", "gm/de: gmem over destructive, in/gm: "
			  "inplace over gmem, the same way; round K of gmem "
			  "(the 6.12 kernel) ran in another boot than round K "
			  "of the 6.1 modes, so these CIs carry the variation "
			  "between boots too.");
}

static int write_report(const char *run, const char *text, size_t len)
{
	struct atomic_file af;
	char path[4096];
	int err;

	snprintf(path, sizeof(path), "%s/report.txt", run);
	err = atomic_file_open(path, ATOMIC_FILE_REPLACE, &af);
	if (!err) {
		fwrite(text, 1, len, af.f);
		err = atomic_file_commit(&af);
		atomic_file_abort(&af);
	}
	if (err)
		fprintf(stderr, "convreport: %s: %s\n", path, strerror(-err));
	return err;
}

/* --compare A B: the two folders checked, then compare.c */
static int compare_main(int n, char **dirs, bool json, double conf)
{
	char err[1024];
	struct stat st;
	int i, r;

	if (n != 2) {
		fprintf(stderr, "convreport: --compare expects two run folders, "
			"A (the baseline) and B, got %d\n", n);
		return 2;
	}
	for (i = 0; i < 2; i++)
		if (stat(dirs[i], &st) || !S_ISDIR(st.st_mode)) {
			fprintf(stderr, "convreport: --compare: %s: not a "
				"folder\n", dirs[i]);
			return 2;
		}
	r = compare_runs(stdout, dirs[0], dirs[1], json, conf, err,
			 sizeof(err));
	if (r < 0) {
		fprintf(stderr, "convreport: --compare: %s\n", strerror(-r));
		return 1;
	}
	if (r)
		fprintf(stderr, "convreport: --compare: %s\n", err);
	return r ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "plot-data", no_argument, NULL, 'P' },
		{ "repeat", required_argument, NULL, 'R' },
		{ "markdown", required_argument, NULL, 'D' },
		{ "margin", required_argument, NULL, 'M' },
		{ "compare", no_argument, NULL, 'C' },
		{ "json", no_argument, NULL, 'J' },
		{ "headline", no_argument, NULL, 'H' },
		{ "conf", required_argument, NULL, 'L' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	bool quiet = false, plot = false, compare = false, json = false;
	bool headline = false;
	double conf = 0.95;
	const char *repeat = NULL, *markdown = NULL;
	double margin = 5;
	char *end;
	char err[512], *text = NULL;
	struct run r, g;
	bool have_g;
	struct stat st;
	size_t len = 0;
	FILE *f;
	int c, ret;

	while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
		switch (c) {
		case 'P':
			plot = true;
			break;
		case 'C':
			compare = true;
			break;
		case 'J':
			json = true;
			break;
		case 'H':
			headline = true;
			break;
		case 'L':
			errno = 0;
			conf = strtod(optarg, &end) / 100;
			if (errno || end == optarg || *end || !(conf >= 0.5) ||
			    conf >= 1) {
				fprintf(stderr, "convreport: --conf expects a "
					"percentage from 50 to below 100, got "
					"'%s'\n", optarg);
				return 2;
			}
			break;
		case 'q':
			quiet = true;
			break;
		case 'R':
			repeat = optarg;
			break;
		case 'D':
			markdown = optarg;
			break;
		case 'M':
			errno = 0;
			margin = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(margin > 0) ||
			    margin >= 100) {
				fprintf(stderr, "convreport: --margin expects a "
					"percentage above 0 and below 100, got "
					"'%s'\n", optarg);
				return 2;
			}
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (compare || json)
		return compare_main(argc - optind, argv + optind, json, conf);
	if (optind + 1 != argc) {
		fprintf(stderr, "convreport: expected one RUN_FOLDER\n%s", usage);
		return 2;
	}
	if (stat(argv[optind], &st) || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "convreport: %s: not a folder\n", argv[optind]);
		return 2;
	}
	if (run_load(&r, argv[optind], err, sizeof(err))) {
		fprintf(stderr, "convreport: %s\n", err);
		return 1;
	}
	if (!jv_len(jv_get(r.sum, "cells"))) {
		fprintf(stderr, "convreport: %s: no cells in summary.json\n",
			argv[optind]);
		run_free(&r);
		return 1;
	}
	if (plot) {
		ret = plot_data(&r);
		run_free(&r);
		return ret ? 1 : 0;
	}
	have_g = !threeway_load(&g, argv[optind]);
	if (headline) {
		headline_print(stdout, &r, have_g ? &g : NULL);
		ret = ferror(stdout) ? 1 : 0;
		goto out_code;
	}
	if (markdown) {
		/* the README's tables on stdout; report.txt untouched */
		ret = markdown_tables(stdout, &r, have_g ? &g : NULL, markdown,
				      repeat, margin, err, sizeof(err));
		if (ret)
			fprintf(stderr, "convreport: %s\n", err);
		ret = ret ? 2 : 0;
		goto out_code;
	}
	f = open_memstream(&text, &len);
	if (!f) {
		perror("convreport");
		ret = 1;
		goto out;
	}
	print_setup(f, &r);
	if (have_g)
		threeway_setup(f, &g);
	print_table(f, &r, have_g ? &g : NULL);
	print_tails(f, &r, have_g ? &g : NULL);
	print_work(f, &r, have_g ? &g : NULL);
	print_fixed(f, &r, have_g ? &g : NULL);
	print_overhead(f, &r);
	print_trace(f, &r);
	if (have_g)
		threeway_functions(f, &r, &g);
	print_churn(f, &r);
	print_split(f, &r);
	print_accept(f, &r);
	print_io(f, &r);
	print_smp(f, &r);
	print_hyperfine(f, &r);
	if (repeat && repeat_section(f, &r, repeat, margin, err,
				     sizeof(err))) {
		fclose(f);
		free(text);
		fprintf(stderr, "convreport: %s\n", err);
		ret = 2;
		goto out_code;
	}
	if (fclose(f)) {
		perror("convreport");
		ret = 1;
		goto out;
	}
	ret = write_report(r.dir, text, len);
	if (!quiet)
		fwrite(text, 1, len, stdout);
	free(text);
out:
	ret = ret ? 1 : 0;
out_code:
	if (have_g)
		threeway_free(&g);
	run_free(&r);
	return ret;
}
