// SPDX-License-Identifier: GPL-2.0
/*
 * convreport's sections after the latency table: the work counts, the
 * probes' overhead, the kernel functions' histograms, hyperfine's
 * whole-run timings. Numbers from summary.json (and trace.csv's
 * buckets), every line within TEXT_COLS.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <math.h>
#include <string.h>

#include "sections.h"
#include "text.h"
#include "units.h"

/* a count as "%.4g", with '*' when the boots did not count the same */
static const char *count_str(const struct jv *x, double scale, char *buf,
			     size_t len)
{
	double v = jv_num(jv_get(x, "per_conversion"), NAN);
	const struct jv *exact = jv_get(x, "exact");

	if (isnan(v)) {
		snprintf(buf, len, "-");
		return buf;
	}
	snprintf(buf, len, "%.4g%s", v / scale,
		 exact && !jv_bool(exact, true) ? "*" : "");
	return buf;
}

#define WORK_FMT "  %-11s%6s%5s%9s%7s%13s%8s%4s%7s"

void print_work(FILE *f, const struct run *r, const struct run *g)
{
	char a[8][32], pages[112], maps[72], sz[32];
	bool header = false;
	size_t i;
	int d, m;

	for (i = 0; i < r->nsizes; i++) {
		for (d = 0; d < DIR_NR; d++) {
			bool title = false;

			for (m = 0; m < MODE_NR; m++) {
				const struct jv *w = jv_get(run_cell_of(r, g,
						m, r->sizes[i], d), "work");

				if (!w || w->type != JV_OBJ)
					continue;
				if (!header) {
					fputc('\n', f);
					text_wrap(f, "", "", "Work per conversion, "
						  "counted (convbench --counts "
						  "in each boot; the same on any "
						  "machine): VM exits but timer "
						  "interrupts', NPT faults, leaf "
						  "mappings 4K/2M installed, host "
						  "page faults, user pages "
						  "allocated/freed/zeroed, KiB the "
						  "guest copied, TLB flush "
						  "requests, IPIs; * where the boots "
						  "did not all count the same.");
					fputc('\n', f);
					text_line(f, WORK_FMT, "", "exits", "npf",
						  "4K/2M", "hostpf", "a/f/z pages",
						  "copyKiB", "tlb", "ipi");
					header = true;
				}
				if (!title) {
					text_line(f, "%s %s",
						  size_str(r->sizes[i], sz, sizeof(sz)),
						  conv_dir_names[d]);
					title = true;
				}
				count_str(jv_get(w, "spte_4k"), 1, a[0], 32);
				count_str(jv_get(w, "spte_2m"), 1, a[1], 32);
				snprintf(maps, sizeof(maps), "%s/%s", a[0], a[1]);
				count_str(jv_get(w, "pages_allocated"), 1, a[2], 32);
				count_str(jv_get(w, "pages_freed"), 1, a[3], 32);
				count_str(jv_get(w, "pages_zeroed"), 1, a[4], 32);
				snprintf(pages, sizeof(pages), "%s/%s/%s", a[2],
					 a[3], a[4]);
				text_line(f, WORK_FMT, conv_mode_names[m],
					  count_str(jv_get(w, "exits"), 1, a[5], 32),
					  count_str(jv_get(w, "npt_faults"), 1, a[6], 32),
					  maps,
					  count_str(jv_get(w, "host_faults"), 1, a[7], 32),
					  pages,
					  count_str(jv_get(w, "bytes_copied"), 1024,
						    a[0], 32),
					  count_str(jv_get(w, "tlb_flush_requests"),
						    1, a[1], 32),
					  count_str(jv_get(w, "ipis"), 1, a[2], 32));
			}
		}
	}
}

/* "12.3" us of a summary's ns, or "-" */
static const char *us_or_dash(double ns, char *buf, size_t len)
{
	if (isnan(ns))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f", ns / 1000);
	return buf;
}

