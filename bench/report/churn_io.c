// SPDX-License-Identifier: GPL-2.0
/*
 * --workload=io's results: per cell (mode, round), strategy (bounce,
 * share) and request size: the requests' p50 and p99, requests/s and
 * MB/s, and the work per request (userspace exits, NPT faults, TLB
 * flush requests from the marks around the strategy's blocks, and with
 * --counts pages zeroed, allocated and freed and IPIs, the BPF counters
 * read at the same marks; bytes the guest copied, pages converted);
 * over rounds the share/bounce
 * ratio of p50 with its interval, raw and less the exits (each at the
 * cell's own null exit), and the crossover: the smallest size at which
 * sharing in place beats bouncing. io.csv, churn.json, a table on
 * stdout (churn_int.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "churn_int.h"
#include "csvw.h"
#include "stats.h"
#include "units.h"
#include "work_counts.h"

static const char *const io_name[GUEST_IO_NR] = { "bounce", "share" };

/* one strategy at one size in one cell */
struct io_row {
	const struct cell_result *res;
	unsigned int cls;
	uint32_t t;		/* GUEST_IO_* */
	uint64_t size;
	size_t n;
	double p50, p99, mean;	/* ns */
	double null_ns;		/* the cell's null exit (median) */
	uint64_t reqs;		/* requests between the blocks' marks */
	/* summed over those: exits to userspace, all exits (but interrupts'), NPT faults, TLB flush requests */
	double exits, vm_exits, faults, flushes;
	/* --counts: the BPF work counters, summed likewise (cell_types.h) */
	double work[CHURN_WORK_NR];
	bool have_work[CHURN_WORK_NR], miss_work[CHURN_WORK_NR];
	double copied, converted;	/* per request (the guest's counts) */
};

static double per_req(double v, uint64_t reqs)
{
	return reqs ? v / reqs : NAN;
}

/* p50 less the request's exits, each at the cell's null exit */
static double norm_p50(const struct io_row *r)
{
	return r->p50 - per_req(r->exits, r->reqs) * r->null_ns;
}

/* the conversion workload's name of each io work count (work_counts.h) */
static const enum work_count io_wc[CHURN_WORK_NR] = {
	[CHURN_WORK_ZEROED] = WC_PAGES_ZEROED,
	[CHURN_WORK_ALLOC] = WC_PAGES_ALLOC,
	[CHURN_WORK_FREED] = WC_PAGES_FREED,
	[CHURN_WORK_IPIS] = WC_IPIS,
};

/*
 * --counts: a block's BPF work counts, when both its marks read them
 * (a counter one mark lacks leaves the row uncounted), and not where
 * the counters are blind to the mode's work (work_blind(): gmem's pages
 * freed and zeroed, of which they would show only the shared side's)
 */
static void io_counted(struct io_row *r, const struct churn_mark *a,
		       const struct churn_mark *b)
{
	unsigned int i;

	for (i = 0; i < CHURN_WORK_NR; i++) {
		if (!a->have_work[i] || !b->have_work[i] ||
		    work_blind(r->res->p.mode, io_wc[i]))
			r->miss_work[i] = true;
		else
			r->work[i] += (double)b->work[i] - a->work[i];
		r->have_work[i] = !r->miss_work[i];
	}
}

/* the work between a vCPU's marks, added to the row of their block */
static void io_work(struct io_row *rows, size_t nrows,
		    const struct cell_result *res)
{
	const struct churn_result *cr = res->churn;
	size_t i, j, k, base;
	unsigned int v;

	for (v = 0; v < res->p.vcpus; v++) {
		/* vCPU v's samples: in op order from base */
		for (base = 0; base < cr->nops && cr->ops_vcpu[base] != v; base++)
			;
		for (i = 0; i < cr->nmarks; i++) {
			const struct churn_mark *a = &cr->marks[i], *b = NULL;
			const struct churn_sample *s;

			if (a->vcpu != v || !a->idx)
				continue;
			for (j = i + 1; j < cr->nmarks && !b; j++)
				if (cr->marks[j].vcpu == v &&
				    cr->marks[j].idx == a->idx + 1)
					b = &cr->marks[j];
			if (!b || b->op <= a->op || base + a->op >= cr->nops)
				continue;
			s = &cr->ops[base + a->op];
			if (cr->ops_vcpu[base + a->op] != v || s->op != a->op)
				continue;
			for (k = 0; k < nrows; k++) {
				struct io_row *r = &rows[k];

				if (r->res != res || r->cls != s->cls ||
				    r->t != s->dir)
					continue;
				r->reqs += b->op - a->op;
				/* the later mark's own exit is not the block's */
				r->exits += (double)b->uexits - a->uexits - 1;
				r->vm_exits += (double)b->exits - a->exits - 1;
				r->faults += (double)b->pf_taken - a->pf_taken;
				r->flushes += (double)b->tlb_flush - a->tlb_flush;
				io_counted(r, a, b);
			}
		}
	}
}

