// SPDX-License-Identifier: GPL-2.0
/*
 * convbench's output. Latencies are reported in ns (TSC deltas over
 * KVM_GET_TSC_KHZ). Statistics are exact (sorted samples); the
 * histograms are log2 with sub-buckets, printed funclatency-style.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "atomic_file.h"
#include "csvw.h"
#include "hist.h"
#include "jsonw.h"
#include "provenance.h"
#include "report.h"
#include "stats.h"

#define CI_CONF		0.95

double tsc_ns(const struct cell_result *res, uint64_t cycles)
{
	return res->tsc_khz ? cycles * 1e6 / res->tsc_khz : (double)cycles;
}

static bool dir_is_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	bool empty = true;

	if (!d)
		return false;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			empty = false;
	closedir(d);
	return empty;
}

int report_open(struct report *r, const struct env *env)
{
	memset(r, 0, sizeof(*r));
	r->env = env;
	r->out = stdout;
	if (!env->out_dir)
		return 0;
	if (mkdir(env->out_dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "convbench: --out=%s: cannot create: %s\n",
			env->out_dir, strerror(errno));
		return 2;
	}
	if (!dir_is_empty(env->out_dir)) {
		fprintf(stderr, "convbench: --out=%s: not an empty directory; "
			"refusing to overwrite an earlier run\n", env->out_dir);
		return 2;
	}
	r->dir = strdup(env->out_dir);
	return r->dir ? 0 : 1;
}

void report_note(struct report *r, const char *what, const char *why)
{
	if (r->nnotes == REPORT_MAX_NOTES)
		return;
	r->notes[r->nnotes].what = what;
	snprintf(r->notes[r->nnotes].why, sizeof(r->notes[0].why), "%s", why);
	r->nnotes++;
}

/* one (cell, direction): arrays of ns per measure */
struct dir_view {
	size_t n;
	double *total, *first, *copy, *exit_rt, *fault_in;
	double *host, *record, *mem, *release, *exits;
};

enum { F_TOTAL, F_FIRST, F_COPY, F_EXIT_RT, F_FAULT_IN, F_HOST, F_RECORD,
       F_MEM, F_RELEASE, F_EXITS, F_NR };

static void view_free(struct dir_view *v)
{
	free(v->total);
	memset(v, 0, sizeof(*v));
}

static int view_make(const struct cell_result *res, unsigned int dir,
		     struct dir_view *v)
{
	double *all;
	uint64_t i;
	size_t n = 0;

	memset(v, 0, sizeof(*v));
	for (i = 0; i < res->n; i++)
		n += res->samples[i].dir == dir;
	all = calloc(F_NR * (n ? n : 1), sizeof(double));
	if (!all)
		return -ENOMEM;
	v->total = all;
	v->first = all + 1 * n;
	v->copy = all + 2 * n;
	v->exit_rt = all + 3 * n;
	v->fault_in = all + 4 * n;
	v->host = all + 5 * n;
	v->record = all + 6 * n;
	v->mem = all + 7 * n;
	v->release = all + 8 * n;
	v->exits = all + 9 * n;
	for (i = 0; i < res->n; i++) {
		const struct conv_sample *s = &res->samples[i];

		if (s->dir != dir)
			continue;
		v->total[v->n] = tsc_ns(res, s->total);
		v->first[v->n] = tsc_ns(res, s->first);
		v->copy[v->n] = tsc_ns(res, s->copy);
		v->exit_rt[v->n] = tsc_ns(res, s->exit_rt);
		v->fault_in[v->n] = tsc_ns(res, s->fault_in);
		v->host[v->n] = tsc_ns(res, s->host);
		v->record[v->n] = tsc_ns(res, s->host_record);
		v->mem[v->n] = tsc_ns(res, s->host_mem);
		v->release[v->n] = tsc_ns(res, s->host_release);
		v->exits[v->n] = s->exits;
		v->n++;
	}
	return 0;
}

static double median(const double *v, size_t n)
{
	double m = NAN;

	stats_median(v, n, &m);
	return m;
}

static void hist_of(struct hist *h, const double *v, size_t n)
{
	size_t i;

	hist_init(h, HIST_SUB_BITS_DEFAULT);
	for (i = 0; i < n; i++)
		hist_add(h, (uint64_t)llround(v[i]));
}

static const char *cell_label(const struct cell_result *res, unsigned int dir,
			      char *buf, size_t len)
{
	char sz[32];

	snprintf(buf, len, "%s %s %s", conv_mode_name(res->p.mode),
		 size_str(res->p.size, sz, sizeof(sz)), conv_dir_name(dir));
	return buf;
}

