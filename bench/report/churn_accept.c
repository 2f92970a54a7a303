// SPDX-License-Identifier: GPL-2.0
/*
 * --workload=accept's results: per cell (mode, chunk size, round) the
 * two sweeps, accept (to private chunk by chunk) and pool (back to
 * shared), as time, exits and NPT faults per MiB; accept.csv,
 * churn.json, a line per sweep on stdout (churn_int.h)
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "churn_int.h"
#include "csvw.h"
#include "stats.h"
#include "units.h"

enum { SW_ACCEPT, SW_POOL, SW_NR };
static const char *const sw_name[SW_NR] = { "accept", "pool" };

/* one sweep of one cell */
struct sweep_row {
	const struct cell_result *res;
	uint64_t chunk;
	unsigned int sweep;
	uint64_t chunks;	/* conversions, every vCPU's */
	double ms;		/* their latencies summed */
	double p50_ns;
	double mib;		/* converted: the ranges */
	double exits, faults;	/* userspace exits; NPT faults (KVM) */
};

static struct sweep_row *sweep_rows(const struct cell_result *res, size_t n,
				    double *tmp, size_t *nrows)
{
	struct sweep_row *rows = calloc(2 * n + 1, sizeof(*rows));
	size_t i, j, k = 0, c;
	unsigned int sw, v;

	for (i = 0; rows && i < n; i++) {
		const struct churn_result *cr = res[i].churn;
		uint64_t per;

		if (!cr || !cr->p.accept)
			continue;
		per = cr->p.range / cr->p.size[0];
		for (sw = 0; sw < SW_NR; sw++) {
			struct sweep_row *r = &rows[k++];

			r->res = &res[i];
			r->chunk = cr->p.size[0];
			r->sweep = sw;
			r->mib = (double)cr->p.range * res[i].p.vcpus / (1 << 20);
			for (j = 0, c = 0; j < cr->nops; j++) {
				uint64_t op = cr->ops[j].op;

				if (op < 1 + sw * per || op >= 1 + (sw + 1) * per)
					continue;
				tmp[c++] = tsc_ns(&res[i], cr->ops[j].total);
				r->ms += tmp[c - 1] / 1e6;
				r->exits += cr->ops_exits[j];
			}
			r->chunks = c;
			r->p50_ns = NAN;
			stats_median(tmp, c, &r->p50_ns);
			/* NPT faults between the sweep's marks, each vCPU's */
			for (v = 0; v < res[i].p.vcpus; v++) {
				const struct churn_mark *a = NULL, *b = NULL;

				for (j = 0; j < cr->nmarks; j++) {
					if (cr->marks[j].vcpu != v)
						continue;
					if (cr->marks[j].idx == 1 + sw)
						a = &cr->marks[j];
					if (cr->marks[j].idx == 2 + sw)
						b = &cr->marks[j];
				}
				if (a && b)
					r->faults += (double)b->pf_taken - a->pf_taken;
				else
					r->faults = NAN;
			}
		}
	}
	*nrows = k;
	return rows;
}

struct sweeps_arg {
	const struct report *rep;
	const struct sweep_row *rows;
	size_t n;
};

static int write_accept_csv(FILE *f, void *arg)
{
	const struct sweeps_arg *a = arg;
	struct csvw w;
	size_t i;

	csvw_init(&w, f);
	fputs("mode,round,chunk_bytes,sweep,conversions,ms,ms_per_mib,"
	      "exits_per_mib,npt_faults_per_mib,p50_ns\n", f);
	for (i = 0; i < a->n; i++) {
		const struct sweep_row *r = &a->rows[i];

		csvw_str(&w, conv_mode_name(r->res->p.mode));
		csvw_u64(&w, r->res->p.round);
		csvw_u64(&w, r->chunk);
		csvw_str(&w, sw_name[r->sweep]);
		csvw_u64(&w, r->chunks);
		csvw_double(&w, r->ms);
		csvw_double(&w, r->ms / r->mib);
		csvw_double(&w, r->exits / r->mib);
		csvw_double(&w, r->faults / r->mib);
		csvw_double(&w, r->p50_ns);
		csvw_end_row(&w);
	}
	return csvw_error(&w) || ferror(f) ? -EIO : 0;
}

/* a field of the sweeps of (mode, chunk, sweep), over rounds */
static void json_sweep_value(struct jsonw *w, const struct sweeps_arg *a,
			     const struct sweep_row *like, const char *key,
			     double (*of)(const struct sweep_row *), bool geo)
{
	double v[MAX_ROUNDS];
	size_t i, n = 0;

	for (i = 0; i < a->n && n < MAX_ROUNDS; i++)
		if (a->rows[i].res->p.mode == like->res->p.mode &&
		    a->rows[i].chunk == like->chunk &&
		    a->rows[i].sweep == like->sweep)
			v[n++] = of(&a->rows[i]);
	churn_json_over_rounds(w, key, v, n, geo);
}

