// SPDX-License-Identifier: GPL-2.0
/*
 * --workload=split's results: each event (a 2M range made whole, a
 * piece converted to shared, the rest of the range touched, the piece
 * converted back) with the work KVM and the kernel counted between the
 * marks around each part; events.csv, churn.json, a line per mode and
 * kind on stdout (churn_int.h)
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "churn_int.h"
#include "csvw.h"
#include "stats.h"
#include "units.h"

enum { EV_SPLIT, EV_REST, EV_UNIFORM, EV_NR };
static const char *const ev_name[EV_NR] = { "split", "rest", "uniform" };

/* one conversion of an event, with the work between its marks */
struct event_row {
	const struct cell_result *res;
	uint64_t event;
	unsigned int kind;
	uint64_t off;
	bool whole;		/* the range was 2M-mapped whole before the split */
	double ns;
	uint64_t host_exits;
	double exits, npt_faults, npt_fixed, d2m, d4k, splits, flushes;
	double merges;	/* the in-place merge back (thp_convert_merge) */
};

/* the marks of vCPU 0 by their number (--workload=split runs one) */
static const struct churn_mark *mark_idx(const struct churn_result *cr,
					 uint32_t idx)
{
	size_t i;

	for (i = 0; i < cr->nmarks; i++)
		if (cr->marks[i].idx == idx && !cr->marks[i].vcpu)
			return &cr->marks[i];
	return NULL;
}

static void row_work(struct event_row *e, const struct churn_mark *a,
		     const struct churn_mark *b)
{
	e->exits = (double)b->exits - a->exits;
	e->npt_faults = (double)b->pf_taken - a->pf_taken;
	e->npt_fixed = (double)b->pf_fixed - a->pf_fixed;
	e->d2m = (double)b->pages_2m - a->pages_2m;
	e->d4k = (double)b->pages_4k - a->pages_4k;
	e->splits = (double)b->thp_split - a->thp_split;
	e->flushes = (double)b->tlb_flush - a->tlb_flush;
	e->merges = (double)b->thp_merge - a->thp_merge;
}

/*
 * Every event of every cell: op 2e (split) between marks 4e+1 and 4e+2,
 * the rest of the range touched (rest) between 4e+2 and 4e+3, op 2e+1
 * (uniform) between 4e+3 and 4e+4. Returns the rows (malloc'd).
 */
static struct event_row *event_rows(const struct cell_result *res, size_t n,
				    size_t *nrows)
{
	struct event_row *rows;
	size_t i, j, total = 0, k = 0;

	for (i = 0; i < n; i++)
		if (res[i].churn)
			total += res[i].churn->nops;
	rows = calloc(total ? 2 * total : 1, sizeof(*rows));
	for (i = 0; rows && i < n; i++) {
		const struct churn_result *cr = res[i].churn;
		const struct churn_mark *base = cr ? mark_idx(cr, 0) : NULL;

		for (j = 0; base && j < cr->nops; j++) {
			const struct churn_sample *s = &cr->ops[j];
			uint64_t e = s->op / 2;
			const struct churn_mark *m[5];
			unsigned int q, kind = s->op % 2 ? EV_UNIFORM : EV_SPLIT;
			bool whole;

			for (q = 1; q < 5; q++)
				m[q] = mark_idx(cr, 4 * e + q);
			if (cr->ops_vcpu[j] || !m[1] || !m[2] || !m[3] || !m[4])
				continue;
			whole = (double)m[1]->pages_2m - base->pages_2m >=
				cr->p.range / (2ULL << 20);
			for (q = kind; q <= (kind == EV_SPLIT ? EV_REST : kind); q++) {
				struct event_row *r = &rows[k++];

				r->res = &res[i];
				r->event = e;
				r->kind = q;
				r->off = s->off;
				r->whole = whole;
				r->ns = tsc_ns(&res[i], q == EV_REST ? s->rest : s->total);
				r->host_exits = q == EV_REST ? 0 : cr->ops_exits[j];
				row_work(r, m[q + 1], m[q + 2]);
			}
		}
	}
	*nrows = k;
	return rows;
}

struct events_arg {
	const struct report *rep;
	const struct event_row *rows;
	size_t n;
};

