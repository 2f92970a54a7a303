// SPDX-License-Identifier: GPL-2.0
/*
 * The report's churn sections: make bench's churn boots (RUN/churn/ and,
 * for the 6.12 kernel, RUN/gmem/churn/; RUN/churn-merge/: in place with
 * the merge back on), as churn.json has them
 * (bench/report/churn_report.c): per mode the 2M coverage at the start
 * and in steady state, THP events per 1000 conversions, and each size
 * class's p50 at the start and in steady state, with 95% intervals over
 * rounds (a fresh VM each); and their split events (RUN/split/,
 * RUN/gmem/split/, RUN/split-merge/): p50 and work per event.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sections.h"
#include "text.h"

/* "12.3%" or "12.3% (10.1..14.5)" of an over-rounds object, x 100 */
static const char *pct_ci(const struct jv *x, char *buf, size_t len)
{
	double m = jv_num(jv_get(x, "mean"), NAN);
	double lo = jv_num(jv_get(x, "ci95_lo"), NAN);
	double hi = jv_num(jv_get(x, "ci95_hi"), NAN);

	if (isnan(m))
		snprintf(buf, len, "-");
	else if (isnan(lo) || isnan(hi))
		snprintf(buf, len, "%.1f%%", 100 * m);
	else
		snprintf(buf, len, "%.1f%% (%.1f..%.1f)", 100 * m, 100 * lo,
			 100 * hi);
	return buf;
}

/* a p50 over rounds in us, with its interval: "163 (150..171)" */
static const char *us_ci(const struct jv *x, char *buf, size_t len)
{
	double m = jv_num(jv_get(x, "geomean"), NAN);
	double lo = jv_num(jv_get(x, "ci95_lo"), NAN);
	double hi = jv_num(jv_get(x, "ci95_hi"), NAN);
	char a[32], b[32], c[32];

	if (isnan(m))
		snprintf(buf, len, "-");
	else if (isnan(lo) || isnan(hi))
		snprintf(buf, len, "%s", text_us(m, a, sizeof(a)));
	else
		snprintf(buf, len, "%s (%s..%s)", text_us(m, a, sizeof(a)),
			 text_us(lo, b, sizeof(b)), text_us(hi, c, sizeof(c)));
	return buf;
}

static void print_one(FILE *f, const struct jv *ch, bool head)
{
	const struct jv *mix = jv_get(ch, "mix"), *modes = jv_get(ch, "modes");
	char line[768], a[64], b[64];
	size_t i, k, len = 0;

	if (head) {
		for (k = 0; k < jv_len(mix) && len < sizeof(line); k++)
			len += snprintf(line + len, sizeof(line) - len, "%s%s:%.0f",
					k ? "," : "", jv_str(jv_get(jv_at(mix, k), "size"), "?"),
					jv_num(jv_get(jv_at(mix, k), "weight"), 0));
		snprintf(a, sizeof(a), "%.0fM", jv_num(jv_get(ch, "range_bytes"), 0) / (1 << 20));
		fprintf(f, "\n");
		text_line(f, "Huge pages under conversion churn (--workload=churn):");
		snprintf(line + len, sizeof(line) - len,
			 " mix; %s per vCPU, %.0f conversions, seed %.0f. Start:"
			 " after the range is written private, and the first"
			 " %.0f conversions; steady: the second half. 2M"
			 " coverage: KVM's 2M entries over the range. 95%%"
			 " intervals over rounds (a fresh VM each).", a,
			 jv_num(jv_get(ch, "ops"), 0), jv_num(jv_get(ch, "seed"), 0),
			 jv_num(jv_get(ch, "interval"), 0));
		text_wrap(f, "  ", "  ", line);
		text_line(f, "  %-13s %-27s %s", "", "2M coverage",
			  "per 1000 conversions");
		text_line(f, "  %-13s %6s %-20s %5s %5s %5s %5s", "mode", "start",
			  "steady (95% CI)", "split", "merge", "alloc", "flush");
	}
	for (i = 0; i < jv_len(modes); i++) {
		const struct jv *m = jv_at(modes, i);

		snprintf(a, sizeof(a), "%.1f%%", 100 * jv_num(jv_get(jv_get(m,
			 "coverage_2m_start"), "mean"), NAN));
		text_line(f, "  %-13s %6s %-20s %5.1f %5.1f %5.1f %5.1f",
			  jv_str(jv_get(m, "mode"), "?"), a,
			  pct_ci(jv_get(m, "coverage_2m_steady"), b, sizeof(b)),
			  jv_num(jv_get(jv_get(m, "thp_splits_per_1000"), "mean"), NAN),
			  jv_num(jv_get(jv_get(m, "thp_merges_per_1000"), "mean"), 0),
			  jv_num(jv_get(jv_get(m, "thp_allocs_per_1000"), "mean"), NAN),
			  jv_num(jv_get(jv_get(m, "tlb_flushes_per_1000"), "mean"), NAN));
	}
}

