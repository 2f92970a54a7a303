// SPDX-License-Identifier: GPL-2.0
/*
 * convreport: a convbench run folder as a plain-text report to paste
 * into an email (every line at most 72 columns): the setup, median and
 * p99 per cell with the inplace/destructive ratio and its bootstrap CI,
 * and the kernel functions' latency histograms of both modes side by
 * side (from convtrace's trace.csv). Written to RUN/report.txt
 * (replaced atomically) and to stdout.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <math.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "atomic_file.h"
#include "convtrace.h"
#include "hist.h"
#include "options.h"
#include "runfiles.h"
#include "stats.h"
#include "text.h"
#include "threeway.h"

#define RPT_MAX_SIZES	64
#define CI_CONF		0.95
#define DEFAULT_CAP	5000
/* every ratio of the table with its CI (NaN without), for plotdata.sh */
#define RATIOS_HEAD	"pair,size_bytes,size,direction,p50,p50_lo,p50_hi," \
			"p99,p99_lo,p99_hi\n"

static const char usage[] =
"Usage: convreport [OPTIONS] RUN_FOLDER\n"
"Write RUN_FOLDER/report.txt (and print it): a convbench run as plain\n"
"text for an email, every line at most 72 columns: setup, median and\n"
"p99 per cell, inplace/destructive ratios with 95% bootstrap CIs, and\n"
"the BPF histograms of the probed kernel functions for both modes.\n"
"\n"
"  -s, --seed=N         bootstrap seed (default 1, convbench's default)\n"
"  -n, --max-samples=N  at most N samples per side in the bootstrap, a\n"
"                       random subset when there are more (default 5000)\n"
"  -q, --quiet          do not print the report, only write it\n"
"  -h, --help           this text\n"
"\n"
"Reads samples.csv (required), summary.json (provenance), trace.csv and\n"
"hyperfine.json when present, and a gmem/ subfolder's samples.csv,\n"
"summary.json and trace.csv (make bench's third column, another boot).\n"
"Also writes RUN_FOLDER/ratios.csv: every ratio with its CI, for plots.\n"
"Exit status: 0 ok, 1 no samples.csv or no samples in it, or the report\n"
"could not be written, 2 bad usage.\n";

/* the functions the series' cost is argued about (bpf/README.md) */
static const char *const hist_funcs[] = {
	"memfile_notifier_invalidate",
	"kvm_faultin_pfn_private",
	"shmem_fallocate",
	NULL,
};

struct rpt_env {
	const char *run;
	uint64_t seed;
	size_t cap;
	bool quiet;
	FILE *ratios;	/* ratios.csv's rows, for the plots */
};

/* ------------------------------------------------------------------ */
/* setup                                                               */

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