static void print_dir(FILE *f, const struct cell_result *res, unsigned int d)
{
	struct stats_summary s;
	struct dir_view v;
	struct hist h;
	double lo = NAN, hi = NAN;
	char label[96];

	if (view_make(res, d, &v))
		return;
	cell_label(res, d, label, sizeof(label));
	if (!v.n) {
		fprintf(f, "\n%s: no samples\n", label);
		view_free(&v);
		return;
	}
	stats_summary(v.total, v.n, &s);
	stats_median_ci(v.total, v.n, CI_CONF, &lo, &hi);
	fprintf(f, "\n%s (%s, %s, %u vCPU%s): %zu conversions, all verified\n",
		label, res->p.trigger == TRIGGER_IMPLICIT ? "implicit" : "explicit",
		res->p.preserve ? "preserve" : "no-preserve", res->p.vcpus,
		res->p.vcpus > 1 ? "s" : "", v.n);
	hist_of(&h, v.total, v.n);
	hist_print_log2(f, &h, "nsecs");
	fprintf(f, "n %zu  mean %.0f  p50 %.0f  p90 %.0f  p99 %.0f  max %.0f ns"
		"  (p50 95%% CI %.0f..%.0f)\n", s.n, s.mean, s.p50, s.p90,
		s.p99, s.max, lo, hi);
	fprintf(f, "median phases (ns): copy %.0f, exit round trip %.0f "
		"(host handler %.0f: record %.0f, memory %.0f, release %.0f), "
		"after exit %.0f; exits/conversion %.1f\n",
		median(v.copy, v.n), median(v.exit_rt, v.n),
		median(v.host, v.n), median(v.record, v.n),
		median(v.mem, v.n), median(v.release, v.n),
		median(v.fault_in, v.n), stats_mean(v.exits, v.n));
	view_free(&v);
}

void report_cell(struct report *r, const struct cell_result *res)
{
	unsigned int d;
	char sz[32];

	if (r->env->format != FORMAT_TEXT)
		return;
	for (d = 0; d < DIR_NR; d++)
		if (res->p.dir_mask & (1u << d))
			print_dir(r->out, res, d);
	if (res->error[0])
		fprintf(r->out, "%s %s: FAILED: %s\n",
			conv_mode_name(res->p.mode),
			size_str(res->p.size, sz, sizeof(sz)), res->error);
	if (res->interrupted)
		fprintf(r->out, "%s %s: interrupted by a signal after %llu "
			"conversions; the verified ones are kept\n",
			conv_mode_name(res->p.mode),
			size_str(res->p.size, sz, sizeof(sz)),
			(unsigned long long)res->conversions);
	fflush(r->out);
}

/* the cell of mode m with the same size as res, or NULL */
static const struct cell_result *peer(const struct cell_result *res,
				      unsigned int n, enum conv_mode m,
				      uint64_t size)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (res[i].p.mode == m && res[i].p.size == size)
			return &res[i];
	return NULL;
}

/* inplace over destructive, median and p99, with bootstrap CIs */
struct ratio {
	double p50, p50_lo, p50_hi, p99, p99_lo, p99_hi;
	size_t na, nb;
};

static int ratio_of(const struct cell_result *a, const struct cell_result *b,
		    unsigned int d, uint64_t seed, struct ratio *q)
{
	struct dir_view va, vb;
	double ma, mb, pa, pb;
	int r;

	if (view_make(a, d, &va))
		return -ENOMEM;
	if (view_make(b, d, &vb)) {
		view_free(&va);
		return -ENOMEM;
	}
	r = -EINVAL;
	q->na = va.n;
	q->nb = vb.n;
	if (va.n >= 2 && vb.n >= 2 &&
	    !stats_median(va.total, va.n, &ma) &&
	    !stats_median(vb.total, vb.n, &mb) &&
	    !stats_percentile(va.total, va.n, 99, &pa) &&
	    !stats_percentile(vb.total, vb.n, 99, &pb)) {
		q->p50 = mb / ma;
		q->p99 = pb / pa;
		stats_bootstrap_ratio_ci(va.total, va.n, vb.total, vb.n, 50,
					 STATS_BOOTSTRAP_REPS, CI_CONF, seed,
					 &q->p50_lo, &q->p50_hi);
		stats_bootstrap_ratio_ci(va.total, va.n, vb.total, vb.n, 99,
					 STATS_BOOTSTRAP_REPS, CI_CONF, seed + 1,
					 &q->p99_lo, &q->p99_hi);
		r = 0;
	}
	view_free(&va);
	view_free(&vb);
	return r;
}