/* each mode's p50 (p99: its p99) per class, start and steady */
static void print_p50(FILE *f, const struct jv *ch, bool p99)
{
	const struct jv *modes = jv_get(ch, "modes");
	char a[64], b[64];
	size_t i, k;

	for (i = 0; i < jv_len(modes); i++) {
		const struct jv *m = jv_at(modes, i), *p = jv_get(m, "p50");

		for (k = 0; k < jv_len(p); k++) {
			const struct jv *x = jv_at(p, k);

			text_line(f, "  %-13s %-4s %-25s %s",
				  k ? "" : jv_str(jv_get(m, "mode"), "?"),
				  jv_str(jv_get(x, "size"), "?"),
				  us_ci(jv_get(x, p99 ? "start_p99_ns" : "start_ns"), a, sizeof(a)),
				  us_ci(jv_get(x, p99 ? "steady_p99_ns" : "steady_ns"), b, sizeof(b)));
		}
	}
}

/*
 * WHAT's churn.json of both kernels of a make bench run (RUN/WHAT and
 * RUN/gmem/WHAT; a gmem run alone has its own at RUN/WHAT), and the
 * in-place merge back's (RUN/WHAT-merge: churn and split have one): x[i]
 * its member KEY, or NULL; how many there are. Free j[] with both_free().
 */
#define NLOAD	3

static unsigned int both_load(const struct run *r, const char *what,
			      const char *key, struct jv *j[NLOAD],
			      const struct jv *x[NLOAD])
{
	static const char *const fmt[NLOAD] = {
		"%.4000s/%s/churn.json", "%.4000s/gmem/%s/churn.json",
		"%.4000s/%s-merge/churn.json",
	};
	char path[4200], err[256];
	unsigned int i, n = 0;

	for (i = 0; i < NLOAD; i++) {
		snprintf(path, sizeof(path), fmt[i], r->dir, what);
		j[i] = jsonr_load(path, err, sizeof(err));
		x[i] = jv_get(j[i], key);
		n += x[i] != NULL;
	}
	return n;
}

/* the order they print in: the 6.1 kernel's, its merge back's, gmem's */
static const unsigned int print_order[NLOAD] = { 0, 2, 1 };

static void both_free(struct jv *j[NLOAD])
{
	unsigned int i;

	for (i = 0; i < NLOAD; i++)
		jsonr_free(j[i]);
}

/* does any loaded churn.json hold p99s (runs before them do not)? */
static bool has_p99(const struct jv *const x[NLOAD])
{
	unsigned int i;

	for (i = 0; i < NLOAD; i++) {
		const struct jv *m = jv_at(jv_get(x[i], "modes"), 0);

		if (jv_get(jv_at(jv_get(m, "p50"), 0), "steady_p99_ns"))
			return true;
	}
	return false;
}

void print_churn(FILE *f, const struct run *r)
{
	const struct jv *x[NLOAD];
	struct jv *j[NLOAD];
	unsigned int i, n = 0;

	if (both_load(r, "churn", "churn", j, x)) {
		for (i = 0; i < NLOAD; i++)
			if (x[print_order[i]])
				print_one(f, x[print_order[i]], !n++);
		text_line(f, "  %-18s %-25s %s", "p50, us", "start (95% CI)",
			  "steady (95% CI)");
		for (i = 0; i < NLOAD; i++)
			if (x[print_order[i]])
				print_p50(f, x[print_order[i]], false);
		if (has_p99(x)) {
			text_line(f, "  %-18s %-25s %s", "p99, us",
				  "start (95% CI)", "steady (95% CI)");
			for (i = 0; i < NLOAD; i++)
				if (x[print_order[i]])
					print_p50(f, x[print_order[i]], true);
		}
	}
	both_free(j);
}

