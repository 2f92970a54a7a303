// SPDX-License-Identifier: GPL-2.0
/* convbench --trace and --counts, see trace_hook.h */
#include <errno.h>
#include <string.h>

#include "convtrace.h"
#include "csvw.h"
#include "hist_bucket.h"
#include "probe_cal.h"
#include "report.h"
#include "trace_csv.h"
#include "trace_hook.h"
#include "trace_lib.h"

/* a cell's trace contexts after its directions' (lib/vocab.h names those) */
static const char *const phase_name[TRACE_CTX_PER_CELL] = {
	[TRACE_CTX_WARMUP] = "warm-up",
	[TRACE_CTX_SETUP] = "setup",
	[TRACE_CTX_TEARDOWN] = "teardown",
};

static const char *phase_of(unsigned int ctx)
{
	unsigned int i = (ctx - 1) % TRACE_CTX_PER_CELL;

	return i < DIR_NR ? conv_dir_name(i) : phase_name[i];
}

int trace_hook_open(struct trace_hook *h, enum trace_set set, bool counters,
		    bool verbose)
{
	struct conv_trace_opts opts = {
		.verbose = verbose,
		.wide = set == TRACE_ALL,
		.no_tracepoints = set != TRACE_ALL,
		.counters = counters,
		.empty = set == TRACE_EMPTY,
	};

	memset(h, 0, sizeof(*h));
	h->set = set;
	h->counters = counters;
	h->t = conv_trace_open(&opts);
	if (!h->t) {
		fprintf(stderr, "convbench: --%s: BPF is not available here: %s\n",
			counters ? "counts" : "trace", strerror(errno));
		return 4;
	}
	conv_trace_name_context(h->t, 0, "outside cells");
	return 0;
}

/* called from the vCPU threads: one store into the BPF .bss */
static void set_ctx(void *arg, unsigned int ctx)
{
	conv_trace_set_context(arg, ctx);
}

static int cell_of(const struct trace_hook *h, enum conv_mode m,
		   uint64_t size)
{
	unsigned int i;

	for (i = 0; i < h->ncells; i++)
		if (h->cells[i].mode == m && h->cells[i].size == size)
			return i;
	return -1;
}

const char *trace_hook_ctx_name(const struct trace_hook *h, unsigned int ctx,
				char *buf, size_t len)
{
	unsigned int c = (ctx - 1) / TRACE_CTX_PER_CELL;
	char sz[32];

	if (!ctx || c >= h->ncells) {
		snprintf(buf, len, "outside cells");
		return buf;
	}
	snprintf(buf, len, "%s %s %s", conv_mode_name(h->cells[c].mode),
		 size_str(h->cells[c].size, sz, sizeof(sz)),
		 phase_of(ctx));
	return buf;
}

/*
 * --workload=io --counts: ctx the current context, and its counters so
 * far (cell_types.h)
 */
static void read_work(void *arg, unsigned int ctx, uint64_t v[CHURN_WORK_NR],
		      bool have[CHURN_WORK_NR])
{
	static const unsigned int ctc[CHURN_WORK_NR] = {
		[CHURN_WORK_ZEROED] = CTC_PAGES_ZEROED,
		[CHURN_WORK_ALLOC] = CTC_PAGES_ALLOC,
		[CHURN_WORK_FREED] = CTC_PAGES_FREED,
		[CHURN_WORK_IPIS] = CTC_IPIS,
	};
	unsigned long long x;
	unsigned int i;

	conv_trace_set_context(arg, ctx);
	for (i = 0; i < CHURN_WORK_NR; i++) {
		have[i] = !conv_trace_counter(arg, ctx, ctc[i], &x, NULL);
		v[i] = have[i] ? x : 0;
	}
}

static void hook_cell(struct trace_hook *h, struct cell_params *p)
{
	char name[96];
	unsigned int d;
	int c;

	c = cell_of(h, p->mode, p->size);
	if (c < 0 && h->ncells < TRACE_HOOK_MAX_CELLS) {
		c = h->ncells++;
		h->cells[c].mode = p->mode;
		h->cells[c].size = p->size;
		h->cells[c].base = 1 + c * TRACE_CTX_PER_CELL;
		for (d = 0; d < TRACE_CTX_PER_CELL; d++)
			conv_trace_name_context(h->t, h->cells[c].base + d,
				trace_hook_ctx_name(h, h->cells[c].base + d,
						    name, sizeof(name)));
	}
	if (c < 0)
		return;		/* more cells than contexts: untraced */
	p->trace_ctx = h->cells[c].base;
	p->trace_set = set_ctx;
	p->trace_arg = h->t;
	conv_trace_set_context(h->t, p->trace_ctx + TRACE_CTX_SETUP);
}

void trace_hook_cell(struct trace_hook *h, struct cell_params *p)
{
	if (!h->t)
		return;
	p->counts = h->counters;
	hook_cell(h, p);
}

