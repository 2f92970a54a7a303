// SPDX-License-Identifier: GPL-2.0
/*
 * convtrace's output: a summary table, funclatency-style histograms
 * ("lo -> hi : count |****|") and CSV, all from conv_trace_read().
 *
 * The histogram text is lib/hist.c's hist_print_log2() (bcc
 * print_log2_hist() rows), percentiles are hist_percentile()'s: the upper
 * bound of the bucket holding the sample, within 12.5 % here, labelled
 * "p50<=". Times are exclusive of nested probes (convtrace.h).
 */
#include <errno.h>
#include <string.h>

#include "convtrace.h"
#include "hist.h"
#include "trace_lib.h"

/* the row's buckets as a lib/hist.c histogram */
static void row_hist(const struct conv_trace_row *r, struct hist *h)
{
	hist_init(h, CT_HIST_SUB_BITS);
	hist_add_buckets(h, r->buckets, r->nr_buckets);
}

static void ctx_label(const struct conv_trace_row *r, char *buf, size_t n)
{
	if (r->ctx_name)
		snprintf(buf, n, "%u:%s", r->ctx, r->ctx_name);
	else
		snprintf(buf, n, "%u", r->ctx);
}

static int print_summary(const struct conv_trace_row *r, void *arg)
{
	FILE *f = arg;
	struct hist h;
	char ctx[48];

	ctx_label(r, ctx, sizeof(ctx));
	fprintf(f, "%-34s %-6s %-22s %10llu", r->probe, r->attach, ctx,
		r->count);
	if (r->count_only || !r->count) {
		fprintf(f, "\n");
		return 0;
	}
	row_hist(r, &h);
	fprintf(f, " %11llu %11llu %11llu %12.3f\n", r->excl_ns / r->count,
		(unsigned long long)hist_percentile(&h, 50),
		(unsigned long long)hist_percentile(&h, 99), r->excl_ns / 1e6);
	return 0;
}

static int print_one(const struct conv_trace_row *r, void *arg)
{
	FILE *f = arg;
	struct hist h;
	char ctx[48];

	if (r->count_only || !r->count)
		return 0;
	ctx_label(r, ctx, sizeof(ctx));
	row_hist(r, &h);
	fprintf(f, "\n%s (%s), context %s: %llu calls, avg %llu ns, total %.3f ms (exclusive)\n",
		r->probe, r->attach, ctx, r->count, r->excl_ns / r->count,
		r->excl_ns / 1e6);
	hist_print_log2(f, &h, "nsecs");
	return 0;
}

/* a function this kernel does not have (trace_plan.c's reason) */
static bool is_absent(const struct conv_trace_probe_info *p)
{
	return !strncmp(p->reason, "absent:", 7);
}

int conv_trace_print_missing(struct conv_trace *t, FILE *f, bool absent_too,
			     const char *prefix)
{
	struct conv_trace_probe_info a, b;
	int i, j, n = conv_trace_nr_probes(t), left_out = 0;

	for (i = 0; i < n; i++) {
		if (conv_trace_probe_info(t, i, &a) || a.attach)
			continue;
		if (!absent_too && is_absent(&a)) {
			left_out++;
			continue;
		}
		/* a reason is printed with its first probe */
		for (j = 0; j < i; j++)
			if (!conv_trace_probe_info(t, j, &b) && !b.attach &&
			    !strcmp(a.reason, b.reason))
				break;
		if (j < i)
			continue;
		fprintf(f, "%snot traced:", prefix);
		for (j = i; j < n; j++)
			if (!conv_trace_probe_info(t, j, &b) && !b.attach &&
			    !strcmp(a.reason, b.reason))
				fprintf(f, " %s", b.name);
		fprintf(f, " [%s]\n", a.reason);
	}
	return left_out;
}

int conv_trace_print(struct conv_trace *t, FILE *f)
{
	unsigned long long lost;
	int err;

	fprintf(f, "%-34s %-6s %-22s %10s %11s %11s %11s %12s\n", "probe",
		"attach", "context", "count", "avg_ns", "p50<=ns", "p99<=ns",
		"total_ms");
	err = conv_trace_read(t, print_summary, f);
	if (!err)
		err = conv_trace_read(t, print_one, f);
	fputc('\n', f);
	conv_trace_print_missing(t, f, true, "");
	lost = conv_trace_drops(t);
	if (lost)
		fprintf(f, "warning: %llu calls not timed or samples lost (task storage or histogram map full)\n",
			lost);
	return err;
}

/* a CSV field: quoted when it holds a comma, a quote or a newline */
static void csv_str(FILE *f, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void csv_head(FILE *f, const struct conv_trace_row *r)
{
	csv_str(f, r->probe);
	fprintf(f, ",%s,%u,", r->attach, r->ctx);
	csv_str(f, r->ctx_name);
	fprintf(f, ",%llu,%llu,", r->count, r->sum_ns);
}

static int csv_row(const struct conv_trace_row *r, void *arg)
{
	FILE *f = arg;
	unsigned int b;
	bool any = false;

	for (b = 0; b < r->nr_buckets; b++) {
		if (!r->buckets[b])
			continue;
		csv_head(f, r);
		fprintf(f, "%llu,", (unsigned long long)
			hist_bucket_low(b, CT_HIST_SUB_BITS));
		/* the last bucket is open-ended */
		if (b + 1 < r->nr_buckets)
			fprintf(f, "%llu", (unsigned long long)
				hist_bucket_high(b, CT_HIST_SUB_BITS));
		fprintf(f, ",%llu\n", (unsigned long long)r->buckets[b]);
		any = true;
	}
	if (!any) {
		csv_head(f, r);
		fprintf(f, ",,\n");
	}
	return 0;
}

int conv_trace_write_csv(struct conv_trace *t, FILE *f)
{
	struct conv_trace_probe_info info;
	int i, err;

	fprintf(f, "probe,attach,context,context_name,count,sum_ns,lo_ns,hi_ns,n\n");
	err = conv_trace_read(t, csv_row, f);
	for (i = 0; i < conv_trace_nr_probes(t); i++) {
		if (conv_trace_probe_info(t, i, &info) || info.attach)
			continue;
		fprintf(f, "# missing,");
		csv_str(f, info.name);
		fputc(',', f);
		csv_str(f, info.reason);
		fputc('\n', f);
	}
	if (!err && (fflush(f) || ferror(f)))
		err = -errno;
	return err;
}