static struct io_row *io_rows(const struct cell_result *res, size_t n,
			      double *tmp, size_t *nrows)
{
	struct io_row *rows;
	size_t i, j, k = 0, c, most = 0;
	unsigned int cls, t;

	for (i = 0; i < n; i++)
		if (res[i].churn && res[i].churn->p.io)
			most += GUEST_IO_NR * res[i].churn->p.nclasses;
	rows = calloc(most + 1, sizeof(*rows));
	for (i = 0; rows && i < n; i++) {
		const struct churn_result *cr = res[i].churn;
		double null_ns = NAN, nul[VM_MAX_VCPUS * GUEST_CAL_N];
		size_t first = k;

		if (!cr || !cr->p.io)
			continue;
		for (j = 0; j < cr->nnull; j++)
			nul[j] = tsc_ns(&res[i], cr->null_tsc[j]);
		stats_median(nul, cr->nnull, &null_ns);
		for (cls = 0; cls < cr->p.nclasses; cls++) {
			for (t = 0; t < GUEST_IO_NR; t++) {
				struct io_row *r = &rows[k++];

				*r = (struct io_row) {
					.res = &res[i], .cls = cls, .t = t,
					.size = cr->p.size[cls],
					.null_ns = null_ns,
					.p50 = NAN, .p99 = NAN, .mean = NAN,
				};
				for (j = 0, c = 0; j < cr->nops; j++) {
					if (cr->ops[j].cls != cls ||
					    cr->ops[j].dir != t)
						continue;
					tmp[c++] = tsc_ns(&res[i], cr->ops[j].total);
					r->copied += cr->ops[j].copied;
					r->converted += cr->ops[j].converted;
				}
				r->n = c;
				r->copied = per_req(r->copied, c);
				r->converted = per_req(r->converted, c);
				r->mean = stats_mean(tmp, c);
				stats_percentile(tmp, c, 50, &r->p50);
				stats_percentile(tmp, c, 99, &r->p99);
			}
		}
		io_work(rows + first, k - first, &res[i]);
	}
	*nrows = k;
	return rows;
}

/* a BPF work count per request; NaN when not counted (no --counts) */
static double of_work(const struct io_row *r, enum churn_work i)
{
	return r->have_work[i] ? per_req(r->work[i], r->reqs) : NAN;
}

struct io_arg {
	const struct report *rep;
	const struct io_row *rows;
	size_t n;
};

static int write_io_csv(FILE *f, void *arg)
{
	const struct io_arg *a = arg;
	struct csvw w;
	size_t i;

	csvw_init(&w, f);
	fputs("mode,round,strategy,size_bytes,requests,p50_ns,p99_ns,mean_ns,"
	      "requests_per_s,mb_per_s,exits_per_request,vm_exits_per_request,"
	      "npt_faults_per_request,tlb_flushes_per_request,"
	      "copied_bytes_per_request,converted_pages_per_request,"
	      "null_exit_ns,p50_less_exits_ns,pages_zeroed_per_request,"
	      "pages_allocated_per_request,pages_freed_per_request,"
	      "ipis_per_request\n", f);
	for (i = 0; i < a->n; i++) {
		const struct io_row *r = &a->rows[i];

		csvw_str(&w, conv_mode_name(r->res->p.mode));
		csvw_u64(&w, r->res->p.round);
		csvw_str(&w, io_name[r->t]);
		csvw_u64(&w, r->size);
		csvw_u64(&w, r->n);
		csvw_double(&w, r->p50);
		csvw_double(&w, r->p99);
		csvw_double(&w, r->mean);
		csvw_double(&w, 1e9 / r->mean);
		csvw_double(&w, r->size / r->mean * 1e3);
		csvw_double(&w, per_req(r->exits, r->reqs));
		csvw_double(&w, per_req(r->vm_exits, r->reqs));
		csvw_double(&w, per_req(r->faults, r->reqs));
		csvw_double(&w, per_req(r->flushes, r->reqs));
		csvw_double(&w, r->copied);
		csvw_double(&w, r->converted);
		csvw_double(&w, r->null_ns);
		csvw_double(&w, norm_p50(r));
		csvw_double(&w, of_work(r, CHURN_WORK_ZEROED));
		csvw_double(&w, of_work(r, CHURN_WORK_ALLOC));
		csvw_double(&w, of_work(r, CHURN_WORK_FREED));
		csvw_double(&w, of_work(r, CHURN_WORK_IPIS));
		csvw_end_row(&w);
	}
	return csvw_error(&w) || ferror(f) ? -EIO : 0;
}