/* the split events of one kernel's churn.json */
static void print_events(FILE *f, const struct jv *sp, char *nowhole,
			 size_t len)
{
	const struct jv *ev = jv_get(sp, "events");
	const char *last = "";
	char a[64], sm[32];
	size_t i;

	for (i = 0; i < jv_len(ev); i++) {
		const struct jv *x = jv_at(ev, i), *w = jv_get(x, "work_median");
		const char *mode = jv_str(jv_get(x, "mode"), "?");

		snprintf(sm, sizeof(sm), "%.0f/%.0f",
			 jv_num(jv_get(w, "thp_splits"), NAN),
			 jv_num(jv_get(w, "thp_merges"), 0));
		text_line(f, "  %-13s %-7s %-21s %4.0f %+4.0f %+4.0f %5s %5.0f",
			  strcmp(mode, last) ? mode : "",
			  jv_str(jv_get(x, "kind"), "?"),
			  us_ci(jv_get(x, "p50_ns"), a, sizeof(a)),
			  jv_num(jv_get(w, "npt_faults"), NAN),
			  jv_num(jv_get(w, "pages_2m_delta"), NAN),
			  jv_num(jv_get(w, "pages_4k_delta"), NAN), sm,
			  jv_num(jv_get(w, "tlb_flush_requests"), NAN));
		if (!jv_bool(jv_get(x, "counted_only_after_whole_2m"), true) &&
		    strcmp(mode, last) && strlen(nowhole) + strlen(mode) + 2 < len)
			strcat(strcat(nowhole, *nowhole ? ", " : ""), mode);
		last = mode;
	}
}

void print_split(FILE *f, const struct run *r)
{
	char nowhole[128] = "", line[512];
	const struct jv *x[NLOAD];
	struct jv *j[NLOAD];
	unsigned int i;

	if (both_load(r, "split", "split", j, x)) {
		const struct jv *sp = x[0] ? x[0] : x[1];

		fprintf(f, "\n");
		text_line(f, "Split and merge as events (--workload=split):");
		snprintf(line, sizeof(line), "a %.0fM range punched, allocated "
			 "again and written (whole, huge where the kernel can), "
			 "then a %s piece converted to shared (split), the rest "
			 "of the range touched (rest: the faults the split "
			 "leaves) and the piece converted back (uniform). p50 "
			 "with 95%% intervals over rounds; work per event "
			 "(medians): NPT faults, KVM's 2M and 4K entries, THP "
			 "splits and merges back (sp/mg; merges in place with "
			 "shmem.convert_merge), TLB flush requests.",
			 jv_num(jv_get(sp, "range_bytes"), 0) / (1 << 20),
			 jv_str(jv_get(sp, "piece"), "?"));
		text_wrap(f, "  ", "  ", line);
		text_line(f, "  %-13s %-7s %-21s %4s %4s %4s %5s %5s", "mode",
			  "event", "p50 us (95% CI)", "NPT", "2M", "4K",
			  "sp/mg", "flush");
	}
	for (i = 0; i < NLOAD; i++)
		if (x[print_order[i]])
			print_events(f, x[print_order[i]], nowhole,
				     sizeof(nowhole));
	both_free(j);
	if (*nowhole) {
		snprintf(line, sizeof(line), "%s: no whole 2M mapping before "
			 "its events (4K throughout): every event counted.",
			 nowhole);
		text_wrap(f, "  ", "  ", line);
	}
}

/* a (geometric) mean over rounds with its interval, "%.2f (lo..hi)" */
static const char *mean_ci(const struct jv *x, const char *fmt, char *buf,
			   size_t len)
{
	double m = jv_num(jv_get(x, "geomean"), jv_num(jv_get(x, "mean"), NAN));
	double lo = jv_num(jv_get(x, "ci95_lo"), NAN);
	double hi = jv_num(jv_get(x, "ci95_hi"), NAN);
	char a[24], b[24], c[24];

	snprintf(a, sizeof(a), fmt, m);
	snprintf(b, sizeof(b), fmt, lo);
	snprintf(c, sizeof(c), fmt, hi);
	if (isnan(m))
		snprintf(buf, len, "-");
	else if (isnan(lo) || isnan(hi))
		snprintf(buf, len, "%s", a);
	else
		snprintf(buf, len, "%s (%s..%s)", a, b, c);
	return buf;
}