void trace_hook_churn_cell(struct trace_hook *h, struct cell_params *p)
{
	if (!h->t || !h->counters)
		return;
	hook_cell(h, p);
	/* one context for the whole sequence: set and read at its marks */
	if (p->trace_set)
		p->trace_work = read_work;
	p->trace_set = NULL;
}

void trace_hook_cell_end(struct trace_hook *h, const struct cell_result *res)
{
	uint64_t i;
	int c;

	if (!h->t)
		return;
	conv_trace_set_context(h->t, 0);
	c = cell_of(h, res->p.mode, res->p.size);
	if (c < 0)
		return;
	for (i = 0; i < res->n; i++)
		h->cells[c].conversions[res->samples[i].dir]++;
}

unsigned int trace_hook_base(const struct trace_hook *h, enum conv_mode m,
			     uint64_t size)
{
	int c = cell_of(h, m, size);

	return c < 0 ? 0 : h->cells[c].base;
}

uint64_t trace_hook_conversions(const struct trace_hook *h, enum conv_mode m,
				uint64_t size, enum conv_dir d)
{
	int c = cell_of(h, m, size);

	return c < 0 ? 0 : h->cells[c].conversions[d];
}

/* the recorded conversions of a context (0 for other phases) */
static uint64_t ctx_conversions(const struct trace_hook *h, unsigned int ctx)
{
	unsigned int c = (ctx - 1) / TRACE_CTX_PER_CELL;
	unsigned int ph = (ctx - 1) % TRACE_CTX_PER_CELL;

	if (!ctx || c >= h->ncells || ph >= DIR_NR)
		return 0;
	return h->cells[c].conversions[ph];
}

/* mode, size, phase columns of a context */
static void csv_ctx(struct csvw *c, const struct trace_hook *h,
		    unsigned int ctx)
{
	unsigned int cell = (ctx - 1) / TRACE_CTX_PER_CELL;
	char sz[32];

	if (!ctx || cell >= h->ncells) {
		csvw_str(c, NULL);
		csvw_str(c, NULL);
		csvw_str(c, "outside-cells");
		return;
	}
	csvw_str(c, conv_mode_name(h->cells[cell].mode));
	csvw_str(c, size_str(h->cells[cell].size, sz, sizeof(sz)));
	csvw_str(c, phase_of(ctx));
}

struct csv_job {
	struct trace_hook *h;
	struct csvw c;
};

static int bucket_row(const struct conv_trace_row *row, void *arg)
{
	struct csv_job *j = arg;
	unsigned int b;

	for (b = 0; b < row->nr_buckets; b++) {
		if (!row->buckets[b])
			continue;
		csvw_str(&j->c, row->probe);
		csv_ctx(&j->c, j->h, row->ctx);
		csvw_u64(&j->c, hist_bucket_low(b, row->sub_bits));
		/* the last bucket is open-ended */
		if (b + 1 < row->nr_buckets)
			csvw_u64(&j->c, hist_bucket_high(b, row->sub_bits));
		else
			csvw_str(&j->c, NULL);
		csvw_u64(&j->c, row->buckets[b]);
		csvw_end_row(&j->c);
	}
	return 0;
}

/* a CSV file of h's rows: the header, then what row() writes of each */
static int write_csv(FILE *f, struct trace_hook *h, const char *const *head,
		     unsigned int n, conv_trace_cb row)
{
	struct csv_job j = { .h = h };

	csvw_init(&j.c, f);
	csvw_row(&j.c, head, n);
	return conv_trace_read(h->t, row, &j) || csvw_error(&j.c) ? -EIO : 0;
}

static int trace_csv(FILE *f, void *arg)
{
	return write_csv(f, arg, trace_csv_col_name, TRACE_CSV_NR, bucket_row);
}

static int total_row(const struct conv_trace_row *row, void *arg)
{
	struct csv_job *j = arg;

	if (!row->count)
		return 0;
	csvw_str(&j->c, row->probe);
	csvw_str(&j->c, row->attach);
	csv_ctx(&j->c, j->h, row->ctx);
	csvw_u64(&j->c, row->count);
	if (row->count_only) {
		csvw_str(&j->c, NULL);
		csvw_str(&j->c, NULL);
	} else {
		csvw_u64(&j->c, row->sum_ns);
		csvw_u64(&j->c, row->excl_ns);
	}
	csvw_u64(&j->c, ctx_conversions(j->h, row->ctx));
	csvw_end_row(&j->c);
	return 0;
}

static int totals_csv(FILE *f, void *arg)
{
	return write_csv(f, arg, trace_totals_col_name, TRACE_TOTALS_NR,
			 total_row);
}

static int trace_txt(FILE *f, void *arg)
{
	struct trace_hook *h = arg;

	fprintf(f, "Function probes are timed exclusive of the probed "
		"functions they call (avg, total: exclusive; p50/p99: upper "
		"bounds of the buckets that hold them); tracepoint rows are "
		"spans.\n\n");
	return conv_trace_print(h->t, f) ? -EIO : 0;
}

