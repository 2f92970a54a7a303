// SPDX-License-Identifier: GPL-2.0
/*
 * convreport --plot-data RUN: the tables the gnuplot scripts of analysis/
 * read, in
 * RUN/plots/data/ (whitespace-separated, one "#" header line):
 *   meta              key=value: accel, kernel, cpu, date, sizes, modes ...
 *   stats.dat         mode size_bytes size dir n p50_us p90_us p99_us
 *                     p50 and p99 bands lo hi (us; NaN without them)
 *   stats-M-D.dat     the same for one mode and direction, by size
 *   hist-M-S-D.dat    low_us high_us pct_per_16th_octave (hist.csv)
 *   cdf-M-S-D.dat     total_us fraction_at_or_below (samples.csv, <= ~2000
 *                     points, up to the highest banded percentile; p90
 *                     in a cell without bands)
 *   cdfband-M-S-D.dat fraction us lo_us hi_us: the spectrum's percentiles
 *                     with their bands over resampled boots
 *   phases-S.dat      per (dir, mode): the phases' medians, cumulated
 *   ratio.dat         size_bytes size dir p50 lo hi p90 lo hi (NaN where
 *                     summary.json withholds a tail ratio)
 *   ratio-D.dat       the same for one direction, by size
 *   trace-S.dat       top probes: us and calls per conversion, per mode
 * Statistics come from summary.json; samples.csv and hist.csv give only
 * the shapes. Written into a temp folder, then renamed into place.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hist_csv.h"
#include "plotdata.h"
#include "threeway.h"
#include "units.h"

static FILE *open_in_mode(const char *dir, const char *name,
			  const char *mode)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return fopen(path, mode);
}

static FILE *open_in(const char *dir, const char *name)
{
	return open_in_mode(dir, name, "w");
}

static double us_of(const struct jv *obj, const char *key)
{
	return jv_num(jv_get(obj, key), NAN) / 1000;
}

static void write_meta(const struct run *r, const struct run *g,
		       const char *dir)
{
	const char *accel = run_prov(r, "accel", "");
	FILE *f = open_in(dir, "meta");
	char sz[32];
	size_t i;

	if (!f)
		return;
	fprintf(f, "accel=%s\nkernel=%s\ncpu=%s\ndate=%s\nqemu=%s\nsizes=",
		accel, run_prov(r, "kernel_release", ""),
		run_prov(r, "cpu_model", ""), run_prov(r, "date", ""),
		run_prov(r, "qemu_version", ""));
	for (i = 0; i < r->nsizes; i++)
		fprintf(f, "%llu ", (unsigned long long)r->sizes[i]);
	fprintf(f, "\nsizelabels=");
	for (i = 0; i < r->nsizes; i++)
		fprintf(f, "%s ", size_str(r->sizes[i], sz, sizeof(sz)));
	fprintf(f, "\ndirs=to-shared to-private \nmodes=%s%s%s\ntrace=%d\n",
		r->has_mode[MODE_DESTRUCTIVE] ? "destructive " : "",
		r->has_mode[MODE_INPLACE] ? "inplace " : "",
		g && g->has_mode[MODE_GMEM] ? "gmem " : "",
		jv_get(r->sum, "trace") != NULL);
	/* every plot's title says where its timings come from */
	fprintf(f, "accel_note=%s\n", !strcasecmp(accel, "tcg") ?
		"TCG (emulated) timings" : !strcasecmp(accel, "kvm") ?
		"hardware (KVM) timings" : "accelerator unknown");
	fclose(f);
}

/* spectrum entry k's band edge key of (m, size, d), us, or NaN */
static double band_us(const struct run *r, const struct run *g,
		      enum conv_mode m, uint64_t size, enum conv_dir d,
		      size_t k, const char *key)
{
	const struct jv *sp = jv_get(jv_get(run_cell_of(r, g, m, size, d),
					    "spectrum"), "percentiles");

	return jv_num(jv_get(jv_at(sp, k), key), NAN) / 1000;
}

static void stats_row(FILE *f, const struct run *r, const struct run *g,
		      enum conv_mode m, uint64_t size, enum conv_dir d)
{
	const struct jv *tot = jv_get(run_cell_of(r, g, m, size, d),
				      "total_ns");
	char sz[32];