/*
 * v[] of every round of (mode, size): of() of strategy t's row, or with
 * ratio the share row's over the bounce row's of the same cell; how many
 */
static size_t io_values(const struct io_arg *a, enum conv_mode mode,
			uint64_t size, int t, bool ratio,
			double (*of)(const struct io_row *), double *v)
{
	size_t i, j, n = 0;

	for (i = 0; i < a->n && n < MAX_ROUNDS; i++) {
		const struct io_row *r = &a->rows[i];

		if (r->res->p.mode != mode || r->size != size ||
		    r->t != (uint32_t)(ratio ? GUEST_IO_SHARE : t))
			continue;
		if (!ratio) {
			v[n++] = of(r);
			continue;
		}
		for (j = 0; j < a->n; j++)
			if (a->rows[j].res == r->res && a->rows[j].size == size &&
			    a->rows[j].t == GUEST_IO_BOUNCE)
				break;
		if (j < a->n)
			v[n++] = of(r) / of(&a->rows[j]);
	}
	return n;
}

/* over rounds: the geometric mean and its t interval (NaN: none) */
struct io_over {
	double m, lo, hi;
	size_t rounds;
};

static struct io_over io_over_rounds(const struct io_arg *a, enum conv_mode mode,
				     uint64_t size, int t, bool ratio,
				     double (*of)(const struct io_row *))
{
	double v[MAX_ROUNDS];
	struct io_over o = { NAN, NAN, NAN, 0 };
	size_t n = io_values(a, mode, size, t, ratio, of, v);

	if (!stats_ratio_rounds(v, n, 0.95, &o.m, &o.lo, &o.hi))
		o.rounds = n;
	return o;
}

/* a count's arithmetic mean over rounds (NaN without a row) */
static double io_mean(const struct io_arg *a, enum conv_mode m, uint64_t size,
		      int t, double (*of)(const struct io_row *))
{
	double v[MAX_ROUNDS];
	size_t n = io_values(a, m, size, t, false, of, v);

	return stats_mean(v, n);
}

/* KEY: over rounds, geometric (a time, a ratio) or arithmetic (a count) */
static void json_rounds(struct jsonw *w, const struct io_arg *a,
			enum conv_mode m, uint64_t size, int t, bool ratio,
			const char *key, double (*of)(const struct io_row *),
			bool geometric)
{
	double v[MAX_ROUNDS];
	size_t n = io_values(a, m, size, t, ratio, of, v);

	churn_json_over_rounds(w, key, v, n, geometric);
}

static double of_p50(const struct io_row *r) { return r->p50; }
static double of_p99(const struct io_row *r) { return r->p99; }
static double of_norm(const struct io_row *r) { return norm_p50(r); }
static double of_mbs(const struct io_row *r) { return r->size / r->mean * 1e3; }
static double of_exits(const struct io_row *r) { return per_req(r->exits, r->reqs); }
static double of_vm_exits(const struct io_row *r) { return per_req(r->vm_exits, r->reqs); }
static double of_faults(const struct io_row *r) { return per_req(r->faults, r->reqs); }
static double of_flushes(const struct io_row *r) { return per_req(r->flushes, r->reqs); }
static double of_copied(const struct io_row *r) { return r->copied; }
static double of_zeroed(const struct io_row *r) { return of_work(r, CHURN_WORK_ZEROED); }
static double of_alloc(const struct io_row *r) { return of_work(r, CHURN_WORK_ALLOC); }
static double of_freed(const struct io_row *r) { return of_work(r, CHURN_WORK_FREED); }
static double of_ipis(const struct io_row *r) { return of_work(r, CHURN_WORK_IPIS); }

