// SPDX-License-Identifier: GPL-2.0
/*
 * convtrace's histograms put a call in the right bucket, not only in the
 * count. Calls of known duration, each in a context of its own (so each
 * histogram holds one call and its exact sum_ns is that call's latency):
 *   1. a function probe: clock_nanosleep() of D runs hrtimer_nanosleep(),
 *      which takes at least D; fentry/fexit, or kprobes with -K;
 *   2. a tracepoint row: the VMM sleeps D between a guest's exit and its
 *      re-entry, which kvm:userspace_roundtrip times.
 * For each call: count 1; D <= sum_ns <= what user space measured around
 * it; the one non-empty bucket is hist_bucket_idx(sum_ns); the CSV line
 * has that bucket's bounds; the printed log2 histogram shows the call in
 * the row that holds sum_ns. A function the kernel cannot probe (no
 * fentry, no kprobes: this host) is a skip; BPF not permitted skips all.
 *
 *   known_latency [-K]      -K: kprobes for the function probe
 *
 * TAP lines, closing line; exit 0 pass, 1 fail, 4 skip.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "hist_bucket.h"
#include "tap.h"
#include "tiny_guest.h"
#include "trace_lib.h"

#define TEST_NAME	"known_latency"
#define FUNC		"hrtimer_nanosleep"
#define RT_ROW		"kvm:userspace_roundtrip"
#define NCALLS		3

/* 1.5, 5 and 20 ms: three different buckets, well above timer slack */
static const uint64_t dur_ns[NCALLS] = { 1500000, 5000000, 20000000 };

struct call {
	unsigned int ctx;
	uint64_t want_ns;	/* the known duration: a lower bound */
	uint64_t outer_ns;	/* measured around it: an upper bound */
};

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);	/* bpf_ktime_get_ns's clock */
	return t.tv_sec * 1000000000ULL + t.tv_nsec;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec t = { ns / 1000000000ULL, ns % 1000000000ULL };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &t, &t) == EINTR)
		;
}

struct found {
	const char *probe;
	unsigned int ctx;
	unsigned long long count, sum_ns;
	unsigned int nonempty, bucket, sub_bits;
	uint64_t bucket_count;
};

static int find_row(const struct conv_trace_row *row, void *arg)
{
	struct found *f = arg;
	unsigned int b;

	if (strcmp(row->probe, f->probe) || row->ctx != f->ctx)
		return 0;
	f->count = row->count;
	f->sum_ns = row->sum_ns;
	f->sub_bits = row->sub_bits;
	for (b = 0; b < row->nr_buckets; b++) {
		if (!row->buckets[b])
			continue;
		f->nonempty++;
		f->bucket = b;
		f->bucket_count = row->buckets[b];
	}
	return 1;
}

/* "probe,attach,ctx,name,count,sum,lo,hi,n": lo and hi of probe's ctx */
static int csv_bounds(const char *csv, const char *probe, unsigned int ctx,
		      unsigned long long *lo, unsigned long long *hi,
		      unsigned long long *n)
{
	const char *l;
	size_t plen = strlen(probe);
	char name[64];
	unsigned int c;

	for (l = csv; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (strncmp(l, probe, plen) || l[plen] != ',')
			continue;
		if (sscanf(l + plen + 1, "%*[^,],%u,%63[^,],%*u,%*u,%llu,%llu,%llu",
			   &c, name, lo, hi, n) == 5 && c == ctx)
			return 0;
		/* an unnamed context has an empty name field */
		if (sscanf(l + plen + 1, "%*[^,],%u,,%*u,%*u,%llu,%llu,%llu",
			   &c, lo, hi, n) == 4 && c == ctx)
			return 0;
	}
	return -1;
}

/*
 * In conv_trace_print's text: after the "PROBE (...), context CTX:"
 * header, the "low -> high : count" row with a count must hold sum_ns.
 */