	if (!tot)
		return;
	fprintf(f, "%s %llu %s %s %.0f %g %g %g", conv_mode_names[m],
		(unsigned long long)size, size_str(size, sz, sizeof(sz)),
		conv_dir_names[d], jv_num(jv_get(tot, "n"), 0), us_of(tot, "p50"),
		us_of(tot, "p90"), us_of(tot, "p99"));
	/* the bands of p50 and p99 (NaN in a run without the spectrum) */
	fprintf(f, " %g %g %g %g\n", band_us(r, g, m, size, d, 0, "band_lo"),
		band_us(r, g, m, size, d, 0, "band_hi"),
		band_us(r, g, m, size, d, 2, "band_lo"),
		band_us(r, g, m, size, d, 2, "band_hi"));
}

static void write_stats(const struct run *r, const struct run *g,
			const char *dir)
{
	static const char head[] = "# mode size_bytes size dir n p50_us p90_us p99_us "
		"p50_lo p50_hi p99_lo p99_hi (us; the bands over resampled boots)\n";
	FILE *all = open_in(dir, "stats.dat"), *f;
	char name[96];
	size_t i;
	int m, d;

	if (all)
		fputs(head, all);
	for (m = 0; m < MODE_NR; m++)
		for (d = 0; d < DIR_NR; d++) {
			snprintf(name, sizeof(name), "stats-%s-%s.dat",
				 conv_mode_names[m], conv_dir_names[d]);
			f = (m == MODE_GMEM ? g && g->has_mode[m] :
			     r->has_mode[m]) ? open_in(dir, name) : NULL;
			if (f)
				fputs(head, f);
			for (i = 0; i < r->nsizes; i++) {
				if (all)
					stats_row(all, r, g, m, r->sizes[i], d);
				if (f)
					stats_row(f, r, g, m, r->sizes[i], d);
			}
			if (f)
				fclose(f);
		}
	if (all)
		fclose(all);
}

/* hist.csv: percent of the cell's conversions per 1/16 octave */
static void write_hists(const struct run *r, const char *dir)
{
	double total[MODE_NR][64][DIR_NR] = { { { 0 } } };
	char path[4400], name[128];
	struct hist_csv_row row;
	struct csvr_file in;
	size_t pass, i;
	double lo, w;
	FILE *out;
	int x;

	snprintf(path, sizeof(path), "%s/hist.csv", r->dir);
	for (pass = 0; pass < 2; pass++) {
		if (hist_csv_open(&in, path)) {
			csvr_close(&in);
			return;
		}
		while ((x = hist_csv_next(&in, &row))) {
			for (i = 0; i < r->nsizes && r->sizes[i] != row.size; i++)
				;
			if (x < 0 || i == r->nsizes)
				continue;
			if (!pass) {
				total[row.mode][i][row.dir] += row.count;
				continue;
			}
			snprintf(name, sizeof(name), "hist-%s-%llu-%s.dat",
				 conv_mode_names[row.mode],
				 (unsigned long long)row.size,
				 conv_dir_names[row.dir]);
			out = open_in_mode(dir, name, "a");
			if (!out)
				continue;
			if (!ftell(out))
				fprintf(out, "# low_us high_us pct_per_16th_octave\n");
			lo = row.low < 1 ? 1 : row.low;
			w = 16 * log2((row.high + 1) / lo);
			fprintf(out, "%g %g %g\n", lo / 1000, (row.high + 1) / 1000,
				100 * row.count / total[row.mode][i][row.dir] / w);
			fclose(out);
		}
		csvr_close(&in);
	}
}

/*
 * The banded percentiles of a cell's spectrum (summary.json) as the
 * fraction of conversions at or below each: cdfband-M-S-D.dat, one row
 * "fraction us lo hi" per percentile with a band. Returns the highest
 * such fraction (the CDF is drawn up to it, no tail without its band),
 * 0 when the cell has none (one boot: nothing to resample).
 */