static void print_setup(FILE *f, const struct rpt_env *env,
			const struct run_samples *s, const char *json)
{
	char kernel[96] = "?", accel[32] = "?", cpu[128] = "?", qemu[64] = "";
	char series[64] = "", config[64] = "", ver[64] = "", date[48] = "";
	char buf[512], name[256];
	const char *base;
	size_t len;

	run_json_str(json, "kernel_release", kernel, sizeof(kernel));
	run_json_str(json, "accel", accel, sizeof(accel));
	run_json_str(json, "cpu_model", cpu, sizeof(cpu));
	run_json_str(json, "qemu_version", qemu, sizeof(qemu));
	run_json_str(json, "series_sha", series, sizeof(series));
	run_json_str(json, "config_sha", config, sizeof(config));
	run_json_str(json, "convbench_version", ver, sizeof(ver));
	run_json_str(json, "date", date, sizeof(date));

	/* the folder's own name: results/<date>-<kernel>-<hash> */
	snprintf(name, sizeof(name), "%s", env->run);
	len = strlen(name);
	while (len > 1 && name[len - 1] == '/')
		name[--len] = '\0';
	base = strrchr(name, '/');
	base = base ? base + 1 : name;
	text_line(f, "convbench run %s", base);

	/* one line: shorter forms until it fits */
	snprintf(buf, sizeof(buf), "setup: kernel %s, accel %s, CPU %s",
		 kernel, accel, cpu);
	if (strlen(buf) > TEXT_COLS) {
		short_cpu(cpu);
		snprintf(buf, sizeof(buf), "setup: kernel %s, accel %s, CPU %s",
			 kernel, accel, cpu);
	}
	if (strlen(buf) > TEXT_COLS)
		snprintf(buf, sizeof(buf), "setup: %s, %s, %s", kernel, accel,
			 cpu);
	text_line(f, "%s", buf);

	buf[0] = '\0';
	if (qemu[0])
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			 "QEMU %s,", qemu);
	if (series[0])
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			 " series %.12s,", series);
	if (config[0])
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			 " config %.12s,", config);
	if (ver[0])
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			 " convbench %s,", ver);
	if (date[0])
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			 " %s,", date);
	if (buf[0]) {
		buf[strlen(buf) - 1] = '\0';	/* the last comma */
		text_wrap(f, "", "  ", buf);
	}
	if (!s->ncells)
		goto notes;
	snprintf(buf, sizeof(buf), "workload: %s trigger, %s, %u vCPU%s",
		 s->trigger[0] ? s->trigger : "?",
		 !strcmp(s->preserve, "1") ? "preserve" :
		 !strcmp(s->preserve, "0") ? "no-preserve" :
		 s->preserve[0] ? "preserve mixed" : "preserve ?",
		 s->vcpus ? s->vcpus : 1, s->vcpus > 1 ? "s" : "");
	text_line(f, "%s", buf);
notes:
	if (!strcasecmp(accel, "tcg"))
		text_line(f, "note: emulated timings: compare ratios, not absolute us");
	/* more than 1 %: say so, phase splits across clocks are suspect */
	if (s->clock_skew * 100 > s->clock_rows) {
		snprintf(buf, sizeof(buf), "note: in %zu of %zu conversions the "
			 "host handler (host clock) outlasted the guest's whole "
			 "exit round trip (guest clock): the clocks disagree, "
			 "trust totals and ratios over phase splits",
			 s->clock_skew, s->clock_rows);
		text_wrap(f, "", "  ", buf);
	}
	if (!json)
		text_line(f, "note: no summary.json: provenance unknown");
}

/* ------------------------------------------------------------------ */
/* the table                                                           */

static uint64_t mix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * v itself when n <= cap, else a malloc'd random subset of cap samples
 * (partial Fisher-Yates, fixed seed); *out_n is the size used.
 */
static double *capped(const double *v, size_t n, size_t cap, uint64_t seed,
		      size_t *out_n, bool *owned)
{
	double *c, t;
	size_t i, j;

	*owned = false;
	*out_n = n;
	if (n <= cap)
		return (double *)v;
	c = malloc(n * sizeof(*c));
	if (!c)
		return NULL;
	memcpy(c, v, n * sizeof(*c));
	for (i = 0; i < cap; i++) {
		j = i + mix(&seed) % (n - i);
		t = c[i];
		c[i] = c[j];
		c[j] = t;
	}
	*owned = true;
	*out_n = cap;
	return c;
}

struct ratio {
	double p50, p99, lo50, hi50, lo99, hi99;
	bool ok, ci;
};

