// SPDX-License-Identifier: GPL-2.0
/*
 * make bench's vCPU boots (bench/vm/smp-bench.sh): RUN/smp/ and
 * RUN/gmem/smp/, each with the matrix at one vCPU (v1), at V (vV) and
 * at one converting beside V-1 that only run (v1-busyV-1), io at V
 * (io-vV) and emulator.env. Per mode, size
 * and direction: p50 at 1 and at V vCPUs, V/1 as the geometric mean of
 * the rounds' ratios with its interval (rounds paired by number: both
 * ran in the same boot), IPIs and TLB flush requests per conversion;
 * then io's crossover at V vCPUs and the emulator's triple faults.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jsonr.h"
#include "sections.h"
#include "stats.h"
#include "text.h"
#include "units.h"
#include "vocab.h"

/* the rounds' p50s of a cell, by round number; how many */
static size_t round_p50s(const struct jv *cell, double *v, int *round)
{
	const struct jv *pr = jv_get(jv_get(cell, "total_ns"), "per_round");
	size_t k, n = 0;

	for (k = 0; k < jv_len(pr) && n < 64; k++) {
		v[n] = jv_num(jv_get(jv_at(pr, k), "p50"), NAN);
		round[n] = (int)jv_num(jv_get(jv_at(pr, k), "round"), -1);
		n += v[n] > 0;
	}
	return n;
}

/* V/1 of one cell: the rounds' ratios, paired by round number */
static void ratio_str(const struct jv *c1, const struct jv *cv, char *buf,
		      size_t len)
{
	double a[64], b[64], r[64], m = NAN, lo = NAN, hi = NAN;
	int ra[64], rb[64];
	size_t na = round_p50s(c1, a, ra), nb = round_p50s(cv, b, rb), i, j, n = 0;

	for (i = 0; i < na; i++)
		for (j = 0; j < nb; j++)
			if (ra[i] == rb[j])
				r[n++] = b[j] / a[i];
	if (n)
		stats_ratio_rounds(r, n, 0.95, &m, &lo, &hi);
	if (n == 1)
		m = r[0];
	if (isnan(m))
		snprintf(buf, len, "-");
	else if (isnan(lo) || isnan(hi))
		snprintf(buf, len, "%.2f", m);
	else
		snprintf(buf, len, "%.2f (%.2f..%.2f)", m, lo, hi);
}

/* a cell's VM-wide count per conversion (summary.json's vm_counts) */
static double per_conv(const struct jv *cell, const char *key)
{
	return jv_num(jv_get(jv_get(cell, "vm_counts"), key), NAN);
}

/* the kernel's run at 1 vCPU and run NAME (run_free() both), or false */
static bool smp_load(const char *dir, const char *name, struct run *r1,
		     struct run *rv)
{
	char path[4096], err[256];

	snprintf(path, sizeof(path), "%.4000s/v1", dir);
	if (run_load(r1, path, err, sizeof(err)))
		return false;
	snprintf(path, sizeof(path), "%.4000s/%s", dir, name);
	if (!run_load(rv, path, err, sizeof(err)))
		return true;
	run_free(r1);
	return false;
}

/*
 * times: p50 at 1 vCPU and in run NAME (its column LABEL) and their
 * ratio, per mode, size and direction
 */
static void smp_times(FILE *f, const char *dir, const char *name,
		      const char *label, bool *header)
{
	char r[48], p1[24], pv[24], sz[16];
	struct run r1, rv;
	size_t i;
	int m, d;

	if (!smp_load(dir, name, &r1, &rv))
		return;
	if (!*header) {
		snprintf(r, sizeof(r), "%s/1 (95%% CI)", label);
		text_line(f, "  %-11s %-4s %-10s %8s %8s  %s", "mode", "size",
			  "direction", "1 vCPU", label, r);
		*header = true;
	}
	for (m = 0; m < MODE_NR; m++) {
		bool first = true;

		for (i = 0; i < r1.nsizes; i++) {
			for (d = 0; d < DIR_NR; d++) {
				const struct jv *a = run_cell(&r1, m, r1.sizes[i], d);
				const struct jv *b = run_cell(&rv, m, r1.sizes[i], d);

				if (!a || !b)
					continue;
				snprintf(p1, sizeof(p1), "%.1f", jv_num(jv_get(jv_get(a, "total_ns"), "p50"), NAN) / 1e3);
				snprintf(pv, sizeof(pv), "%.1f", jv_num(jv_get(jv_get(b, "total_ns"), "p50"), NAN) / 1e3);
				ratio_str(a, b, r, sizeof(r));
				text_line(f, "  %-11s %-4s %-10s %8s %8s  %s",
					  first ? conv_mode_names[m] : "",
					  size_str(r1.sizes[i], sz, sizeof(sz)),
					  conv_dir_names[d], p1, pv, r);
				first = false;
			}
		}
	}
	run_free(&r1);
	run_free(&rv);
}