static void print_fixed_ratio(FILE *f, const struct jv *q, const char *label)
{
	char a[48], b[48];

	if (!q || isnan(jv_num(jv_get(jv_get(q, "p50_exit_normalized"),
				     "ratio"), NAN)))
		return;
	text_line(f, "    %s  raw %-22s less fixed %s", label,
		  run_ratio_str(jv_get(q, "p50"), a, sizeof(a)),
		  run_ratio_str(jv_get(q, "p50_exit_normalized"), b, sizeof(b)));
}

#define FIXED_FMT "  %-11s%10s%10s%9s%10s%10s"

void print_fixed(FILE *f, const struct run *r, const struct run *g)
{
	char a[5][32], sz[32];
	bool header = false;
	size_t i;
	int d, m;

	for (i = 0; i < r->nsizes; i++) {
		for (d = 0; d < DIR_NR; d++) {
			bool title = false;

			for (m = 0; m < MODE_NR; m++) {
				const struct jv *c = run_cell_of(r, g, m,
							r->sizes[i], d);
				const struct jv *x = jv_get(c, "fixed_costs");

				/* runs before the calibration: none */
				if (!jv_num(jv_get(jv_get(x, "null_exit_ns"),
						   "n"), 0) &&
				    !jv_num(jv_get(jv_get(x, "npt_fault_ns"),
						   "n"), 0))
					continue;
				if (!header) {
					fputc('\n', f);
					text_wrap(f, "", "", "The emulator's fixed "
						  "costs, us, measured in every VM "
						  "before its first conversion: a null "
						  "exit to userspace (the conversion "
						  "hypercall answered without work) "
						  "and an NPT fault on a page the host "
						  "has allocated. fixed: a conversion's "
						  "userspace exits times the null exit "
						  "plus its other NPT faults (the work "
						  "table's) times the fault, round by "
						  "round; p50-fixed: the latency with "
						  "them taken out. Under TCG they are "
						  "emulated world switches that hardware "
						  "does in about a microsecond; taking "
						  "them out is an estimate (a fault "
						  "inside a conversion may cost more or "
						  "less than on an idle page, and the "
						  "exits' own cache effects stay in), "
						  "not a hardware figure: the work table "
						  "is what transfers exactly.");
					fputc('\n', f);
					text_line(f, FIXED_FMT, "", "null exit",
						  "NPT fault", "fixed", "p50",
						  "p50-fixed");
					header = true;
				}
				if (!title) {
					text_line(f, "%s %s",
						  size_str(r->sizes[i], sz, sizeof(sz)),
						  conv_dir_names[d]);
					title = true;
				}
				text_line(f, FIXED_FMT, conv_mode_names[m],
					  us_or_dash(jv_num(jv_get(jv_get(x,
						"null_exit_ns"), "p50"), NAN),
						a[0], 32),
					  us_or_dash(jv_num(jv_get(jv_get(x,
						"npt_fault_ns"), "p50"), NAN),
						a[1], 32),
					  us_or_dash(jv_num(jv_get(x,
						"per_conversion_ns"), NAN), a[2], 32),
					  us_or_dash(jv_num(jv_get(jv_get(c,
						"total_ns"), "p50"), NAN), a[3], 32),
					  us_or_dash(jv_num(jv_get(x,
						"p50_less_fixed_ns"), NAN), a[4], 32));
			}
			if (!title)
				continue;
			print_fixed_ratio(f, run_ratio(r, r->sizes[i], d),
					  "in/de");
			print_fixed_ratio(f, run_gmem_ratio(r,
					  "gmem_over_destructive", r->sizes[i],
					  d), "gm/de");
			print_fixed_ratio(f, run_gmem_ratio(r,
					  "inplace_over_gmem", r->sizes[i], d),
					  "in/gm");
		}
	}
}

/* the band of spectrum entry x: "118..131", or "-" */
static const char *band_str(const struct jv *x, char *buf, size_t len)
{
	double lo = jv_num(jv_get(x, "band_lo"), NAN);
	double hi = jv_num(jv_get(x, "band_hi"), NAN);
	char a[32], b[32];

	if (isnan(lo) || isnan(hi))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%s..%s", text_us(lo, a, sizeof(a)),
			 text_us(hi, b, sizeof(b)));
	return buf;
}