/* in over de (any two cells), as bench/report.c (seed, seed + 1) */
static void ratio_of(const struct rpt_env *env, const struct run_cell *de,
		     const struct run_cell *in, struct ratio *r, bool *capped_any)
{
	double m_de, m_in, q_de, q_in, *a, *b;
	size_t na, nb;
	bool oa, ob;

	memset(r, 0, sizeof(*r));
	if (!de || !in || !de->n || !in->n ||
	    stats_median(de->total_ns, de->n, &m_de) ||
	    stats_median(in->total_ns, in->n, &m_in) ||
	    stats_percentile(de->total_ns, de->n, 99, &q_de) ||
	    stats_percentile(in->total_ns, in->n, 99, &q_in) ||
	    m_de <= 0 || q_de <= 0)
		return;
	r->p50 = m_in / m_de;
	r->p99 = q_in / q_de;
	r->ok = true;
	if (de->n < 2 || in->n < 2)
		return;
	a = capped(de->total_ns, de->n, env->cap, env->seed, &na, &oa);
	b = capped(in->total_ns, in->n, env->cap, env->seed + 2, &nb, &ob);
	if (a && b &&
	    !stats_bootstrap_ratio_ci(a, na, b, nb, 50, STATS_BOOTSTRAP_REPS,
				      CI_CONF, env->seed, &r->lo50, &r->hi50) &&
	    !stats_bootstrap_ratio_ci(a, na, b, nb, 99, STATS_BOOTSTRAP_REPS,
				      CI_CONF, env->seed + 1, &r->lo99,
				      &r->hi99))
		r->ci = true;
	*capped_any |= oa || ob;
	if (oa)
		free(a);
	if (ob)
		free(b);
}

static void print_cell(FILE *f, const char *size, const char *dir,
		       enum run_mode m, const struct run_cell *c)
{
	double p50 = 0, p99 = 0;
	char a[32], b[32];

	if (!c || !c->n) {
		text_line(f, "%-4s  %-10s  %-11s %7s  %12s %12s", size, dir,
		     run_mode_name[m], "0", "-", "-");
		return;
	}
	stats_median(c->total_ns, c->n, &p50);
	stats_percentile(c->total_ns, c->n, 99, &p99);
	text_line(f, "%-4s  %-10s  %-11s %7zu  %12s %12s", size, dir,
	     run_mode_name[m], c->n, text_us(p50, a, sizeof(a)),
	     text_us(p99, b, sizeof(b)));
}

/* the ratios a table row can have: a over b, when the run has both */
static const struct {
	enum run_mode a, b;
	const char *label;
} pairs[] = {
	{ RUN_INPLACE, RUN_DESTRUCTIVE, "in/de" },
	{ RUN_GMEM, RUN_DESTRUCTIVE, "gm/de" },
	{ RUN_INPLACE, RUN_GMEM, "in/gm" },
};
#define NR_PAIRS	(sizeof(pairs) / sizeof(pairs[0]))

/* "label  p50  p99" and its CI line, or n/a; the numbers to ratios.csv */
static void print_ratio(FILE *f, const struct rpt_env *env, const char *label,
			const struct run_cell *b, const struct run_cell *a,
			bool *capped_any, bool *any)
{
	struct ratio r;
	char x[32], y[32];

	ratio_of(env, b, a, &r, capped_any);
	if (r.ok && env->ratios)
		fprintf(env->ratios, "%s/%s,%llu,%s,%s,%g,%g,%g,%g,%g,%g\n",
			run_mode_name[a->mode], run_mode_name[b->mode],
			(unsigned long long)a->size,
			size_str(a->size, x, sizeof(x)), run_dir_name[a->dir],
			r.p50, r.ci ? r.lo50 : NAN, r.ci ? r.hi50 : NAN, r.p99,
			r.ci ? r.lo99 : NAN, r.ci ? r.hi99 : NAN);
	if (!r.ok) {
		text_line(f, "%-4s  %-10s  %-11s %7s  %12s %12s", "", "", label,
			  "", "n/a", "n/a");
		return;
	}
	*any = true;
	snprintf(x, sizeof(x), "%.3f", r.p50);
	snprintf(y, sizeof(y), "%.3f", r.p99);
	text_line(f, "%-4s  %-10s  %-11s %7s  %12s %12s", "", "", label, "", x,
		  y);
	if (r.ci) {
		snprintf(x, sizeof(x), "%.3f..%.3f", r.lo50, r.hi50);
		snprintf(y, sizeof(y), "%.3f..%.3f", r.lo99, r.hi99);
	} else {
		snprintf(x, sizeof(x), "n/a");
		snprintf(y, sizeof(y), "n/a");
	}
	text_line(f, "%-4s  %-10s  %-11s %7s  %12s %12s", "", "", "  95% CI",
		  "", x, y);
}