/* --counts: whether any row has the BPF work counts */
static bool io_counted_any(const struct io_arg *a)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		if (a->rows[i].have_work[CHURN_WORK_ALLOC])
			return true;
	return false;
}

/* the sizes of the run, ascending, and how many */
static size_t io_sizes(const struct io_arg *a, uint64_t *sizes)
{
	size_t i, j, n = 0;
	uint64_t x;

	for (i = 0; i < a->n; i++) {
		for (j = 0; j < n && sizes[j] != a->rows[i].size; j++)
			;
		if (j == n && n < CHURN_CLASSES)
			sizes[n++] = a->rows[i].size;
	}
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && sizes[j - 1] > sizes[j]; j--) {
			x = sizes[j];
			sizes[j] = sizes[j - 1];
			sizes[j - 1] = x;
		}
	return n;
}

/*
 * the crossover of mode m (of: raw or less exits): the smallest size
 * whose share/bounce ratio is below 1, and of its interval the smallest
 * whose upper bound is (share surely faster from there) and whose lower
 * bound is (possibly faster); 0: none
 */
struct io_cross {
	uint64_t point, surely, possibly;
};

static struct io_cross io_crossover(const struct io_arg *a, enum conv_mode m,
				    const uint64_t *sizes, size_t ns,
				    double (*of)(const struct io_row *))
{
	struct io_cross x = { 0, 0, 0 };
	size_t i;

	for (i = 0; i < ns; i++) {
		struct io_over o = io_over_rounds(a, m, sizes[i], 0, true, of);

		if (!x.point && o.m < 1)
			x.point = sizes[i];
		if (!x.surely && o.hi < 1)
			x.surely = sizes[i];
		if (!x.possibly && (o.lo < 1 || (o.rounds == 1 && o.m < 1)))
			x.possibly = sizes[i];
	}
	return x;
}

static bool io_has_mode(const struct io_arg *a, enum conv_mode m)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		if (a->rows[i].res->p.mode == m)
			return true;
	return false;
}

/* a size, or null for none (0) */
static void json_size(struct jsonw *w, const char *key, uint64_t v)
{
	jsonw_key(w, key);
	if (v)
		jsonw_u64(w, v);
	else
		jsonw_null(w);
}

static void json_cross(struct jsonw *w, const char *key, struct io_cross x)
{
	jsonw_key(w, key);
	jsonw_obj_open(w);
	json_size(w, "size_bytes", x.point);
	json_size(w, "surely_from_bytes", x.surely);
	json_size(w, "possibly_from_bytes", x.possibly);
	jsonw_obj_close(w);
}