static int write_events_csv(FILE *f, void *arg)
{
	const struct events_arg *a = arg;
	struct csvw w;
	size_t i;

	csvw_init(&w, f);
	fputs("mode,round,event,kind,offset,whole_before,total_ns,exits,"
	      "npt_faults,npt_fixed,pages_2m_delta,pages_4k_delta,thp_splits,"
	      "tlb_flush_requests,thp_merges\n", f);
	for (i = 0; i < a->n; i++) {
		const struct event_row *r = &a->rows[i];

		csvw_str(&w, churn_mode_name(&r->res->churn->p, r->res->p.mode));
		csvw_u64(&w, r->res->p.round);
		csvw_u64(&w, r->event);
		csvw_str(&w, ev_name[r->kind]);
		csvw_u64(&w, r->off);
		csvw_u64(&w, r->whole);
		csvw_double(&w, r->ns);
		csvw_double(&w, r->exits);
		csvw_double(&w, r->npt_faults);
		csvw_double(&w, r->npt_fixed);
		csvw_double(&w, r->d2m);
		csvw_double(&w, r->d4k);
		csvw_double(&w, r->splits);
		csvw_double(&w, r->flushes);
		csvw_double(&w, r->merges);
		csvw_end_row(&w);
	}
	return csvw_error(&w) || ferror(f) ? -EIO : 0;
}

/*
 * The events of mode m and kind k that count: after a whole range
 * (where the mode has any), else all of them (gmem: 4K throughout)
 */
static size_t event_pick(const struct events_arg *a, enum conv_mode m,
			 unsigned int k, bool *whole_only)
{
	size_t i, nw = 0;

	for (i = 0; i < a->n; i++)
		nw += a->rows[i].res->p.mode == m && a->rows[i].kind == k &&
		      a->rows[i].whole;
	*whole_only = nw > 0;
	return nw;
}

static bool event_in(const struct event_row *r, enum conv_mode m,
		     unsigned int k, bool whole_only)
{
	return r->res->p.mode == m && r->kind == k &&
	       (!whole_only || r->whole);
}

/* the median of a work field of the picked events */
static double event_median(const struct events_arg *a, enum conv_mode m,
			   unsigned int k, bool whole_only, size_t off,
			   double *tmp)
{
	size_t i, n = 0;
	double med = NAN;

	for (i = 0; i < a->n; i++)
		if (event_in(&a->rows[i], m, k, whole_only))
			tmp[n++] = *(const double *)((const char *)&a->rows[i] + off);
	stats_median(tmp, n, &med);
	return med;
}

static void json_events(struct jsonw *w, const struct events_arg *a,
			double *tmp)
{
	static const struct { const char *key; size_t off; } work[] = {
		{ "exits", offsetof(struct event_row, exits) },
		{ "npt_faults", offsetof(struct event_row, npt_faults) },
		{ "npt_fixed", offsetof(struct event_row, npt_fixed) },
		{ "pages_2m_delta", offsetof(struct event_row, d2m) },
		{ "pages_4k_delta", offsetof(struct event_row, d4k) },
		{ "thp_splits", offsetof(struct event_row, splits) },
		{ "tlb_flush_requests", offsetof(struct event_row, flushes) },
		{ "thp_merges", offsetof(struct event_row, merges) },
	};
	double p50[MAX_ROUNDS];
	unsigned int m, k, q;
	size_t i, j, n, all;
	bool whole_only;

	jsonw_key(w, "events");
	jsonw_arr_open(w);
	for (m = 0; m < MODE_NR; m++)
		for (k = 0; k < EV_NR; k++) {
			for (i = 0, all = 0; i < a->n; i++)
				all += a->rows[i].res->p.mode == m &&
				       a->rows[i].kind == k;
			if (!all)
				continue;
			n = event_pick(a, m, k, &whole_only);
			jsonw_obj_open(w);
			jsonw_kv_str(w, "mode", churn_mode_name(&a->rows[0].res->churn->p, m));
			jsonw_kv_str(w, "kind", ev_name[k]);
			jsonw_kv_u64(w, "events", all);
			jsonw_kv_u64(w, "after_whole_2m", n);
			jsonw_kv_bool(w, "counted_only_after_whole_2m", whole_only);
			/* per round: the p50 of its events; over rounds */
			for (q = 0, j = 0; q < MAX_ROUNDS; q++) {
				size_t c = 0;

				for (i = 0; i < a->n; i++)
					if (event_in(&a->rows[i], m, k, whole_only) &&
					    a->rows[i].res->p.round == q)
						tmp[c++] = a->rows[i].ns;
				if (c && !stats_median(tmp, c, &p50[j]))
					j++;
			}
			churn_json_over_rounds(w, "p50_ns", p50, j, true);
			jsonw_key(w, "work_median");
			jsonw_obj_open(w);
			for (q = 0; q < sizeof(work) / sizeof(work[0]); q++)
				jsonw_kv_double(w, work[q].key,
						event_median(a, m, k, whole_only,
							     work[q].off, tmp));
			jsonw_obj_close(w);
			jsonw_obj_close(w);
		}
	jsonw_arr_close(w);
}