static void print_table(FILE *f, const struct rpt_env *env, struct run_samples *s)
{
	uint64_t sizes[RPT_MAX_SIZES];
	bool has[RUN_NR_MODES] = { false };
	bool capped_any = false, any_ratio = false;
	char sz[32], buf[600];
	size_t nsz, i, k;
	int d, m;

	/* a mode the run did not measure at all gets no rows */
	for (i = 0; i < s->ncells; i++)
		has[s->cells[i].mode] = true;
	nsz = run_sizes(s, sizes, RPT_MAX_SIZES);
	fputc('\n', f);
	text_line(f, "Latency per conversion (request to range usable), us");
	fputc('\n', f);
	text_line(f, "%-4s  %-10s  %-11s %7s  %12s %12s", "size", "direction",
	     "mode", "n", "p50 us", "p99 us");
	text_line(f, "%-4s  %-10s  %-11s %7s  %12s %12s", "----", "----------",
	     "-----------", "-------", "------------", "------------");
	for (i = 0; i < nsz; i++) {
		size_str(sizes[i], sz, sizeof(sz));
		for (d = 0; d < RUN_NR_DIRS; d++) {
			struct run_cell *c[RUN_NR_MODES];
			bool first = true, none = true;

			for (m = 0; m < RUN_NR_MODES; m++) {
				c[m] = run_find_cell(s, m, sizes[i], d);
				none &= !c[m];
			}
			if (none)
				continue;
			for (m = 0; m < RUN_NR_MODES; m++) {
				if (!has[m])
					continue;
				print_cell(f, first ? sz : "",
					   first ? run_dir_name[d] : "", m, c[m]);
				first = false;
			}
			for (k = 0; k < NR_PAIRS; k++)
				if (has[pairs[k].a] && has[pairs[k].b])
					print_ratio(f, env, pairs[k].label,
						    c[pairs[k].b], c[pairs[k].a],
						    &capped_any, &any_ratio);
			fputc('\n', f);
		}
	}
	if (!any_ratio) {
		text_wrap(f, "", "", "No inplace/destructive ratio: each size "
		     "and direction needs samples of both modes.");
		return;
	}
	snprintf(buf, sizeof(buf), "in/de: inplace p50 (p99) over destructive "
		 "p50 (p99), below 1 = inplace faster%s. 95%% CI: percentile "
		 "bootstrap, %u resamples, seed %llu",
		 has[RUN_GMEM] ? "; gm/de: gmem over destructive; in/gm: "
		 "inplace over gmem" : "", STATS_BOOTSTRAP_REPS,
		 (unsigned long long)env->seed);
	if (capped_any)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			 ", from a random %zu samples per side where there "
			 "are more", env->cap);
	strncat(buf, ".", sizeof(buf) - strlen(buf) - 1);
	text_wrap(f, "", "", buf);
	if (has[RUN_GMEM] && (has[RUN_DESTRUCTIVE] || has[RUN_INPLACE]))
		text_wrap(f, "", "", "gmem ran in another boot of another "
			  "kernel: its ratios compare kernels and boots as "
			  "well as conversion paths, and their CIs cover "
			  "sampling only (see the note above).");
}

/* ------------------------------------------------------------------ */
/* kernel functions                                                    */

static void print_calls(FILE *f, const char *label,
			const struct run_trace_hist *h)
{
	char a[32];

	if (!h || !h->count)
		text_line(f, "  %s no calls", label);
	else
		text_line(f, "  %s %llu calls, mean %s us", label,
		     (unsigned long long)h->count,
		     text_us(h->sum_ns / h->count, a, sizeof(a)));
}