static double sw_ms_mib(const struct sweep_row *r) { return r->ms / r->mib; }
static double sw_exits_mib(const struct sweep_row *r) { return r->exits / r->mib; }
static double sw_faults_mib(const struct sweep_row *r) { return r->faults / r->mib; }
static double sw_p50(const struct sweep_row *r) { return r->p50_ns; }

static int write_accept_json(FILE *f, void *arg)
{
	const struct sweeps_arg *a = arg;
	const struct env *env = a->rep->env;
	struct jsonw w;
	char sz[32];
	size_t i, j;

	churn_json_open(&w, f, env, "accept");
	jsonw_kv_str(&w, "method", "a cell per chunk size (a fresh VM): the "
		     "range made shared (untimed), then private chunk by chunk "
		     "(accept: a guest accepting its memory at boot), then "
		     "shared chunk by chunk (pool: a swiotlb pool set up); each "
		     "conversion timed by the guest until its chunk is written "
		     "(zeroes expected: the content need not survive). Per "
		     "MiB: the sweep's summed latencies, userspace exits and "
		     "KVM's NPT faults over the range; over rounds: mean and t "
		     "interval, geometric for ms per MiB and the p50 of one "
		     "chunk's conversion");
	jsonw_kv_u64(&w, "range_bytes", env->churn_p.range);
	jsonw_kv_u64(&w, "vcpus", env->vcpus);
	jsonw_key(&w, "sweeps");
	jsonw_arr_open(&w);
	for (i = 0; i < a->n; i++) {
		const struct sweep_row *r = &a->rows[i];

		/* once per (mode, chunk, sweep): its first row */
		for (j = 0; j < i; j++)
			if (a->rows[j].res->p.mode == r->res->p.mode &&
			    a->rows[j].chunk == r->chunk &&
			    a->rows[j].sweep == r->sweep)
				break;
		if (j < i)
			continue;
		jsonw_obj_open(&w);
		jsonw_kv_str(&w, "mode", conv_mode_name(r->res->p.mode));
		jsonw_kv_str(&w, "chunk", size_str(r->chunk, sz, sizeof(sz)));
		jsonw_kv_u64(&w, "chunk_bytes", r->chunk);
		jsonw_kv_str(&w, "sweep", sw_name[r->sweep]);
		jsonw_kv_u64(&w, "conversions", r->chunks);
		/* a positive quantity: its interval on the log scale */
		json_sweep_value(&w, a, r, "ms_per_mib", sw_ms_mib, true);
		json_sweep_value(&w, a, r, "exits_per_mib", sw_exits_mib, false);
		json_sweep_value(&w, a, r, "npt_faults_per_mib", sw_faults_mib, false);
		json_sweep_value(&w, a, r, "p50_ns", sw_p50, true);
		jsonw_obj_close(&w);
	}
	jsonw_arr_close(&w);
	return churn_json_close(&w);
}

static void print_sweeps(FILE *f, const struct sweeps_arg *a)
{
	char sz[32];
	size_t i;

	for (i = 0; i < a->n; i++) {
		const struct sweep_row *r = &a->rows[i];

		fprintf(f, "%-11s round %u, %-4s chunks, %-6s: %8.2f ms/MiB, %7.1f exits/MiB, %7.1f NPT faults/MiB, p50 %.1f us\n",
			conv_mode_name(r->res->p.mode), r->res->p.round,
			size_str(r->chunk, sz, sizeof(sz)), sw_name[r->sweep],
			r->ms / r->mib, r->exits / r->mib, r->faults / r->mib,
			r->p50_ns / 1000);
	}
}

/* --workload=accept's results: accept.csv, churn-ops.csv, churn.json */
int churn_accept_report(struct report *rep, const struct cell_result *res,
			size_t n, const struct series_arg *ops)
{
	struct sweeps_arg sa = { rep, NULL, 0 };
	int r = 0, e;

	sa.rows = sweep_rows(res, n, ops->tmp, &sa.n);
	if (!sa.rows)
		return -ENOMEM;
	print_sweeps(rep->out, &sa);
	if (rep->dir) {
		e = report_write_file(rep, "accept.csv", write_accept_csv, &sa);
		r = r ? r : e;
		e = report_write_file(rep, "churn-ops.csv", churn_write_ops,
				      (void *)ops);
		r = r ? r : e;
		e = report_write_file(rep, "churn.json", write_accept_json, &sa);
		r = r ? r : e;
	}
	free((void *)sa.rows);
	return r;
}