static double write_cdf_band(const struct run *r, const struct run_cdf *c,
			     const char *dir)
{
	const struct jv *sp = jv_get(jv_get(run_cell(r, c->mode, c->size,
						     c->dir), "spectrum"),
				     "percentiles");
	double top = 0;
	char name[128];
	FILE *f = NULL;
	size_t k;

	for (k = 0; jv_at(sp, k); k++) {
		const struct jv *x = jv_at(sp, k);
		const char *pct = jv_str(jv_get(x, "pct"), "");
		double v = jv_num(jv_get(x, "ns"), NAN);
		double lo = jv_num(jv_get(x, "band_lo"), NAN);
		double hi = jv_num(jv_get(x, "band_hi"), NAN);
		double frac = pct[0] == 'p' ? strtod(pct + 1, NULL) / 100 : NAN;

		if (isnan(v) || isnan(lo) || isnan(hi) || !(frac > 0 && frac < 1))
			continue;
		if (!f) {
			snprintf(name, sizeof(name), "cdfband-%s-%llu-%s.dat",
				 conv_mode_names[c->mode],
				 (unsigned long long)c->size,
				 conv_dir_names[c->dir]);
			f = open_in(dir, name);
			if (!f)
				return 0;
			fprintf(f, "# fraction us lo_us hi_us (95%% band over "
				"resampled boots)\n");
		}
		fprintf(f, "%g %g %g %g\n", frac, v / 1000, lo / 1000, hi / 1000);
		if (frac > top)
			top = frac;
	}
	if (f)
		fclose(f);
	return top;
}

/*
 * cdf-M-S-D.dat: the pooled samples' CDF, thinned to ~2000 points (the
 * first and last kept), drawn up to the highest banded percentile; a
 * cell without bands up to p90, which the plot says
 */
static void write_cdfs(const struct run *r, const char *dir)
{
	struct run_cdf *c;
	char err[256], name[128];
	size_t n, i, k, step, last;
	double top;
	FILE *f;

	if (run_read_cdfs(r->dir, &c, &n, err, sizeof(err)))
		return;
	for (i = 0; i < n; i++) {
		if (!c[i].n)
			continue;
		top = write_cdf_band(r, &c[i], dir);
		snprintf(name, sizeof(name), "cdf-%s-%llu-%s.dat",
			 conv_mode_names[c[i].mode], (unsigned long long)c[i].size,
			 conv_dir_names[c[i].dir]);
		f = open_in(dir, name);
		if (!f)
			continue;
		fprintf(f, "# total_us fraction (%s)\n", top > 0 ?
			"up to the highest banded percentile" :
			"no bands: up to p90");
		/* the sample at the top fraction, rounded up */
		last = (size_t)ceil((top > 0 ? top : 0.9) * c[i].n - 1e-9);
		if (last < 1)
			last = 1;
		if (last > c[i].n)
			last = c[i].n;
		step = (last + 1999) / 2000;
		for (k = 1; k <= last; k++)
			if (k % step == 0 || k == 1 || k == last)
				fprintf(f, "%g %g\n", c[i].v[k - 1] / 1000,
					(double)k / c[i].n);
		fclose(f);
	}
	run_free_cdfs(c, n);
}

static void write_phases(const struct run *r, const char *dir)
{
	char name[64];
	double x;
	size_t i;
	int m, d;

	for (i = 0; i < r->nsizes; i++) {
		FILE *f;

		snprintf(name, sizeof(name), "phases-%llu.dat",
			 (unsigned long long)r->sizes[i]);
		f = open_in(dir, name);
		if (!f)
			continue;
		fprintf(f, "# x dir mode copy exit_rt after_exit (cumulated, us) "
			"| record memory release handler_rest (cumulated, us) "
			"| median_total_us cluster_x\n");
		x = 0;
		for (d = 0; d < DIR_NR; d++) {
			for (m = 0; m < MODE_NR; m++) {
				const struct jv *c = run_cell(r, m, r->sizes[i], d);
				const struct jv *ph = jv_get(c, "phases_p50_ns");
				double c1, c2, c3, h1, h2, h3, h4;

				if (!c)
					continue;
				c1 = us_of(ph, "copy");
				c2 = c1 + us_of(ph, "exit_round_trip");
				c3 = c2 + us_of(ph, "after_exit");
				h1 = us_of(ph, "host_record");
				h2 = h1 + us_of(ph, "host_memory");
				h3 = h2 + us_of(ph, "host_release");
				h4 = fmax(us_of(ph, "host_handler"), h3);
				fprintf(f, "%g %s %s %g %g %g %g %g %g %g %g %d\n",
					x, conv_dir_names[d], conv_mode_names[m], c1,
					c2, c3, h1, h2, h3, h4,
					us_of(jv_get(c, "total_ns"), "p50"), d + 1);
				x++;
			}
			x += 0.6;
		}
		fclose(f);
	}
}