static void print_func(FILE *f, struct run_trace *t, const char *func)
{
	uint64_t sizes[RPT_MAX_SIZES];
	size_t nsz = 0, i, j;
	const char *why;
	char sz[48], a[32];

	for (i = 0; i < t->nrows; i++) {
		if (strcmp(t->rows[i].probe, func))
			continue;
		for (j = 0; j < nsz && sizes[j] != t->rows[i].size; j++)
			;
		if (j == nsz && nsz < RPT_MAX_SIZES)
			sizes[nsz++] = t->rows[i].size;
	}
	if (!nsz) {
		why = run_trace_missing(t, func);
		fputc('\n', f);
		if (why)
			text_line(f, "%s: not traced (%s)", func, why);
		else
			text_line(f, "%s: no calls recorded", func);
		return;
	}
	/* ascending, "all sizes" (0) first */
	for (i = 1; i < nsz; i++)
		for (j = i; j > 0 && sizes[j - 1] > sizes[j]; j--) {
			uint64_t x = sizes[j];

			sizes[j] = sizes[j - 1];
			sizes[j - 1] = x;
		}
	for (i = 0; i < nsz; i++) {
		struct run_trace_hist *hd, *hi, *hu;
		struct hist empty;

		hd = run_trace_find(t, func, RUN_DESTRUCTIVE, sizes[i]);
		hi = run_trace_find(t, func, RUN_INPLACE, sizes[i]);
		hu = run_trace_find(t, func, RUN_MODE_UNNAMED, sizes[i]);
		hist_init(&empty, CT_HIST_SUB_BITS);
		if (sizes[i])
			snprintf(sz, sizeof(sz), "%s conversions",
				 size_str(sizes[i], a, sizeof(a)));
		else
			snprintf(sz, sizeof(sz), "all sizes");
		if (hd || hi) {
			fputc('\n', f);
			text_line(f, "%s, %s, ns per call", func, sz);
			print_calls(f, "destructive:", hd);
			print_calls(f, "inplace:    ", hi);
			if ((hd && hist_count(&hd->h)) ||
			    (hi && hist_count(&hi->h)))
				hist_print_log2_pair(f, hd ? &hd->h : &empty,
						     hi ? &hi->h : &empty,
						     "destructive", "inplace",
						     "nsecs");
		}
		if (hu) {
			fputc('\n', f);
			text_line(f, "%s, %s, ns per call,", func, sz);
			text_line(f, "both modes together (the trace's contexts name "
			     "no mode)");
			print_calls(f, "all:", hu);
			text_hist(f, &hu->h);
		}
	}
}

static void print_trace(FILE *f, const char *run)
{
	char path[4096], err[512];
	struct run_trace t;
	const char *const *fn;
	int r;

	fputc('\n', f);
	text_line(f, "Kernel functions per call (convtrace BPF histograms)");
	snprintf(path, sizeof(path), "%s/trace.csv", run);
	r = run_read_trace(path, hist_funcs, &t, err, sizeof(err));
	if (r == -ENOENT) {
		text_line(f, "no trace.csv (tracing unavailable): histograms skipped");
		return;
	}
	if (r) {
		text_wrap(f, "", "  ", err);
		return;
	}
	text_wrap(f, "", "", "Stars are scaled per column: compare shapes, "
	     "and read the counts for volume.");
	for (fn = hist_funcs; *fn; fn++)
		print_func(f, &t, *fn);
	run_free_trace(&t);
}

static void print_hyperfine(FILE *f, const char *run)
{
	struct run_hyperfine h[8];
	char path[4096];
	size_t n, i;

	snprintf(path, sizeof(path), "%s/hyperfine.json", run);
	n = run_read_hyperfine(path, h, 8);
	if (!n)
		return;
	fputc('\n', f);
	text_line(f, "Whole convbench runs (hyperfine), wall time:");
	for (i = 0; i < n; i++) {
		text_wrap(f, "  $ ", "      ", h[i].command);
		text_line(f, "    mean %.3f s +- %.3f s, %u runs", h[i].mean_s,
		     h[i].stddev_s, h[i].runs);
	}
}

/* ------------------------------------------------------------------ */