int trace_hook_write(struct trace_hook *h, struct report *rep)
{
	int err = 0, e;

	if (!h->t || h->counters)
		return 0;
	conv_trace_set_context(h->t, 0);
	e = report_write_file(rep, "trace.csv", trace_csv, h);
	err = err ? err : e;
	e = report_write_file(rep, "trace-totals.csv", totals_csv, h);
	err = err ? err : e;
	e = report_write_file(rep, "trace.txt", trace_txt, h);
	return err ? err : e;
}

static int json_total(const struct conv_trace_row *row, void *arg)
{
	struct jsonw *w = ((void **)arg)[0];
	struct trace_hook *h = ((void **)arg)[1];
	uint64_t conv = ctx_conversions(h, row->ctx);
	char name[96];

	if (!row->count)
		return 0;
	jsonw_obj_open(w);
	jsonw_kv_str(w, "probe", row->probe);
	jsonw_kv_str(w, "context", trace_hook_ctx_name(h, row->ctx, name,
						       sizeof(name)));
	jsonw_kv_u64(w, "calls", row->count);
	if (!row->count_only) {
		jsonw_kv_u64(w, "inclusive_ns", row->sum_ns);
		jsonw_kv_u64(w, "exclusive_ns", row->excl_ns);
	}
	jsonw_kv_u64(w, "conversions", conv);
	if (conv) {
		jsonw_kv_double(w, "calls_per_conversion",
				(double)row->count / conv);
		if (!row->count_only)
			jsonw_kv_double(w, "exclusive_ns_per_conversion",
					(double)row->excl_ns / conv);
	}
	jsonw_obj_close(w);
	return 0;
}

static void trace_json(struct jsonw *w, void *arg)
{
	struct trace_hook *h = arg;
	struct conv_trace_probe_info info;
	void *pair[2] = { w, h };
	unsigned int c, ph;
	char name[96];
	int i;

	conv_trace_set_context(h->t, 0);
	jsonw_obj_open(w);
	jsonw_kv_str(w, "set", h->set == TRACE_ALL ? "all" :
		     h->set == TRACE_EMPTY ? "empty" : "default");
	jsonw_kv_str(w, "timing", "function probes exclusive of the probed "
		     "functions they call (probes nest: shmem_fallocate and "
		     "shmem_convert_range call memfile_notifier_invalidate); "
		     "tracepoint rows are spans");
	jsonw_key(w, "probes");
	jsonw_arr_open(w);
	for (i = 0; i < conv_trace_nr_probes(h->t); i++) {
		if (conv_trace_probe_info(h->t, i, &info))
			continue;
		jsonw_obj_open(w);
		jsonw_kv_str(w, "probe", info.name);
		jsonw_kv_str(w, "attach", info.attach);
		jsonw_kv_str(w, "not_traced_why", info.attach ? NULL :
			     info.reason);
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
	jsonw_key(w, "contexts");
	jsonw_arr_open(w);
	for (c = 0; c <= h->ncells * TRACE_CTX_PER_CELL; c++) {
		uint64_t conv = ctx_conversions(h, c);
		unsigned long long hits = conv_trace_ctx_hits(h->t, c);

		ph = c ? (c - 1) % TRACE_CTX_PER_CELL : 0;
		jsonw_obj_open(w);
		jsonw_kv_str(w, "context", trace_hook_ctx_name(h, c, name,
							       sizeof(name)));
		jsonw_kv_u64(w, "hits", hits);
		if (c && ph < DIR_NR) {
			jsonw_kv_u64(w, "conversions", conv);
			jsonw_kv_double(w, "hits_per_conversion",
					conv ? (double)hits / conv : 0);
		}
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
	jsonw_key(w, "totals");
	jsonw_arr_open(w);
	conv_trace_read(h->t, json_total, pair);
	jsonw_arr_close(w);
	jsonw_kv_u64(w, "lost", conv_trace_drops(h->t));
	jsonw_obj_close(w);
}

static void trace_text(FILE *f, void *arg)
{
	struct trace_hook *h = arg;

	fputc('\n', f);
	trace_txt(f, h);
}

void trace_hook_report_to(struct trace_hook *h, struct report *rep)
{
	struct report_extra e = {
		.key = "trace", .json = trace_json, .arg = h,
		.text = rep->env->format == FORMAT_TEXT ? trace_text : NULL,
	};

	if (h->t && !h->counters)
		report_add(rep, &e);
}

void trace_hook_calibrate(struct trace_hook *h, struct probe_cal *c)
{
	if (!h->t || h->counters) {
		probe_cal_run(c, NULL, NULL, 0);
		return;
	}
	conv_trace_name_context(h->t, TRACE_CTX_CAL, "probe calibration");
	probe_cal_run(c, set_ctx, h->t, TRACE_CTX_CAL);
	c->traced = true;
	c->hits = conv_trace_ctx_hits(h->t, TRACE_CTX_CAL);
}

void trace_hook_close(struct trace_hook *h)
{
	if (h->t)
		conv_trace_close(h->t);
	h->t = NULL;
}