/* counts: IPIs and TLB flush requests per conversion at 1 vCPU | NAME */
static void smp_counts(FILE *f, const char *dir, const char *name,
		       const char *label, bool *header)
{
	char ipi[48], tlb[48], sz[16];
	struct run r1, rv;
	size_t i;
	int m;

	if (!smp_load(dir, name, &r1, &rv))
		return;
	if (!*header) {
		text_line(f, "  Per conversion (a cell's whole run, both "
			  "directions), 1 vCPU|%s:", label);
		text_line(f, "  %-11s %-4s %16s %22s", "mode", "size", "IPIs",
			  "TLB flush requests");
		*header = true;
	}
	for (m = 0; m < MODE_NR; m++) {
		bool first = true;

		for (i = 0; i < r1.nsizes; i++) {
			const struct jv *a = run_cell(&r1, m, r1.sizes[i], DIR_TO_SHARED);
			const struct jv *b = run_cell(&rv, m, r1.sizes[i], DIR_TO_SHARED);

			if (!a || !b)
				continue;
			snprintf(ipi, sizeof(ipi), "%.2f|%.2f",
				 per_conv(a, "ipis_per_conversion"),
				 per_conv(b, "ipis_per_conversion"));
			snprintf(tlb, sizeof(tlb), "%.2f|%.2f",
				 per_conv(a, "tlb_flush_requests_per_conversion"),
				 per_conv(b, "tlb_flush_requests_per_conversion"));
			text_line(f, "  %-11s %-4s %16s %22s",
				  first ? conv_mode_names[m] : "",
				  size_str(r1.sizes[i], sz, sizeof(sz)), ipi, tlb);
			first = false;
		}
	}
	run_free(&r1);
	run_free(&rv);
}

/* io at V vCPUs: each mode's share/bounce at the smallest and largest size */
static void smp_io(FILE *f, const char *dir, unsigned int v)
{
	char path[4096], err[256], line[512], a[24], b[24], c[24];
	struct jv *j;
	const struct jv *ms;
	size_t k;

	snprintf(path, sizeof(path), "%.4000s/io-v%u/churn.json", dir, v);
	j = jsonr_load(path, err, sizeof(err));
	ms = jv_get(jv_get(j, "io"), "modes");
	for (k = 0; k < jv_len(ms); k++) {
		const struct jv *m = jv_at(ms, k), *sz = jv_get(m, "sizes");
		const struct jv *lo = jv_at(sz, 0), *hi = jv_at(sz, jv_len(sz) - 1);
		double x = jv_num(jv_get(jv_get(m, "crossover"), "size_bytes"), 0);

		snprintf(line, sizeof(line), "io at %u vCPUs, %s: share/bounce p50 "
			 "%.2f at %s, %.2f at %s; crossover %s", v,
			 jv_str(jv_get(m, "mode"), "?"),
			 jv_num(jv_get(jv_get(lo, "share_over_bounce_p50"), "geomean"), NAN),
			 size_str(jv_num(jv_get(lo, "size_bytes"), 0), a, sizeof(a)),
			 jv_num(jv_get(jv_get(hi, "share_over_bounce_p50"), "geomean"), NAN),
			 size_str(jv_num(jv_get(hi, "size_bytes"), 0), b, sizeof(b)),
			 x > 0 ? size_str(x, c, sizeof(c)) : "none");
		text_wrap(f, "  ", "    ", line);
	}
	jsonr_free(j);
}

/* KEY=VALUE of an env file, or dflt */
static void env_get(const char *path, const char *key, char *buf, size_t len,
		    const char *dflt)
{
	char line[512];
	size_t kl = strlen(key);
	FILE *f = fopen(path, "r");

	snprintf(buf, len, "%s", dflt);
	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, kl) || line[kl] != '=')
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(buf, len, "%s", line + kl + 1);
	}
	if (f)
		fclose(f);
}