static int parse_args(int argc, char **argv, struct rpt_env *env)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "max-samples", required_argument, NULL, 'n' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	unsigned long long v;
	struct stat st;
	char *end;
	int c;

	env->seed = 1;
	env->cap = DEFAULT_CAP;
	while ((c = getopt_long(argc, argv, "s:n:qh", opts, NULL)) != -1) {
		switch (c) {
		case 's':
		case 'n':
			errno = 0;
			v = strtoull(optarg, &end, 10);
			if (errno || *end || !*optarg || *optarg == '-' ||
			    (c == 'n' && (v < 2 || v > UINT32_MAX))) {
				fprintf(stderr, "convreport: --%s=%s: expected "
					"%s\n", c == 's' ? "seed" : "max-samples",
					optarg, c == 's' ? "a whole number" :
					"a whole number from 2");
				return 2;
			}
			if (c == 's')
				env->seed = v;
			else
				env->cap = v;
			break;
		case 'q':
			env->quiet = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return -1;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "convreport: expected one RUN_FOLDER\n%s",
			usage);
		return 2;
	}
	env->run = argv[optind];
	if (stat(env->run, &st) || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "convreport: %s: not a folder\n", env->run);
		return 2;
	}
	return 0;
}

/* RUN/NAME (report.txt, ratios.csv), replaced whole or not at all */
static int write_report(const char *run, const char *name, const char *text,
			size_t len)
{
	struct atomic_file af;
	char path[4096];
	int err;

	snprintf(path, sizeof(path), "%s/%s", run, name);
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

int main(int argc, char **argv)
{
	struct rpt_env env = { 0 };
	struct run_samples s;
	char path[4096], err[512], *json, *text = NULL, *ratios = NULL;
	size_t len = 0, ratios_len = 0;
	FILE *f;
	int r;

	r = parse_args(argc, argv, &env);
	if (r)
		return r < 0 ? 0 : r;
	snprintf(path, sizeof(path), "%s/samples.csv", env.run);
	r = run_read_samples(path, &s, err, sizeof(err));
	/* make bench's third column, from its own boot: RUN/gmem/ */
	if (!r || r == -ENOENT) {
		int g = threeway_add_samples(env.run, &s, !r, err, sizeof(err));

		r = g ? g : r == -ENOENT && !s.rows ? -ENOENT : 0;
	}
	if (r) {
		fprintf(stderr, "convreport: %s\n", r == -ENOENT ?
			"no samples.csv in the run folder" : err);
		return 1;
	}
	if (s.bad_rows)
		fprintf(stderr, "convreport: %s: %zu rows skipped (not "
			"mode,size,direction,...,total_ns)\n", path,
			s.bad_rows);
	snprintf(path, sizeof(path), "%s/summary.json", env.run);
	json = run_slurp(path);

	f = open_memstream(&text, &len);
	env.ratios = open_memstream(&ratios, &ratios_len);
	if (!f || !env.ratios) {
		perror("convreport");
		return 1;
	}
	fputs(RATIOS_HEAD, env.ratios);
	print_setup(f, &env, &s, json);
	threeway_setup(f, env.run);
	if (s.ncells) {
		print_table(f, &env, &s);
		print_trace(f, env.run);
		threeway_functions(f, env.run, &s);
		print_hyperfine(f, env.run);
	} else {
		fputc('\n', f);
		text_line(f, "no conversions recorded (samples.csv has no samples)");
	}
	if (fclose(f)) {
		perror("convreport");
		return 1;
	}
	r = write_report(env.run, "report.txt", text, len);
	if (fclose(env.ratios))
		r = -ENOMEM;
	else if (ratios_len > strlen(RATIOS_HEAD) &&
		 write_report(env.run, "ratios.csv", ratios, ratios_len))
		r = -EIO;
	free(ratios);
	if (!env.quiet)
		fwrite(text, 1, len, stdout);
	free(text);
	free(json);
	r = r || !s.ncells;
	run_free_samples(&s);
	return r ? 1 : 0;
}