static bool printed_row_holds(const char *text, const char *probe,
			      unsigned int ctx, unsigned long long sum_ns)
{
	char head[128];
	const char *l;
	unsigned long long lo, hi, cnt;

	snprintf(head, sizeof(head), "%s (", probe);
	for (l = text; l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		char ctxs[32];

		snprintf(ctxs, sizeof(ctxs), "context %u:", ctx);
		if (!strncmp(l, head, strlen(head)) && strstr(l, ctxs) &&
		    strstr(l, ctxs) < strchr(l, '\n'))
			break;
	}
	/* the "nsecs : count distribution" line, then rows to a blank line */
	for (l = l ? strchr(l, '\n') : NULL; l && l[1] && l[1] != '\n';
	     l = strchr(l + 1, '\n')) {
		if (sscanf(l + 1, " %llu -> %llu : %llu", &lo, &hi, &cnt) != 3)
			continue;
		if (cnt)
			return cnt == 1 && lo <= sum_ns && sum_ns <= hi;
	}
	return false;
}

static void check_calls(struct conv_trace *t, const char *probe,
			const char *label, const struct call *calls)
{
	char *csv = NULL, *text = NULL;
	size_t csv_len = 0, text_len = 0;
	FILE *f;
	int i;

	f = open_memstream(&csv, &csv_len);
	if (f) {
		conv_trace_write_csv(t, f);
		fclose(f);
	}
	f = open_memstream(&text, &text_len);
	if (f) {
		conv_trace_print(t, f);
		fclose(f);
	}
	for (i = 0; i < NCALLS; i++) {
		const struct call *c = &calls[i];
		struct found fd = { .probe = probe, .ctx = c->ctx };
		unsigned long long lo = 0, hi = 0, n = 0;
		unsigned int want_b;
		bool row;

		row = conv_trace_read(t, find_row, &fd) == 1;
		tap_result(row && fd.count == 1 && fd.sum_ns >= c->want_ns &&
			   fd.sum_ns <= c->outer_ns,
			   "%s: %.1f ms call timed once, %.3f ms, within %.3f..%.3f ms (count %llu)",
			   label, c->want_ns / 1e6, fd.sum_ns / 1e6,
			   c->want_ns / 1e6, c->outer_ns / 1e6, fd.count);
		want_b = hist_bucket_idx(fd.sum_ns, fd.sub_bits);
		tap_result(row && fd.nonempty == 1 && fd.bucket == want_b &&
			   fd.bucket_count == 1,
			   "%s: %.1f ms call in bucket %u, the one of its %llu ns (%u non-empty, bucket %u: %llu..%llu)",
			   label, c->want_ns / 1e6, want_b, fd.sum_ns,
			   fd.nonempty, fd.bucket,
			   (unsigned long long)hist_bucket_low(fd.bucket, fd.sub_bits),
			   (unsigned long long)hist_bucket_high(fd.bucket, fd.sub_bits));
		row = csv && !csv_bounds(csv, probe, c->ctx, &lo, &hi, &n);
		tap_result(row && n == 1 &&
			   lo == hist_bucket_low(want_b, fd.sub_bits) &&
			   hi == hist_bucket_high(want_b, fd.sub_bits) &&
			   lo <= fd.sum_ns && fd.sum_ns <= hi,
			   "%s: CSV line of the %.1f ms call: %llu..%llu ns, %llu call",
			   label, c->want_ns / 1e6, lo, hi, n);
		tap_result(text && printed_row_holds(text, probe, c->ctx, fd.sum_ns),
			   "%s: printed log2 histogram shows the %.1f ms call in the row of %llu ns",
			   label, c->want_ns / 1e6, fd.sum_ns);
	}
	free(csv);
	free(text);
}