/* whether DIR/NAME has a summary.json */
static bool run_exists(const char *dir, const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%.4000s/%s/summary.json", dir, name);
	return access(path, R_OK) == 0;
}

/* the kernel release of the boot (v1's provenance), up to its first '-' */
static void kernel_of(const char *dir, char *buf, size_t len)
{
	char path[4096], err[256];
	struct run r1;

	snprintf(buf, len, "kernel ?");
	snprintf(path, sizeof(path), "%.4000s/v1", dir);
	if (run_load(&r1, path, err, sizeof(err)))
		return;
	snprintf(buf, len, "%s", run_prov(&r1, "kernel_release", "kernel ?"));
	buf[strcspn(buf, "-")] = '\0';
	run_free(&r1);
}

void print_smp(FILE *f, const struct run *r)
{
	char dir[2][4096], env[4200], vs[16], runs[16], faults[16], which[256];
	char kern[64], name[32], label[32];
	char line[768];
	bool header = false, any = false;
	unsigned int i, v = 0;

	for (i = 0; i < 2; i++) {
		snprintf(dir[i], sizeof(dir[i]), "%.4000s/%ssmp", r->dir, i ? "gmem/" : "");
		snprintf(env, sizeof(env), "%.4000s/emulator.env", dir[i]);
		env_get(env, "vcpus", vs, sizeof(vs), "");
		if (!v && atoi(vs) > 1)
			v = atoi(vs);
		any |= vs[0] != '\0';
	}
	if (!any || !v)
		return;
	fprintf(f, "\n");
	text_line(f, "More vCPUs (make bench's vCPU boot):");
	snprintf(line, sizeof(line), "the matrix at 1 and at %u vCPUs (each its "
		 "own range, converting concurrently) in one boot per kernel "
		 "under single-threaded TCG: every vCPU takes turns on one host "
		 "thread, so %u vCPUs' times include waiting for that thread; "
		 "the IPIs the guest kernel took and KVM's TLB flush requests "
		 "per conversion (each cell's whole run, both directions) are "
		 "what transfers. %u/1: geometric mean of the rounds' p50 "
		 "ratios with its 95%% interval.", v, v, v);
	text_wrap(f, "  ", "  ", line);
	snprintf(name, sizeof(name), "v%u", v);
	snprintf(label, sizeof(label), "%u vCPUs", v);
	for (i = 0; i < 2; i++)
		smp_times(f, dir[i], name, label, &header);
	header = false;
	for (i = 0; i < 2; i++)
		smp_counts(f, dir[i], name, label, &header);
	/* one converting, the others only running: they must be flushed */
	snprintf(name, sizeof(name), "v1-busy%u", v - 1);
	snprintf(label, sizeof(label), "1+%u busy", v - 1);
	snprintf(line, sizeof(line), "One vCPU converting while %u more only "
		 "run guest code (no exits): every TLB flush must reach them "
		 "(KVM kicks them out of the guest):", v - 1);
	for (i = 0, header = false; i < 2; i++) {
		if (!header && run_exists(dir[i], name))
			text_wrap(f, "  ", "  ", line);
		smp_times(f, dir[i], name, label, &header);
	}
	header = false;
	for (i = 0; i < 2; i++)
		smp_counts(f, dir[i], name, label, &header);
	for (i = 0; i < 2; i++)
		smp_io(f, dir[i], v);
	for (i = 0; i < 2; i++) {
		snprintf(env, sizeof(env), "%.4000s/emulator.env", dir[i]);
		env_get(env, "runs", runs, sizeof(runs), "");
		if (!runs[0])
			continue;
		env_get(env, "emulator_faults", faults, sizeof(faults), "?");
		env_get(env, "emulator_fault_runs", which, sizeof(which), "");
		kernel_of(dir[i], kern, sizeof(kern));
		snprintf(line, sizeof(line), "%s: the emulator's triple fault of "
			 "a nested guest met %s of %s runs%s%s%s", kern,
			 faults, runs, which[0] ? " (run again once: " : "",
			 which, which[0] ? ")" : "");
		text_wrap(f, "  ", "    ", line);
	}
}