/* gnuplot's missing value for NaN */
static const char *num(double v, char *buf)
{
	if (isnan(v))
		return "NaN";
	sprintf(buf, "%g", v);
	return buf;
}

/* " ratio lo hi" of a summary.json percentile ratio, NaN if withheld */
static char *put_ratio(char *w, const struct jv *x)
{
	bool shown = jv_bool(jv_get(x, "shown"), false);
	static const char *const key[] = { "ratio", "ci95_lo", "ci95_hi" };
	char a[32];
	int k;

	for (k = 0; k < 3; k++)
		w += sprintf(w, " %s", num(shown ?
			jv_num(jv_get(x, key[k]), NAN) : NAN, a));
	return w;
}

static void write_ratios(const struct run *r, const char *dir)
{
	static const char head[] = "# size_bytes size dir p50 p50_lo p50_hi p90 p90_lo p90_hi "
		"gmde_p50 gmde_lo gmde_hi ingm_p50 ingm_lo ingm_hi (in/de, then gmem/destructive, inplace/gmem)\n";
	static const char *const against[] = { "gmem_over_destructive",
					       "inplace_over_gmem" };
	FILE *all = open_in(dir, "ratio.dat"), *f[DIR_NR];
	char name[64], sz[32];
	size_t i;
	int d, p;

	for (d = 0; d < DIR_NR; d++) {
		snprintf(name, sizeof(name), "ratio-%s.dat", conv_dir_names[d]);
		f[d] = open_in(dir, name);
		if (f[d])
			fputs(head, f[d]);
	}
	if (all)
		fputs(head, all);
	for (i = 0; i < r->nsizes; i++)
		for (d = 0; d < DIR_NR; d++) {
			const struct jv *q = run_ratio(r, r->sizes[i], d);
			char line[512], *w = line;

			if (!q)
				continue;
			w += sprintf(w, "%llu %s %s",
				     (unsigned long long)r->sizes[i],
				     size_str(r->sizes[i], sz, sizeof(sz)),
				     conv_dir_names[d]);
			/* p50 and p90: p99 ratios are mostly withheld */
			for (p = 0; p < 2; p++)
				w = put_ratio(w, jv_get(q, run_pct_name[p]));
			/* the medians against gmem, NaN in a run without it */
			for (p = 0; p < 2; p++)
				w = put_ratio(w, jv_get(run_gmem_ratio(r,
					against[p], r->sizes[i], d), "p50"));
			if (all)
				fprintf(all, "%s\n", line);
			if (f[d])
				fprintf(f[d], "%s\n", line);
		}
	for (d = 0; d < DIR_NR; d++)
		if (f[d])
			fclose(f[d]);
	if (all)
		fclose(all);
}

struct tline {
	char probe[64];
	double us[MODE_NR], calls[MODE_NR], best;
};

static int cmp_tline(const void *a, const void *b)
{
	const struct tline *x = a, *y = b;

	return (x->best < y->best) - (x->best > y->best);
}