static void print_ratios(FILE *f, const struct report *r,
			 const struct cell_result *res, unsigned int n)
{
	bool header = false;
	unsigned int i, d;
	char sz[32];

	for (i = 0; i < n; i++) {
		const struct cell_result *a = &res[i], *b;

		if (a->p.mode != MODE_DESTRUCTIVE)
			continue;
		b = peer(res, n, MODE_INPLACE, a->p.size);
		for (d = 0; b && d < DIR_NR; d++) {
			struct ratio q;

			if (!(a->p.dir_mask & (1u << d)) ||
			    ratio_of(a, b, d, r->env->seed, &q))
				continue;
			if (!header)
				fprintf(f, "\ninplace/destructive, same run "
					"(95%% bootstrap CI):\n");
			header = true;
			fprintf(f, "  %-4s %-10s p50 %.3f (%.3f..%.3f)  "
				"p99 %.3f (%.3f..%.3f)  n %zu/%zu\n",
				size_str(a->p.size, sz, sizeof(sz)),
				conv_dir_name(d), q.p50, q.p50_lo, q.p50_hi,
				q.p99, q.p99_lo, q.p99_hi, q.nb, q.na);
		}
	}
}

static void write_samples_csv(FILE *f, const struct cell_result *res,
			      unsigned int n)
{
	static const char *const head[] = {
		"mode", "size", "direction", "trigger", "preserve", "vcpu",
		"iter", "total_ns", "first_ns", "copy_ns", "exit_rt_ns",
		"after_exit_ns", "exits", "host_ns", "host_record_ns",
		"host_mem_ns", "host_release_ns",
	};
	struct csvw c;
	unsigned int i;
	uint64_t j;

	csvw_init(&c, f);
	csvw_row(&c, head, sizeof(head) / sizeof(head[0]));
	for (i = 0; i < n; i++) {
		const struct cell_result *cr = &res[i];

		for (j = 0; j < cr->n; j++) {
			const struct conv_sample *s = &cr->samples[j];

			csvw_str(&c, conv_mode_name(cr->p.mode));
			csvw_u64(&c, cr->p.size);
			csvw_str(&c, conv_dir_name(s->dir));
			csvw_str(&c, cr->p.trigger == TRIGGER_IMPLICIT ?
				 "implicit" : "explicit");
			csvw_u64(&c, cr->p.preserve);
			csvw_u64(&c, s->vcpu);
			csvw_u64(&c, s->iter);
			csvw_double(&c, round(tsc_ns(cr, s->total)));
			csvw_double(&c, round(tsc_ns(cr, s->first)));
			csvw_double(&c, round(tsc_ns(cr, s->copy)));
			csvw_double(&c, round(tsc_ns(cr, s->exit_rt)));
			csvw_double(&c, round(tsc_ns(cr, s->fault_in)));
			csvw_u64(&c, s->exits);
			csvw_double(&c, round(tsc_ns(cr, s->host)));
			csvw_double(&c, round(tsc_ns(cr, s->host_record)));
			csvw_double(&c, round(tsc_ns(cr, s->host_mem)));
			csvw_double(&c, round(tsc_ns(cr, s->host_release)));
			csvw_end_row(&c);
		}
	}
}

static void write_hist_csv(FILE *f, const struct cell_result *res,
			   unsigned int n)
{
	unsigned int i, d, b;
	char sz[32];

	fputs("mode,size,direction,low_ns,high_ns,count\n", f);
	for (i = 0; i < n; i++) {
		for (d = 0; d < DIR_NR; d++) {
			struct dir_view v;
			struct hist h;

			if (!(res[i].p.dir_mask & (1u << d)) ||
			    view_make(&res[i], d, &v))
				continue;
			hist_of(&h, v.total, v.n);
			for (b = 0; b < h.nr_buckets; b++)
				if (h.buckets[b])
					fprintf(f, "%s,%s,%s,%llu,%llu,%llu\n",
						conv_mode_name(res[i].p.mode),
						size_str(res[i].p.size, sz, sizeof(sz)),
						conv_dir_name(d),
						(unsigned long long)hist_bucket_low(b, h.sub_bits),
						(unsigned long long)hist_bucket_high(b, h.sub_bits),
						(unsigned long long)h.buckets[b]);
			view_free(&v);
		}
	}
}