static int write_io_json(FILE *f, void *arg)
{
	const struct io_arg *a = arg;
	const struct env *env = a->rep->env;
	uint64_t sizes[CHURN_CLASSES];
	size_t ns = io_sizes(a, sizes), i;
	bool counted = io_counted_any(a);
	struct jsonw w;
	unsigned int m;
	int t;

	churn_json_open(&w, f, env, "io");
	jsonw_kv_str(&w, "method", "a cell per mode and round (a fresh VM); "
		     "each request size sent and answered by two strategies "
		     "on the same requests, in alternating blocks: bounce "
		     "(copied through a shared pool made shared once) and "
		     "share (the guest's buffer converted to shared, the "
		     "data kept, and back); a host device thread checks "
		     "every word sent and writes the answer, the guest "
		     "checks every word of it. A request is timed by the "
		     "guest from the first copy or conversion until the "
		     "answer is back in private memory. Work per request "
		     "from KVM's counters at marks around each block; "
		     "'less exits' takes off the request's userspace exits "
		     "at the cell's own null exit. Over rounds: geometric "
		     "mean and t interval of p50, p99 and share/bounce; "
		     "the crossover is the smallest size whose share/bounce "
		     "p50 is below 1 (surely: its upper bound; possibly: its "
		     "lower bound)");
	jsonw_kv_u64(&w, "vcpus", env->vcpus);
	/*
	 * --counts: the BPF work counters ran, read at the same marks
	 * (pages zeroed, allocated, freed, IPIs per request); the times
	 * of such a run carry the counters' cost
	 */
	jsonw_kv_bool(&w, "counted", counted);
	jsonw_kv_u64(&w, "requests_per_strategy", env->churn_p.ops);
	jsonw_kv_u64(&w, "block", env->churn_p.interval);
	jsonw_key(&w, "modes");
	jsonw_arr_open(&w);
	for (m = 0; m < MODE_NR; m++) {
		if (!io_has_mode(a, m))
			continue;
		jsonw_obj_open(&w);
		jsonw_kv_str(&w, "mode", conv_mode_name(m));
		jsonw_key(&w, "sizes");
		jsonw_arr_open(&w);
		for (i = 0; i < ns; i++) {
			jsonw_obj_open(&w);
			jsonw_kv_u64(&w, "size_bytes", sizes[i]);
			for (t = 0; t < GUEST_IO_NR; t++) {
				jsonw_key(&w, io_name[t]);
				jsonw_obj_open(&w);
				json_rounds(&w, a, m, sizes[i], t, false, "p50_ns", of_p50, true);
				json_rounds(&w, a, m, sizes[i], t, false, "p99_ns", of_p99, true);
				json_rounds(&w, a, m, sizes[i], t, false, "p50_less_exits_ns", of_norm, true);
				json_rounds(&w, a, m, sizes[i], t, false, "mb_per_s", of_mbs, true);
				json_rounds(&w, a, m, sizes[i], t, false, "exits_per_request", of_exits, false);
				json_rounds(&w, a, m, sizes[i], t, false, "vm_exits_per_request", of_vm_exits, false);
				json_rounds(&w, a, m, sizes[i], t, false, "npt_faults_per_request", of_faults, false);
				json_rounds(&w, a, m, sizes[i], t, false, "tlb_flushes_per_request", of_flushes, false);
				json_rounds(&w, a, m, sizes[i], t, false, "copied_bytes_per_request", of_copied, false);
				if (counted) {
					json_rounds(&w, a, m, sizes[i], t, false, "pages_zeroed_per_request", of_zeroed, false);
					json_rounds(&w, a, m, sizes[i], t, false, "pages_allocated_per_request", of_alloc, false);
					json_rounds(&w, a, m, sizes[i], t, false, "pages_freed_per_request", of_freed, false);
					json_rounds(&w, a, m, sizes[i], t, false, "ipis_per_request", of_ipis, false);
				}
				jsonw_obj_close(&w);
			}
			json_rounds(&w, a, m, sizes[i], 0, true, "share_over_bounce_p50", of_p50, true);
			json_rounds(&w, a, m, sizes[i], 0, true, "share_over_bounce_less_exits", of_norm, true);
			jsonw_obj_close(&w);
		}
		jsonw_arr_close(&w);
		json_cross(&w, "crossover", io_crossover(a, m, sizes, ns, of_p50));
		json_cross(&w, "crossover_less_exits", io_crossover(a, m, sizes, ns, of_norm));
		jsonw_obj_close(&w);
	}
	jsonw_arr_close(&w);
	return churn_json_close(&w);
}

static const char *cross_str(uint64_t v, char *buf, size_t len)
{
	return v ? size_str(v, buf, len) : "none";
}

/* --counts: the BPF work per request, bounce|share */
static void print_io_work(FILE *f, const struct io_arg *a)
{
	static double (*const of[])(const struct io_row *) = {
		of_zeroed, of_alloc, of_freed, of_ipis,
	};
	uint64_t sizes[CHURN_CLASSES];
	size_t ns = io_sizes(a, sizes), i, k;
	char sz[32];
	unsigned int m;

	fprintf(f, "io work per request, bounce|share (BPF counters, --counts: these times carry their cost; means over rounds)\n");
	for (m = 0; m < MODE_NR; m++) {
		if (!io_has_mode(a, m))
			continue;
		fprintf(f, "%-11s %5s %15s %15s %15s %15s\n", conv_mode_name(m),
			"size", "pages zeroed", "allocated", "freed", "IPIs");
		for (i = 0; i < ns; i++) {
			fprintf(f, "%-11s %5s", "", size_str(sizes[i], sz, sizeof(sz)));
			for (k = 0; k < sizeof(of) / sizeof(of[0]); k++) {
				double b = io_mean(a, m, sizes[i], GUEST_IO_BOUNCE, of[k]);
				double s = io_mean(a, m, sizes[i], GUEST_IO_SHARE, of[k]);

				/* -: not countable in this mode */
				if (isnan(b) && isnan(s))
					fprintf(f, " %15s", "- ");
				else
					fprintf(f, " %7.1f|%-7.1f", b, s);
			}
			fprintf(f, "\n");
		}
	}
}

