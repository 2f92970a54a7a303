// SPDX-License-Identifier: GPL-2.0
/*
 * convbench's output. Latencies are in ns (TSC deltas over
 * KVM_GET_TSC_KHZ). Every number comes from bench/report/cellstats.c; the
 * histograms are log2 with sub-buckets, printed funclatency-style.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "atomic_file.h"
#include "hist.h"
#include "history.h"
#include "hlog.h"
#include "provenance.h"
#include "report.h"
#include "samples.h"
#include "stats.h"
#include "units.h"

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

int report_claim_dir(const char *dir)
{
	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "convbench: --out=%s: cannot create: %s\n",
			dir, strerror(errno));
		return 2;
	}
	if (!dir_is_empty(dir)) {
		fprintf(stderr, "convbench: --out=%s: not an empty directory; "
			"refusing to overwrite an earlier run\n", dir);
		return 2;
	}
	return 0;
}

int report_open(struct report *r, const struct env *env)
{
	int ret;

	memset(r, 0, sizeof(*r));
	r->env = env;
	r->out = stdout;
	r->order_seed = env->order_seed;
	if (!env->out_dir)
		return 0;
	ret = report_claim_dir(env->out_dir);
	if (ret)
		return ret;
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

void report_add(struct report *r, const struct report_extra *e)
{
	if (r->nextra < REPORT_MAX_EXTRA)
		r->extra[r->nextra++] = *e;
}

static double median_u64(const struct cell_result *res, unsigned int dir,
			 size_t off, double *tmp)
{
	size_t i, n = 0;

	for (i = 0; i < res->n; i++)
		if (res->samples[i].dir == dir)
			tmp[n++] = tsc_ns(res, *(const uint64_t *)
					  ((const char *)&res->samples[i] + off));
	return n ? stats_select_percentile(tmp, n, 50) : NAN;
}

/* one round's cell and direction, as soon as it ends */
static void print_dir(FILE *f, const struct cell_result *res, unsigned int d)
{
	struct stats_summary s;
	struct hist h;
	double *v, *tmp;
	size_t i, n = 0;
	char sz[32];

	v = calloc(res->n ? 2 * res->n : 1, sizeof(*v));
	if (!v)
		return;
	tmp = v + res->n;
	for (i = 0; i < res->n; i++)
		if (res->samples[i].dir == d)
			v[n++] = tsc_ns(res, res->samples[i].total);
	size_str(res->p.size, sz, sizeof(sz));
	if (!n) {
		fprintf(f, "\n%s %s %s: no samples (round %u)\n",
			conv_mode_name(res->p.mode), sz, conv_dir_name(d),
			res->p.round);
		free(v);
		return;
	}
	fprintf(f, "\n%s %s %s (%s, %s, %u vCPU%s): %zu conversions, all "
		"verified (round %u)\n", conv_mode_name(res->p.mode), sz,
		conv_dir_name(d), res->p.trigger == TRIGGER_IMPLICIT ?
		"implicit" : "explicit",
		res->p.preserve ? "preserve" : "no-preserve", res->p.vcpus,
		res->p.vcpus > 1 ? "s" : "", n, res->p.round);
	hist_init(&h, HIST_SUB_BITS_DEFAULT);
	for (i = 0; i < n; i++)
		hist_add(&h, (uint64_t)llround(v[i]));
	hist_print_log2(f, &h, "nsecs");
	stats_summary(v, n, &s);
	fprintf(f, "n %zu  mean %.0f  p50 %.0f  p90 %.0f  p99 %.0f  max %.0f ns\n",
		s.n, s.mean, s.p50, s.p90, s.p99, s.max);
#define MED(field) median_u64(res, d, offsetof(struct conv_sample, field), tmp)
	fprintf(f, "median phases (ns): copy %.0f, exit round trip %.0f "
		"(host handler %.0f: record %.0f, memory %.0f, release %.0f), "
		"after exit %.0f\n", MED(copy), MED(exit_rt), MED(host),
		MED(host_record), MED(host_mem), MED(host_release),
		MED(fault_in));
#undef MED
	if (res->cal_n[CAL_NULL_EXIT] || res->cal_n[CAL_NPT_FAULT])
		fprintf(f, "fixed costs of this VM (ns, median): null exit "
			"%.0f (n %u), NPT fault %.0f (n %u)\n",
			res->cal_ns[CAL_NULL_EXIT], res->cal_n[CAL_NULL_EXIT],
			res->cal_ns[CAL_NPT_FAULT], res->cal_n[CAL_NPT_FAULT]);
	free(v);
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
	size_str(res->p.size, sz, sizeof(sz));
	if (res->error[0])
		fprintf(r->out, "%s %s: FAILED: %s\n",
			conv_mode_name(res->p.mode), sz, res->error);
	if (res->interrupted)
		fprintf(r->out, "%s %s: interrupted by a signal after %llu "
			"conversions; the verified ones are kept\n",
			conv_mode_name(res->p.mode), sz,
			(unsigned long long)res->conversions);
	fflush(r->out);
}