/* 1: clock_nanosleep() -> hrtimer_nanosleep() under probe */
static void function_probe(bool kprobe)
{
	static const char *const funcs[] = { FUNC, NULL };
	struct conv_trace_opts o = {
		.extra_funcs = funcs, .no_default_funcs = true,
		.force_kprobe = kprobe,
	};
	struct conv_trace_probe_info info = { 0 };
	struct call calls[NCALLS];
	struct conv_trace *t;
	const char *label = kprobe ? FUNC " (kprobe)" : FUNC;
	uint64_t t0;
	int i;

	t = conv_trace_open(&o);
	if (!t && (errno == EPERM || errno == EACCES || errno == ENOSYS))
		tap_skip_all(TEST_NAME, false, "BPF loading not permitted (%s)",
			     strerror(errno));
	tap_result(t, "conv_trace_open with %s only (%s)", FUNC,
		   t ? "ok" : strerror(errno));
	if (!t)
		return;
	if (conv_trace_probe_info(t, 0, &info) || !info.attach) {
		tap_skip(info.reason ? info.reason : "not attached",
			 "%s: calls of known duration", label);
		conv_trace_close(t);
		return;
	}
	tap_diag("%s attached with %s", FUNC, info.attach);
	for (i = 0; i < NCALLS; i++) {
		calls[i].ctx = i + 1;
		calls[i].want_ns = dur_ns[i];
		conv_trace_set_context(t, i + 1);
		t0 = now_ns();
		sleep_ns(dur_ns[i]);
		calls[i].outer_ns = now_ns() - t0;
	}
	conv_trace_set_context(t, 0);
	check_calls(t, FUNC, label, calls);
	conv_trace_close(t);
}

/* 2: the VMM's time between an exit and the next KVM_RUN */
static void roundtrip_row(void)
{
	struct conv_trace_opts o = { .no_default_funcs = true };
	struct tiny_guest g = { 0 };
	struct call calls[NCALLS];
	struct conv_trace *t;
	const char *what;
	uint64_t t_call[2], t_ret;
	int i, r;

	if (access("/dev/kvm", R_OK | W_OK)) {
		tap_skip(strerror(errno), "%s: no usable /dev/kvm", RT_ROW);
		return;
	}
	t = conv_trace_open(&o);
	if (!t) {
		tap_result(false, "conv_trace_open, tracepoints only (%s)",
			   strerror(errno));
		return;
	}
	r = tiny_guest_create(&g, NCALLS, &what);
	if (r) {
		tap_skip(strerror(-r), "%s: %s", RT_ROW, what);
		conv_trace_close(t);
		return;
	}
	/*
	 * Run i's exit opens the round trip (in context i + 1, set before
	 * it); the VMM sleeps, and run i + 1's ioctl closes it: the round
	 * trip lies between run i's call and run i + 1's return.
	 */
	for (i = 0; i <= NCALLS; i++) {
		conv_trace_set_context(t, i < NCALLS ? i + 1 : 0);
		alarm(5);
		t_call[i % 2] = now_ns();
		r = ioctl(g.vcpu, KVM_RUN, 0);
		t_ret = now_ns();
		alarm(0);
		if (i)
			calls[i - 1].outer_ns = t_ret - t_call[(i - 1) % 2];
		if (r < 0 || g.run->exit_reason !=
		    (i < NCALLS ? KVM_EXIT_IO : KVM_EXIT_HLT)) {
			tap_result(false, "%s: guest run %d: %s, exit %u", RT_ROW,
				   i, r < 0 ? strerror(errno) : "ok",
				   g.run->exit_reason);
			break;
		}
		if (i < NCALLS) {
			calls[i].ctx = i + 1;
			calls[i].want_ns = dur_ns[i];
			sleep_ns(dur_ns[i]);
		}
	}
	tiny_guest_destroy(&g);
	if (i > NCALLS)
		check_calls(t, RT_ROW, RT_ROW, calls);
	conv_trace_close(t);
}

static void on_alarm(int sig)
{
	(void)sig;	/* KVM_RUN returns EINTR */
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	bool kprobe = argc == 2 && !strcmp(argv[1], "-K");

	if (argc > 2 || (argc == 2 && !kprobe)) {
		fprintf(stderr, "usage: %s [-K]\n", argv[0]);
		return 2;
	}
	sigaction(SIGALRM, &sa, NULL);	/* no SA_RESTART */
	function_probe(kprobe);
	if (!kprobe)
		roundtrip_row();
	return tap_finish(false);
}