static void json_stats(struct jsonw *w, const char *key, const double *v,
		       size_t n)
{
	struct stats_summary s;
	double lo = NAN, hi = NAN;

	jsonw_key(w, key);
	jsonw_obj_open(w);
	if (!stats_summary(v, n, &s)) {
		stats_median_ci(v, n, CI_CONF, &lo, &hi);
		jsonw_kv_u64(w, "n", s.n);
		jsonw_kv_double(w, "mean", s.mean);
		jsonw_kv_double(w, "stddev", s.stddev);
		jsonw_kv_double(w, "min", s.min);
		jsonw_kv_double(w, "p50", s.p50);
		jsonw_kv_double(w, "p50_ci95_lo", lo);
		jsonw_kv_double(w, "p50_ci95_hi", hi);
		jsonw_kv_double(w, "p90", s.p90);
		jsonw_kv_double(w, "p99", s.p99);
		jsonw_kv_double(w, "max", s.max);
	} else {
		jsonw_kv_u64(w, "n", 0);
	}
	jsonw_obj_close(w);
}

static void json_cell(struct jsonw *w, const struct cell_result *res)
{
	unsigned int d;
	char sz[32];

	for (d = 0; d < DIR_NR; d++) {
		struct dir_view v;

		if (!(res->p.dir_mask & (1u << d)) || view_make(res, d, &v))
			continue;
		jsonw_obj_open(w);
		jsonw_kv_str(w, "mode", conv_mode_name(res->p.mode));
		jsonw_kv_str(w, "size", size_str(res->p.size, sz, sizeof(sz)));
		jsonw_kv_u64(w, "size_bytes", res->p.size);
		jsonw_kv_str(w, "direction", conv_dir_name(d));
		jsonw_kv_str(w, "trigger", res->p.trigger == TRIGGER_IMPLICIT ?
			     "implicit" : "explicit");
		jsonw_kv_bool(w, "preserve", res->p.preserve);
		jsonw_kv_u64(w, "vcpus", res->p.vcpus);
		jsonw_kv_u64(w, "warmup", res->p.warmup);
		jsonw_kv_u64(w, "conversions_run", res->conversions);
		jsonw_kv_bool(w, "all_verified", !res->error[0]);
		jsonw_kv_bool(w, "interrupted", res->interrupted);
		jsonw_kv_str(w, "error", res->error[0] ? res->error : NULL);
		jsonw_kv_str(w, "shmem_thp", res->thp);
		jsonw_kv_u64(w, "tsc_khz", res->tsc_khz);
		jsonw_kv_double(w, "wall_s", res->wall_s);
		json_stats(w, "total_ns", v.total, v.n);
		json_stats(w, "first_access_ns", v.first, v.n);
		jsonw_key(w, "phases_p50_ns");
		jsonw_obj_open(w);
		jsonw_kv_double(w, "copy", median(v.copy, v.n));
		jsonw_kv_double(w, "exit_round_trip", median(v.exit_rt, v.n));
		jsonw_kv_double(w, "after_exit", median(v.fault_in, v.n));
		jsonw_kv_double(w, "host_handler", median(v.host, v.n));
		jsonw_kv_double(w, "host_record", median(v.record, v.n));
		jsonw_kv_double(w, "host_memory", median(v.mem, v.n));
		jsonw_kv_double(w, "host_release", median(v.release, v.n));
		jsonw_obj_close(w);
		jsonw_kv_double(w, "exits_per_conversion",
				v.n ? stats_mean(v.exits, v.n) : NAN);
		jsonw_obj_close(w);
		view_free(&v);
	}
}

static int write_summary_json(FILE *f, const struct report *r,
			      const struct cell_result *res, unsigned int n)
{
	struct jsonw w;
	unsigned int i, d;
	char sz[32];

	jsonw_init(&w, f);
	jsonw_obj_open(&w);
	jsonw_key(&w, "provenance");
	jsonw_obj_open(&w);
	provenance_write(&w, r->env);
	jsonw_obj_close(&w);
	jsonw_key(&w, "unavailable");
	jsonw_obj_open(&w);
	for (i = 0; i < r->nnotes; i++)
		jsonw_kv_str(&w, r->notes[i].what, r->notes[i].why);
	jsonw_obj_close(&w);
	jsonw_key(&w, "cells");
	jsonw_arr_open(&w);
	for (i = 0; i < n; i++)
		json_cell(&w, &res[i]);
	jsonw_arr_close(&w);
	jsonw_key(&w, "ratios_inplace_over_destructive");
	jsonw_arr_open(&w);
	for (i = 0; i < n; i++) {
		const struct cell_result *b;

		if (res[i].p.mode != MODE_DESTRUCTIVE)
			continue;
		b = peer(res, n, MODE_INPLACE, res[i].p.size);
		for (d = 0; b && d < DIR_NR; d++) {
			struct ratio q;

			if (!(res[i].p.dir_mask & (1u << d)) ||
			    ratio_of(&res[i], b, d, r->env->seed, &q))
				continue;
			jsonw_obj_open(&w);
			jsonw_kv_str(&w, "size",
				     size_str(res[i].p.size, sz, sizeof(sz)));
			jsonw_kv_str(&w, "direction", conv_dir_name(d));
			jsonw_kv_double(&w, "p50", q.p50);
			jsonw_kv_double(&w, "p50_ci95_lo", q.p50_lo);
			jsonw_kv_double(&w, "p50_ci95_hi", q.p50_hi);
			jsonw_kv_double(&w, "p99", q.p99);
			jsonw_kv_double(&w, "p99_ci95_lo", q.p99_lo);
			jsonw_kv_double(&w, "p99_ci95_hi", q.p99_hi);
			jsonw_kv_u64(&w, "n_inplace", q.nb);
			jsonw_kv_u64(&w, "n_destructive", q.na);
			jsonw_obj_close(&w);
		}
	}
	jsonw_arr_close(&w);
	jsonw_obj_close(&w);
	return jsonw_finish(&w) ? -EIO : 0;
}