/* "123.4 (456 beyond)" style cells of the pooled table */
static void print_pooled(FILE *f, const struct run_stats *rs)
{
	size_t i;
	char sz[32];

	if (!rs->ncells)
		return;
	fprintf(f, "\nall rounds pooled, ns (in brackets: samples beyond "
		"the percentile; p50 95%% CI: t over the rounds' p50s):\n");
	for (i = 0; i < rs->ncells; i++) {
		const struct cell_stats *c = &rs->cells[i];

		fprintf(f, "  %-11s %-4s %-10s n %zu in %u round%s  p50 %.0f",
			conv_mode_name(c->mode),
			size_str(c->size, sz, sizeof(sz)), conv_dir_name(c->dir),
			c->n, c->nrounds, c->nrounds == 1 ? "" : "s",
			c->pct[CS_P50]);
		if (!isnan(c->p50_lo))
			fprintf(f, " (%.0f..%.0f)", c->p50_lo, c->p50_hi);
		fprintf(f, " [%zu]  p90 %.0f [%zu]  p99 %.0f [%zu]",
			c->beyond[CS_P50], c->pct[CS_P90], c->beyond[CS_P90],
			c->pct[CS_P99], c->beyond[CS_P99]);
		if (!isnan(c->fixed_ns))
			fprintf(f, "  fixed %.0f", c->fixed_ns);
		fprintf(f, "\n");
	}
}

void report_print_ratios(FILE *f, const struct run_stats *rs)
{
	report_print_ratio_list(f, rs->ratios, rs->nratios);
}

/* the p50 ratio less the emulator's fixed costs, where they are known */
static void print_norm(FILE *f, const struct ratio_pct *x)
{
	if (!x->nrounds)
		return;
	fprintf(f, "  %-4s %-10s p50 less fixed costs %.3f", "", "", x->ratio);
	if (isnan(x->lo))
		fprintf(f, " (CI n/a: %u round)\n", x->nrounds);
	else
		fprintf(f, " (%.3f..%.3f)\n", x->lo, x->hi);
}

void report_print_ratio_list(FILE *f, const struct ratio_stats *ratios,
			     size_t n)
{
	unsigned int p, k;
	size_t i;
	char sz[32];

	if (!n)
		return;
	fprintf(f, "\n%s/%s over rounds (geometric mean of the "
		"per-round ratios; 95%% CI of this run's ratio from its own "
		"rounds, a drift along the run and the round's parity "
		"fitted; joint: all %u p50 ratios at once; a tail ratio only "
		"where >= %d samples lie beyond it in each mode):\n",
		conv_mode_name(ratios[0].num), conv_mode_name(ratios[0].den),
		ratios[0].pct[CS_P50].family, STATS_TAIL_MIN);
	for (i = 0; i < n; i++) {
		const struct ratio_stats *q = &ratios[i];

		for (p = 0; p < CS_NPCT; p++) {
			const struct ratio_pct *x = &q->pct[p];

			fprintf(f, "  %-4s %-10s %s ",
				p ? "" : size_str(q->size, sz, sizeof(sz)),
				p ? "" : conv_dir_name(q->dir),
				cs_pct_name[p]);
			if (!x->shown) {
				fprintf(f, "not shown: %zu/%zu samples beyond "
					"(%s/%s), fewer than %d\n",
					x->beyond_in, x->beyond_de,
					conv_mode_name(q->num),
					conv_mode_name(q->den), STATS_TAIL_MIN);
				continue;
			}
			fprintf(f, "%.3f", x->ratio);
			if (isnan(x->lo))
				fprintf(f, " (CI n/a: %u round)", x->nrounds);
			else
				fprintf(f, " (%.3f..%.3f, joint %.3f..%.3f)",
					x->lo, x->hi, x->jlo, x->jhi);
			fprintf(f, "  rounds");
			for (k = 0; k < x->nrounds; k++)
				fprintf(f, " %.3f", x->per_round[k]);
			if (x->nearlier)
				fprintf(f, "  earlier runs (in no CI)");
			for (k = 0; k < x->nearlier; k++)
				fprintf(f, " %.3f", x->earlier[k]);
			fprintf(f, "\n");
		}
		print_norm(f, &q->norm);
	}
}