void print_tails(FILE *f, const struct run *r, const struct run *g)
{
	char sz[32], v[4][32], b[4][48], hd[4][16];
	bool header = false;
	size_t i, k;
	int d, m;

	for (i = 0; i < r->nsizes; i++) {
		for (d = 0; d < DIR_NR; d++) {
			bool title = false;

			for (m = 0; m < MODE_NR; m++) {
				const struct jv *sp = jv_get(jv_get(run_cell_of(r,
						g, m, r->sizes[i], d), "spectrum"),
						"percentiles");

				if (jv_len(sp) != 4)
					continue;
				if (!header) {
					fputc('\n', f);
					text_wrap(f, "", "", "Tails, us: the pooled "
						  "percentiles and below each its 95% "
						  "band from resampling whole boots "
						  "(1000 pools of the rounds drawn with "
						  "replacement); [samples beyond]. A "
						  "percentile with few samples beyond "
						  "it has a wide band: read the band, "
						  "not the value.");
					header = true;
				}
				if (!title) {
					for (k = 0; k < 4; k++)
						snprintf(hd[k], sizeof(hd[k]), "%s",
							 jv_str(jv_get(jv_at(sp, k),
								"pct"), "?"));
					fputc('\n', f);
					text_line(f, "%-4s %-11s%14s%14s%14s%14s",
						  size_str(r->sizes[i], sz, sizeof(sz)),
						  conv_dir_names[d], hd[0], hd[1],
						  hd[2], hd[3]);
					title = true;
				}
				for (k = 0; k < 4; k++) {
					const struct jv *x = jv_at(sp, k);
					char us[32];

					snprintf(v[k], sizeof(v[k]), "%s [%.0f]",
						 text_us(jv_num(jv_get(x, "ns"), NAN),
							 us, sizeof(us)),
						 jv_num(jv_get(x, "beyond"), 0));
					band_str(x, b[k], sizeof(b[k]));
				}
				text_line(f, "  %-14s%14s%14s%14s%14s",
					  conv_mode_names[m], v[0], v[1], v[2], v[3]);
				text_line(f, "  %-14s%14s%14s%14s%14s", "", b[0],
					  b[1], b[2], b[3]);
			}
		}
	}
}

/* an overhead cell's "mode size direction", and its CI of two keys in % */
static const char *over_name(const struct jv *x, char *buf, size_t len)
{
	snprintf(buf, len, "%s %s %s", jv_str(jv_get(x, "mode"), "?"),
		 jv_str(jv_get(x, "size"), "?"),
		 jv_str(jv_get(x, "direction"), "?"));
	return buf;
}

static const char *over_ci(const struct jv *x, const char *lo_key,
			   const char *hi_key, char *buf, size_t len)
{
	double lo = jv_num(jv_get(x, lo_key), NAN);

	if (isnan(lo))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%+.1f..%+.1f%%", lo,
			 jv_num(jv_get(x, hi_key), NAN));
	return buf;
}

/*
 * The traced p50 corrected by the probes' cost as each boot calibrated
 * it (bench/report/probe_cal.h), against the untraced p50
 */