void print_accept(FILE *f, const struct run *r)
{
	char line[512], a[96];
	const struct jv *x[NLOAD];
	struct jv *j[NLOAD];
	unsigned int i;
	size_t k;

	if (both_load(r, "accept", "accept", j, x)) {
		const struct jv *ac = x[0] ? x[0] : x[1];

		fprintf(f, "\n");
		text_line(f, "A boot's conversion storm (--workload=accept):");
		snprintf(line, sizeof(line), "%.0fM made shared (untimed), then "
			 "private chunk by chunk (accept: a guest accepting its "
			 "memory) and shared again chunk by chunk (pool: a "
			 "swiotlb pool set up), zeroes expected; a fresh VM per "
			 "chunk size. Per MiB: the summed latencies (95%% "
			 "interval over rounds), userspace exits and NPT faults.",
			 jv_num(jv_get(ac, "range_bytes"), 0) / (1 << 20));
		text_wrap(f, "  ", "  ", line);
		text_line(f, "  %-11s %-5s %-6s %-24s %8s %8s", "mode", "chunk",
			  "sweep", "ms/MiB (95% CI)", "exits", "faults");
	}
	for (i = 0; i < 2; i++) {
		const struct jv *sw = jv_get(x[i], "sweeps");
		const char *last = "";

		for (k = 0; k < jv_len(sw); k++) {
			const struct jv *y = jv_at(sw, k);
			const char *mode = jv_str(jv_get(y, "mode"), "?");

			text_line(f, "  %-11s %-5s %-6s %-24s %8.1f %8.1f",
				  strcmp(mode, last) ? mode : "",
				  jv_str(jv_get(y, "chunk"), "?"),
				  jv_str(jv_get(y, "sweep"), "?"),
				  mean_ci(jv_get(y, "ms_per_mib"), "%.2f", a, sizeof(a)),
				  jv_num(jv_get(jv_get(y, "exits_per_mib"), "mean"), NAN),
				  jv_num(jv_get(jv_get(y, "npt_faults_per_mib"), "mean"), NAN));
			last = mode;
		}
	}
	both_free(j);
}

/* a size in bytes as 4K, 256K, 2M; "none" for 0 or none */
static const char *io_size(const struct jv *v, char *buf, size_t len)
{
	double b = jv_num(v, 0);

	if (!(b > 0))
		snprintf(buf, len, "none");
	else if (b >= 1 << 20)
		snprintf(buf, len, "%gM", b / (1 << 20));
	else
		snprintf(buf, len, "%gK", b / 1024);
	return buf;
}

/* one mode's sizes: p50s, the ratio with its interval; then the work */
static void print_io_mode(FILE *f, const struct jv *m)
{
	const struct jv *sizes = jv_get(m, "sizes");
	const char *mode = jv_str(jv_get(m, "mode"), "?");
	char a[64], b[64], c[24], sz[24], x1[24], x2[24], x3[24];
	size_t k;

	for (k = 0; k < jv_len(sizes); k++) {
		const struct jv *y = jv_at(sizes, k);
		const struct jv *bo = jv_get(y, "bounce"), *sh = jv_get(y, "share");

		snprintf(a, sizeof(a), "%.1f",
			 jv_num(jv_get(jv_get(bo, "p50_ns"), "geomean"), NAN) / 1e3);
		snprintf(b, sizeof(b), "%.1f",
			 jv_num(jv_get(jv_get(sh, "p50_ns"), "geomean"), NAN) / 1e3);
		snprintf(c, sizeof(c), "%.2f",
			 jv_num(jv_get(jv_get(y, "share_over_bounce_less_exits"), "geomean"), NAN));
		text_line(f, "  %-11s %-4s %9s %9s %-22s %6s", k ? "" : mode,
			  io_size(jv_get(y, "size_bytes"), sz, sizeof(sz)), a, b,
			  mean_ci(jv_get(y, "share_over_bounce_p50"), "%.2f",
				  x1, sizeof(x1)), c);
	}
	text_line(f, "  %-11s crossover %s (surely from %s, possibly from %s);",
		  "", io_size(jv_get(jv_get(m, "crossover"), "size_bytes"), x1, sizeof(x1)),
		  io_size(jv_get(jv_get(m, "crossover"), "surely_from_bytes"), x2, sizeof(x2)),
		  io_size(jv_get(jv_get(m, "crossover"), "possibly_from_bytes"), x3, sizeof(x3)));
	text_line(f, "  %-11s less exits: %s", "",
		  io_size(jv_get(jv_get(m, "crossover_less_exits"), "size_bytes"), x1, sizeof(x1)));
}

/* the member of array a whose KEY is the number v, or NULL */
static const struct jv *io_find_num(const struct jv *a, const char *key,
				    double v)
{
	size_t k;

	for (k = 0; k < jv_len(a); k++)
		if (jv_num(jv_get(jv_at(a, k), key), NAN) == v)
			return jv_at(a, k);
	return NULL;
}

/* the member of array a whose KEY is the string v, or NULL */
static const struct jv *io_find_str(const struct jv *a, const char *key,
				    const char *v)
{
	size_t k;

	for (k = 0; k < jv_len(a); k++)
		if (!strcmp(jv_str(jv_get(jv_at(a, k), key), ""), v))
			return jv_at(a, k);
	return NULL;
}