/* per size, the 8 probes with the most time per conversion */
static void write_trace(const struct run *r, const char *dir)
{
	const struct jv *tot = jv_get(jv_get(r->sum, "trace"), "totals");
	struct tline *t = calloc(jv_len(tot) + 1, sizeof(*t));
	char name[64], sz[32];
	size_t i, j, k, nt;

	for (i = 0; t && i < r->nsizes; i++) {
		double conv[MODE_NR][64] = { { 0 } };
		FILE *f;

		size_str(r->sizes[i], sz, sizeof(sz));
		nt = 0;
		for (j = 0; j < jv_len(tot); j++) {
			const struct jv *x = jv_at(tot, j);
			char mode[32], s[32], phase[32];
			int m;

			if (sscanf(jv_str(jv_get(x, "context"), ""), "%31s %31s %31s",
				   mode, s, phase) != 3 || strcmp(s, sz) ||
			    conv_dir_of(phase) < 0 || (m = conv_mode_of(mode)) < 0)
				continue;
			for (k = 0; k < nt; k++)
				if (!strcmp(t[k].probe, jv_str(jv_get(x, "probe"), "")))
					break;
			if (k == nt)
				snprintf(t[nt++].probe, 64, "%s",
					 jv_str(jv_get(x, "probe"), "?"));
			t[k].us[m] += jv_num(jv_get(x, "exclusive_ns"), 0) / 1000;
			t[k].calls[m] += jv_num(jv_get(x, "calls"), 0);
			if (k < 64)
				conv[m][k] += jv_num(jv_get(x, "conversions"), 0);
		}
		for (k = 0; k < nt && k < 64; k++) {
			int m;

			for (m = 0; m < MODE_NR; m++) {
				t[k].us[m] = conv[m][k] ? t[k].us[m] / conv[m][k] : 0;
				t[k].calls[m] = conv[m][k] ? t[k].calls[m] / conv[m][k] : 0;
			}
			t[k].best = fmax(t[k].us[0], t[k].us[1]);
		}
		if (!nt)
			continue;
		qsort(t, nt, sizeof(*t), cmp_tline);
		snprintf(name, sizeof(name), "trace-%llu.dat",
			 (unsigned long long)r->sizes[i]);
		f = open_in(dir, name);
		if (!f)
			continue;
		fprintf(f, "# rank function destr_us_per_conv destr_calls_per_conv "
			"inplace_us_per_conv inplace_calls_per_conv "
			"mixed_us_per_conv mixed_calls_per_conv\n");
		for (k = 0; k < nt && k < 8; k++)
			fprintf(f, "%zu %s %g %g %g %g 0 0\n", k, t[k].probe,
				t[k].us[0], t[k].calls[0], t[k].us[1],
				t[k].calls[1]);
		fclose(f);
		memset(t, 0, (jv_len(tot) + 1) * sizeof(*t));
	}
	free(t);
}

int plot_data(const struct run *r)
{
	char plots[2048], tmp[2200], out[2200], old[2300];
	struct run gmem;
	bool have_g = !threeway_load(&gmem, r->dir);
	const struct run *g = have_g ? &gmem : NULL;
	int ret = 0;

	snprintf(plots, sizeof(plots), "%s/plots", r->dir);
	snprintf(out, sizeof(out), "%s/data", plots);
	snprintf(tmp, sizeof(tmp), "%s/.data.XXXXXX", plots);
	snprintf(old, sizeof(old), "%s.old", out);
	if ((mkdir(plots, 0755) && errno != EEXIST) || !mkdtemp(tmp)) {
		fprintf(stderr, "convreport: %s: %s\n", plots, strerror(errno));
		ret = -errno;
		goto out;
	}
	chmod(tmp, 0755);
	write_meta(r, g, tmp);
	write_stats(r, g, tmp);
	write_hists(r, tmp);
	write_cdfs(r, tmp);
	/* gmem's distributions from its own run (the file names say gmem) */
	if (g) {
		write_hists(g, tmp);
		write_cdfs(g, tmp);
	}
	write_phases(r, tmp);
	write_ratios(r, tmp);
	write_trace(r, tmp);
	/* swap the folder in whole */
	if (!access(out, F_OK) && rename(out, old)) {
		fprintf(stderr, "convreport: %s: %s\n", out, strerror(errno));
		ret = -errno;
		goto out;
	}
	if (rename(tmp, out)) {
		fprintf(stderr, "convreport: %s: %s\n", out, strerror(errno));
		ret = -errno;
		goto out;
	}
	if (!access(old, F_OK)) {
		char cmd[4400];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", old);
		if (system(cmd))
			fprintf(stderr, "convreport: could not remove %s\n", old);
	}
out:
	if (have_g)
		threeway_free(&gmem);
	return ret;
}