static void print_overhead_corrected(FILE *f, const struct jv *cells)
{
	char name[64], ci[40];
	unsigned int n = 0, within = 0;
	size_t i;

	for (i = 0; i < jv_len(cells); i++)
		n += jv_num(jv_get(jv_at(cells, i), "corrected_rounds"), 0) > 0;
	if (!n)
		return;
	fputc('\n', f);
	text_wrap(f, "", "", "Corrected: each boot calibrates the probes' "
		  "cost per hit before its first cell (fallocate calls on a "
		  "shmem page, shmem_fallocate traced; traced ns per call "
		  "less untraced, over hits per call). Per boot, the traced "
		  "p50 less hits per conversion x that cost, over the "
		  "untraced p50: what the correction leaves (the check: "
		  "within 5%).");
	fputc('\n', f);
	text_line(f, "%-26s %7s %9s %-17s %s", "cell", "ns/hit", "residual",
		  "95% CI", "within 5%");
	for (i = 0; i < jv_len(cells); i++) {
		const struct jv *x = jv_at(cells, i);
		bool w = jv_bool(jv_get(x, "corrected_within_5pct"), false);

		if (!(jv_num(jv_get(x, "corrected_rounds"), 0) > 0))
			continue;
		over_name(x, name, sizeof(name));
		over_ci(x, "corrected_pct_ci95_lo", "corrected_pct_ci95_hi", ci,
			sizeof(ci));
		text_line(f, "%-26s %7.0f %+8.1f%% %-17s %s", name,
			  jv_num(jv_get(x, "probe_ns_per_hit"), NAN),
			  jv_num(jv_get(x, "corrected_pct"), NAN), ci,
			  w ? "yes" : "no");
		within += w;
	}
	text_line(f, "%u of %u cells within 5%% once corrected", within, n);
}

void print_overhead(FILE *f, const struct run *r)
{
	const struct jv *o = jv_get(r->sum, "overhead");
	const struct jv *cells = jv_get(o, "cells");
	char name[64], ci[40], us[32];
	size_t i;

	if (!jv_len(cells))
		return;
	fputc('\n', f);
	text_wrap(f, "", "", "BPF probe overhead: a traced and an untraced "
		  "round in each boot (which first alternates); traced p50 "
		  "over untraced p50, geometric mean and 95% t interval over "
		  "boots; hits: BPF program runs per conversion.");
	fputc('\n', f);
	text_line(f, "%-26s %10s %8s %-17s %7s", "cell", "p50 us", "overhead",
		  "95% CI", "hits");
	for (i = 0; i < jv_len(cells); i++) {
		const struct jv *x = jv_at(cells, i);

		over_name(x, name, sizeof(name));
		over_ci(x, "overhead_pct_ci95_lo", "overhead_pct_ci95_hi", ci,
			sizeof(ci));
		text_line(f, "%-26s %10s %+7.1f%% %-17s %7.1f", name,
			  text_us(jv_num(jv_get(x, "p50_untraced_ns"), NAN), us,
				  sizeof(us)),
			  jv_num(jv_get(x, "overhead_pct"), NAN), ci,
			  jv_num(jv_get(x, "hits_per_conversion"), NAN));
	}
	text_wrap(f, "", "", "Goal for the default probe set under TCG: at "
		  "most 5% at 2M and 15% at 4K.");
	print_overhead_corrected(f, cells);
}

/* the default probes: the three the cost is argued about, the in-place entry */
static const char *const trace_funcs[] = {
	"memfile_notifier_invalidate",
	"kvm_faultin_pfn_private",
	"shmem_fallocate",
	"shmem_convert_range",
	NULL,
};

/* calls and exclusive ns of probe in (mode, size) conversions */
void trace_totals(const struct run *r, const char *probe, enum conv_mode m,
		  uint64_t size, double *calls, double *ns, double *conv)
{
	const struct jv *tot = jv_get(jv_get(r->sum, "trace"), "totals");
	char want[2][96], sz[32];
	size_t i;
	int d;

	*calls = *ns = *conv = 0;
	size_str(size, sz, sizeof(sz));
	for (d = 0; d < DIR_NR; d++)
		snprintf(want[d], sizeof(want[d]), "%s %s %s",
			 conv_mode_names[m], sz, conv_dir_names[d]);
	for (i = 0; i < jv_len(tot); i++) {
		const struct jv *x = jv_at(tot, i);
		const char *ctx = jv_str(jv_get(x, "context"), "");

		if (strcmp(jv_str(jv_get(x, "probe"), ""), probe) ||
		    (strcmp(ctx, want[0]) && strcmp(ctx, want[1])))
			continue;
		*calls += jv_num(jv_get(x, "calls"), 0);
		*ns += jv_num(jv_get(x, "exclusive_ns"), 0);
		*conv += jv_num(jv_get(x, "conversions"), 0);
	}
}