static int write_text(FILE *f, const struct report *r,
		      const struct cell_result *res, unsigned int n)
{
	char line[512];
	unsigned int i, d;

	provenance_line(line, sizeof(line));
	fprintf(f, "convbench: %s\n", line);
	for (i = 0; i < n; i++)
		for (d = 0; d < DIR_NR; d++)
			if (res[i].p.dir_mask & (1u << d))
				print_dir(f, &res[i], d);
	print_ratios(f, r, res, n);
	return ferror(f) ? -EIO : 0;
}

typedef int (*writer_fn)(FILE *f, const struct report *r,
			 const struct cell_result *res, unsigned int n);

static int samples_writer(FILE *f, const struct report *r,
			  const struct cell_result *res, unsigned int n)
{
	(void)r;
	write_samples_csv(f, res, n);
	return ferror(f) ? -EIO : 0;
}

static int hist_writer(FILE *f, const struct report *r,
		       const struct cell_result *res, unsigned int n)
{
	(void)r;
	write_hist_csv(f, res, n);
	return ferror(f) ? -EIO : 0;
}

/* temp file + rename, never over an existing file */
static int write_file(const struct report *r, const char *name, writer_fn fn,
		      const struct cell_result *res, unsigned int n)
{
	struct atomic_file af;
	char path[4096];
	int err;

	snprintf(path, sizeof(path), "%s/%s", r->dir, name);
	err = atomic_file_open(path, 0, &af);
	if (err) {
		fprintf(stderr, "convbench: %s: %s\n", path, strerror(-err));
		return err;
	}
	err = fn(af.f, r, res, n);
	if (err) {
		atomic_file_abort(&af);
		fprintf(stderr, "convbench: %s: not written (%s)\n", path,
			strerror(-err));
		return err;
	}
	err = atomic_file_commit(&af);
	if (err)
		fprintf(stderr, "convbench: %s: %s\n", path, strerror(-err));
	return err;
}

int report_finish(struct report *r, const struct cell_result *res,
		  unsigned int n)
{
	int err = 0, e;

	switch (r->env->format) {
	case FORMAT_TEXT:
		print_ratios(r->out, r, res, n);
		break;
	case FORMAT_CSV:
		write_samples_csv(r->out, res, n);
		break;
	case FORMAT_JSON:
		write_summary_json(r->out, r, res, n);
		break;
	}
	fflush(r->out);
	if (!r->dir)
		return 0;
	e = write_file(r, "samples.csv", samples_writer, res, n);
	err = err ? err : e;
	e = write_file(r, "hist.csv", hist_writer, res, n);
	err = err ? err : e;
	e = write_file(r, "histograms.txt", write_text, res, n);
	err = err ? err : e;
	/* last: its presence says the run's files are complete */
	e = write_file(r, "summary.json", write_summary_json, res, n);
	return err ? err : e;
}

int report_write_file(struct report *r, const char *name,
		      int (*fn)(FILE *f, void *arg), void *arg)
{
	struct atomic_file af;
	char path[4096];
	int err;

	if (!r->dir)
		return 0;
	snprintf(path, sizeof(path), "%s/%s", r->dir, name);
	err = atomic_file_open(path, 0, &af);
	if (!err) {
		err = fn(af.f, arg);
		if (err)
			atomic_file_abort(&af);
		else
			err = atomic_file_commit(&af);
	}
	if (err)
		fprintf(stderr, "convbench: %s: %s\n", path, strerror(-err));
	return err;
}

void report_close(struct report *r)
{
	free(r->dir);
	r->dir = NULL;
}