static void print_io(FILE *f, const struct io_arg *a)
{
	uint64_t sizes[CHURN_CLASSES];
	size_t ns = io_sizes(a, sizes), i;
	char sz[32], s1[32], s2[32], s3[32];
	unsigned int m;

	fprintf(f, "io: per request, bounce | share on the same requests (geometric means over rounds); share/bounce p50 [95%% interval]\n");
	for (m = 0; m < MODE_NR; m++) {
		struct io_cross x, xn;

		if (!io_has_mode(a, m))
			continue;
		fprintf(f, "%-11s %5s %10s %10s %22s %8s %9s %9s %11s %13s %15s\n",
			conv_mode_name(m), "size", "bounce p50", "share p50",
			"share/bounce", "less ex.", "MB/s b", "MB/s s",
			"exits b|s", "NPT faults b|s", "copied KiB b|s");
		for (i = 0; i < ns; i++) {
			struct io_over b = io_over_rounds(a, m, sizes[i], GUEST_IO_BOUNCE, false, of_p50);
			struct io_over s = io_over_rounds(a, m, sizes[i], GUEST_IO_SHARE, false, of_p50);
			struct io_over r = io_over_rounds(a, m, sizes[i], 0, true, of_p50);
			struct io_over rn = io_over_rounds(a, m, sizes[i], 0, true, of_norm);
			struct io_over mb = io_over_rounds(a, m, sizes[i], GUEST_IO_BOUNCE, false, of_mbs);
			struct io_over ms = io_over_rounds(a, m, sizes[i], GUEST_IO_SHARE, false, of_mbs);
			double eb = io_mean(a, m, sizes[i], GUEST_IO_BOUNCE, of_exits);
			double es = io_mean(a, m, sizes[i], GUEST_IO_SHARE, of_exits);
			double fb = io_mean(a, m, sizes[i], GUEST_IO_BOUNCE, of_faults);
			double fs = io_mean(a, m, sizes[i], GUEST_IO_SHARE, of_faults);
			double cb = io_mean(a, m, sizes[i], GUEST_IO_BOUNCE, of_copied);
			double cs = io_mean(a, m, sizes[i], GUEST_IO_SHARE, of_copied);
			char ci[64];

			if (!b.rounds && !s.rounds)
				continue;	/* no request of this size done */

			if (r.rounds >= 2)
				snprintf(ci, sizeof(ci), "%.3f [%.3f, %.3f]",
					 r.m, r.lo, r.hi);
			else
				snprintf(ci, sizeof(ci), "%.3f", r.m);
			fprintf(f, "%-11s %5s %7.1f us %7.1f us %22s %8.3f %9.1f %9.1f %5.1f|%-5.1f %6.1f|%-6.1f %7.0f|%-7.0f\n",
				"", size_str(sizes[i], sz, sizeof(sz)),
				b.m / 1e3, s.m / 1e3, ci, rn.m, mb.m, ms.m,
				eb, es, fb, fs, cb / 1024, cs / 1024);
		}
		x = io_crossover(a, m, sizes, ns, of_p50);
		xn = io_crossover(a, m, sizes, ns, of_norm);
		fprintf(f, "%-11s crossover (share p50 below bounce's): %s (surely from %s, possibly from %s); less exits: %s\n",
			"", cross_str(x.point, s1, sizeof(s1)),
			cross_str(x.surely, s2, sizeof(s2)),
			cross_str(x.possibly, s3, sizeof(s3)),
			cross_str(xn.point, sz, sizeof(sz)));
	}
	if (io_counted_any(a))
		print_io_work(f, a);
}

/* --workload=io's results: io.csv, churn.json */
int churn_io_report(struct report *rep, const struct cell_result *res,
		    size_t n, const struct series_arg *ops)
{
	struct io_arg ia = { rep, NULL, 0 };
	int r = 0, e;

	ia.rows = io_rows(res, n, ops->tmp, &ia.n);
	if (!ia.rows)
		return -ENOMEM;
	print_io(rep->out, &ia);
	if (rep->dir) {
		e = report_write_file(rep, "io.csv", write_io_csv, &ia);
		r = r ? r : e;
		e = report_write_file(rep, "churn.json", write_io_json, &ia);
		r = r ? r : e;
	}
	free((void *)ia.rows);
	return r;
}