static void print_calls(FILE *f, const struct run *r, const char *probe,
			enum conv_mode m, uint64_t size)
{
	double calls, ns, conv;
	char us[32];

	trace_totals(r, probe, m, size, &calls, &ns, &conv);
	if (!calls)
		text_line(f, "  %-12s no calls", conv_mode_names[m]);
	else
		text_line(f, "  %-12s %.4g calls per conversion, %s us per call",
			  conv_mode_names[m], conv ? calls / conv : NAN,
			  text_us(ns / calls, us, sizeof(us)));
}

/* why probe was not traced, or NULL */
const char *not_traced(const struct run *r, const char *probe)
{
	const struct jv *p = jv_get(jv_get(r->sum, "trace"), "probes");
	size_t i;

	for (i = 0; i < jv_len(p); i++)
		if (!strcmp(jv_str(jv_get(jv_at(p, i), "probe"), ""), probe))
			return jv_str(jv_get(jv_at(p, i), "not_traced_why"),
				      NULL);
	return "not in the probe set";
}

void print_trace(FILE *f, const struct run *r)
{
	const char *const *fn;
	struct run_trace t;
	char err[512], sz[32];
	struct hist empty;
	size_t i;

	if (!jv_get(r->sum, "trace"))
		return;
	fputc('\n', f);
	text_line(f, "Kernel functions per call (convtrace, recorded conversions)");
	if (run_read_trace(r->dir, &t, err, sizeof(err))) {
		text_wrap(f, "", "  ", err);
		return;
	}
	text_wrap(f, "", "", "Exclusive of nested probed calls (shmem_fallocate "
		  "and shmem_convert_range call memfile_notifier_invalidate); "
		  "a size's to-shared and to-private conversions together. "
		  "Stars are scaled per column: compare shapes, read the counts "
		  "for volume.");
	hist_init(&empty, TRACE_HIST_SUB_BITS);
	for (fn = trace_funcs; *fn; fn++) {
		const char *why = not_traced(r, *fn);

		if (why) {
			fputc('\n', f);
			text_wrap(f, "", "  ", *fn);
			text_wrap(f, "  not traced: ", "    ", why);
			continue;
		}
		for (i = 0; i < r->nsizes; i++) {
			struct run_trace_hist *hd, *hi;

			hd = run_trace_find(&t, *fn, MODE_DESTRUCTIVE, r->sizes[i]);
			hi = run_trace_find(&t, *fn, MODE_INPLACE, r->sizes[i]);
			fputc('\n', f);
			text_line(f, "%s, %s conversions", *fn,
				  size_str(r->sizes[i], sz, sizeof(sz)));
			print_calls(f, r, *fn, MODE_DESTRUCTIVE, r->sizes[i]);
			print_calls(f, r, *fn, MODE_INPLACE, r->sizes[i]);
			if ((hd && hist_count(&hd->h)) || (hi && hist_count(&hi->h)))
				hist_print_log2_pair(f, hd ? &hd->h : &empty,
						     hi ? &hi->h : &empty,
						     "destructive", "inplace",
						     "nsecs");
		}
	}
	run_free_trace(&t);
}

void print_hyperfine(FILE *f, const struct run *r)
{
	const struct jv *res;
	struct jv *h;
	char path[4096], err[256];
	size_t i;

	snprintf(path, sizeof(path), "%s/hyperfine.json", r->dir);
	h = jsonr_load(path, err, sizeof(err));
	res = jv_get(h, "results");
	if (jv_len(res)) {
		fputc('\n', f);
		text_line(f, "Whole convbench runs (hyperfine), wall time:");
	}
	for (i = 0; i < jv_len(res); i++) {
		const struct jv *x = jv_at(res, i);

		text_wrap(f, "  $ ", "      ", jv_str(jv_get(x, "command"), "?"));
		text_line(f, "    mean %.3f s +- %.3f s, %zu runs",
			  jv_num(jv_get(x, "mean"), NAN),
			  jv_num(jv_get(x, "stddev"), NAN),
			  jv_len(jv_get(x, "times")));
	}
	jsonr_free(h);
}