static void print_events(FILE *f, const struct events_arg *a, double *tmp)
{
	unsigned int m, k;
	bool whole_only;
	double med;
	size_t i, n;

	for (m = 0; m < MODE_NR; m++)
		for (k = 0; k < EV_NR; k++) {
			for (i = 0, n = 0; i < a->n; i++)
				if (a->rows[i].res->p.mode == m && a->rows[i].kind == k)
					tmp[n++] = a->rows[i].ns;
			if (!n)
				continue;
			event_pick(a, m, k, &whole_only);
			med = event_median(a, m, k, whole_only,
					   offsetof(struct event_row, ns), tmp);
			fprintf(f, "%-13s %-7s p50 %8.1f us%s; per event: NPT faults %.0f, 2M entries %+.0f, 4K entries %+.0f, THP splits %.0f, merges %.0f, flush requests %.0f\n",
				churn_mode_name(&a->rows[0].res->churn->p, m), ev_name[k], med / 1000,
				whole_only ? "" : " (no whole 2M before)",
				event_median(a, m, k, whole_only, offsetof(struct event_row, npt_faults), tmp),
				event_median(a, m, k, whole_only, offsetof(struct event_row, d2m), tmp),
				event_median(a, m, k, whole_only, offsetof(struct event_row, d4k), tmp),
				event_median(a, m, k, whole_only, offsetof(struct event_row, splits), tmp),
				event_median(a, m, k, whole_only, offsetof(struct event_row, merges), tmp),
				event_median(a, m, k, whole_only, offsetof(struct event_row, flushes), tmp));
		}
}

struct ev_json_arg {
	struct events_arg ev;
	double *tmp;
};

static int write_events_json(FILE *f, void *arg)
{
	const struct ev_json_arg *a = arg;
	const struct env *env = a->ev.rep->env;
	struct jsonw w;
	char sz[32];

	churn_json_open(&w, f, env, "split");
	jsonw_kv_str(&w, "method", "events: the range punched out of the "
		     "private fd, allocated again and written (untimed: the "
		     "kernel allocates it afresh, huge where it can), then one "
		     "piece at a random offset converted to shared (split), "
		     "the rest of the range touched (rest: the faults the "
		     "split leaves for later) and the piece converted back "
		     "(uniform), each timed by the guest from its request to "
		     "the piece usable; its work is what KVM and the kernel "
		     "counted between the marks around it. Only events after "
		     "a whole 2M-mapped range count where a mode has any. p50: "
		     "per round, then geometric mean and t interval over rounds");
	jsonw_kv_u64(&w, "range_bytes", env->churn_p.range);
	jsonw_kv_str(&w, "piece", size_str(env->churn_p.size[0], sz, sizeof(sz)));
	jsonw_kv_u64(&w, "seed", env->seed);
	json_events(&w, &a->ev, a->tmp);
	return churn_json_close(&w);
}

/* --workload=split's results: events.csv, churn-ops.csv, churn.json */
int churn_events_report(struct report *rep, const struct cell_result *res,
			size_t n, const struct series_arg *ops)
{
	struct ev_json_arg ja = { { rep, NULL, 0 }, ops->tmp };
	int r = 0, e;

	ja.ev.rows = event_rows(res, n, &ja.ev.n);
	if (!ja.ev.rows)
		return -ENOMEM;
	print_events(rep->out, &ja.ev, ops->tmp);
	if (rep->dir) {
		e = report_write_file(rep, "events.csv", write_events_csv, &ja.ev);
		r = r ? r : e;
		e = report_write_file(rep, "churn-ops.csv", churn_write_ops,
				      (void *)ops);
		r = r ? r : e;
		e = report_write_file(rep, "churn.json", write_events_json, &ja);
		r = r ? r : e;
	}
	free((void *)ja.ev.rows);
	return r;
}