/*
 * one mode's work per request, bounce | share; pages zeroed from the
 * --counts run of the same kernel (counted: its "modes", or NULL)
 */
static void print_io_work(FILE *f, const struct jv *m, const struct jv *counted)
{
	const struct jv *sizes = jv_get(m, "sizes");
	const char *mode = jv_str(jv_get(m, "mode"), "?");
	const struct jv *cm = io_find_str(counted, "mode", mode);
	char e[32], n[32], cp[32], z[32], sz[24];
	size_t k;

	for (k = 0; k < jv_len(sizes); k++) {
		const struct jv *y = jv_at(sizes, k);
		const struct jv *bo = jv_get(y, "bounce"), *sh = jv_get(y, "share");
		const struct jv *cy = io_find_num(jv_get(cm, "sizes"), "size_bytes",
						  jv_num(jv_get(y, "size_bytes"), NAN));
		double zb, zs;

#define IO_MEAN(s, key) jv_num(jv_get(jv_get(s, key), "mean"), NAN)
		zb = IO_MEAN(jv_get(cy, "bounce"), "pages_zeroed_per_request");
		zs = IO_MEAN(jv_get(cy, "share"), "pages_zeroed_per_request");
		if (isnan(zb) && isnan(zs))
			snprintf(z, sizeof(z), "-");
		else
			snprintf(z, sizeof(z), "%.0f|%.0f", zb, zs);
		snprintf(e, sizeof(e), "%.1f|%.1f", IO_MEAN(bo, "exits_per_request"),
			 IO_MEAN(sh, "exits_per_request"));
		snprintf(n, sizeof(n), "%.1f|%.1f", IO_MEAN(bo, "npt_faults_per_request"),
			 IO_MEAN(sh, "npt_faults_per_request"));
		snprintf(cp, sizeof(cp), "%.0f|%.0f",
			 IO_MEAN(bo, "copied_bytes_per_request") / 1024,
			 IO_MEAN(sh, "copied_bytes_per_request") / 1024);
#undef IO_MEAN
		text_line(f, "  %-11s %-4s %9s %13s %10s %13s", k ? "" : mode,
			  io_size(jv_get(y, "size_bytes"), sz, sizeof(sz)), e, n,
			  cp, z);
	}
}

void print_io(FILE *f, const struct run *r)
{
	const struct jv *x[NLOAD], *xc[NLOAD], *ms;
	struct jv *j[NLOAD], *jc[NLOAD];
	unsigned int i;
	size_t k;

	if (!both_load(r, "io", "io", j, x)) {
		both_free(j);
		return;
	}
	/* make bench's --counts run of each kernel: pages zeroed */
	both_load(r, "io-counts", "io", jc, xc);
	fprintf(f, "\n");
	text_line(f, "I/O through shared buffers (--workload=io):");
	text_wrap(f, "  ", "  ", "A host device thread checks every word a "
		  "request sends and writes the answer; the guest checks it. "
		  "Two strategies on the same requests, in alternating blocks: "
		  "bounce (copied through a pool made shared once, as swiotlb) "
		  "and share (the buffer converted to shared with its data, "
		  "and back). p50 in us (geometric mean over rounds); "
		  "share/bounce with its 95% interval over rounds, and less "
		  "the exits at each VM's own null exit. Below 1 sharing wins.");
	text_line(f, "  %-11s %-4s %9s %9s %-22s %6s", "mode", "size",
		  "bounce", "share", "share/bounce (95% CI)", "-exits");
	for (i = 0; i < 2; i++) {
		ms = jv_get(x[i], "modes");
		for (k = 0; k < jv_len(ms); k++)
			print_io_mode(f, jv_at(ms, k));
	}
	text_line(f, "  Work per request, bounce|share: exits to userspace, "
		  "NPT faults,");
	text_line(f, "  KiB the guest copied, pages zeroed (BPF counters, in a "
		  "run of its own");
	text_line(f, "  with --counts: io-counts/; - where none ran)");
	text_line(f, "  %-11s %-4s %9s %13s %10s %13s", "mode", "size", "exits",
		  "NPT faults", "copied KiB", "zeroed pages");
	for (i = 0; i < 2; i++) {
		ms = jv_get(x[i], "modes");
		for (k = 0; k < jv_len(ms); k++)
			print_io_work(f, jv_at(ms, k), jv_get(xc[i], "modes"));
	}
	both_free(j);
	both_free(jc);
}