static void print_summary_text(FILE *f, const struct report *r,
			       const struct run_stats *rs)
{
	unsigned int i;

	print_pooled(f, rs);
	report_print_ratios(f, rs);
	for (i = 0; i < r->nextra; i++)
		if (r->extra[i].text)
			r->extra[i].text(f, r->extra[i].arg);
	fflush(f);
}

struct file_job {
	const struct report *r;
	const struct run_stats *rs;
	const struct cell_result *res;
	size_t n;
};

static int samples_writer(FILE *f, void *arg)
{
	struct file_job *j = arg;

	return samples_write_csv(f, j->res, j->n);
}

static int hlog_writer(FILE *f, void *arg)
{
	struct file_job *j = arg;

	return latencies_write_hlog(f, j->res, j->n);
}

static int hist_writer(FILE *f, void *arg)
{
	struct file_job *j = arg;

	return hist_write_csv_cells(f, j->rs);
}

static int text_writer(FILE *f, void *arg)
{
	struct file_job *j = arg;
	char line[512];
	unsigned int d;
	size_t i;

	provenance_line(line, sizeof(line));
	fprintf(f, "convbench: %s\n", line);
	for (i = 0; i < j->n; i++)
		for (d = 0; d < DIR_NR; d++)
			if (j->res[i].p.dir_mask & (1u << d))
				print_dir(f, &j->res[i], d);
	print_summary_text(f, j->r, j->rs);
	return ferror(f) ? -EIO : 0;
}

static int summary_writer(FILE *f, void *arg)
{
	struct file_job *j = arg;

	return summary_write(f, j->r, j->rs);
}

int report_finish(struct report *r, const struct cell_result *res,
		  size_t n)
{
	struct file_job job = { .r = r, .res = res, .n = n };
	struct run_stats rs;
	int err = 0, e;

	err = run_stats_build(res, n, &rs);
	if (!err)
		run_stats_bands(&rs);
	if (err) {
		fprintf(stderr, "convbench: statistics: %s\n", strerror(-err));
		return err;
	}
	job.rs = &rs;
	ratio_stats_family(rs.ratios, rs.nratios,
			   r->family ? r->family : (unsigned int)rs.nratios,
			   false);
	history_list(r->history, HIST_INPLACE_DE, rs.ratios, rs.nratios);
	switch (r->env->format) {
	case FORMAT_TEXT:
		print_summary_text(r->out, r, &rs);
		break;
	case FORMAT_CSV:
		samples_write_csv(r->out, res, n);
		break;
	case FORMAT_JSON:
		summary_write(r->out, r, &rs);
		break;
	}
	fflush(r->out);
	if (r->dir) {
		e = report_write_file(r, "samples.csv", samples_writer, &job);
		err = err ? err : e;
		e = report_write_file(r, "hist.csv", hist_writer, &job);
		err = err ? err : e;
		e = report_write_file(r, "latencies.hlog", hlog_writer, &job);
		err = err ? err : e;
		e = report_write_file(r, "histograms.txt", text_writer, &job);
		err = err ? err : e;
		/* last: its presence says the run's files are complete */
		e = report_write_file(r, "summary.json", summary_writer, &job);
		err = err ? err : e;
	}
	run_stats_free(&rs);
	return err;
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
