// SPDX-License-Identifier: GPL-2.0
/*
 * convtrace's library on a kernel that allows only tracepoint programs
 * (this host: no fentry, no kprobes): the function probes must be
 * reported missing by name, not fail the load, and the raw tracepoint
 * rows must count exactly. A real-mode guest does `out` to a port N
 * times, then `hlt`; without an in-kernel irqchip HLT is a userspace exit
 * too (KVM_EXIT_HLT), so kvm_userspace_exit fires N + 1 times, and the
 * VMM re-enters N times (kvm:userspace_roundtrip). Contexts split the
 * exits; fallocate(2) calls of this process are counted, a child's not.
 *
 *   host_kvm_exits [-n N]           the test (TAP lines, closing line)
 *   host_kvm_exits --guest-only N   just run the guest (for convtrace --)
 *
 * Exit 0 pass, 1 fail, 4 skip (no /dev/kvm, BPF not permitted).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/kvm.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "tap.h"
#include "tiny_guest.h"
#include "trace_lib.h"

#define TEST_NAME	"host_kvm_exits"
#define RUN_TIMEOUT_S	5
#define CTX_FIRST	1
#define CTX_REST	2

static volatile sig_atomic_t timed_out;

static void on_alarm(int sig)
{
	(void)sig;
	timed_out = 1;
}

/*
 * Run to HLT; before each KVM_RUN pick the context (the first exit in
 * CTX_FIRST, the rest in CTX_REST). Returns the number of port-IO exits,
 * or -1 (message printed) on a wrong exit, an error or a timeout.
 */
static int guest_run(struct tiny_guest *g, struct conv_trace *t)
{
	int outs = 0, r;

	for (;;) {
		if (t)
			conv_trace_set_context(t, outs ? CTX_REST : CTX_FIRST);
		alarm(RUN_TIMEOUT_S);
		r = ioctl(g->vcpu, KVM_RUN, 0);
		alarm(0);
		if (r < 0) {
			tap_diag("KVM_RUN: %s%s", strerror(errno),
				 timed_out ? " (timed out)" : "");
			return -1;
		}
		switch (g->run->exit_reason) {
		case KVM_EXIT_IO:
			if (g->run->io.port != TINY_GUEST_PORT ||
			    g->run->io.direction != KVM_EXIT_IO_OUT) {
				tap_diag("unexpected IO exit, port 0x%x",
					 g->run->io.port);
				return -1;
			}
			outs++;
			break;
		case KVM_EXIT_HLT:
			return outs;
		default:
			tap_diag("unexpected exit reason %u",
				 g->run->exit_reason);
			return -1;
		}
	}
}

struct counts {
	unsigned long long exit_ctx[3], exits, roundtrips, fallocs;
	unsigned long long kvm_exit;
};

static int collect(const struct conv_trace_row *row, void *arg)
{
	struct counts *c = arg;

	if (!strcmp(row->probe, "kvm:kvm_userspace_exit")) {
		c->exits += row->count;
		if (row->ctx < 3)
			c->exit_ctx[row->ctx] += row->count;
	} else if (!strcmp(row->probe, "kvm:userspace_roundtrip")) {
		c->roundtrips += row->count;
	} else if (!strcmp(row->probe, "sys_fallocate")) {
		c->fallocs += row->count;
	} else if (!strcmp(row->probe, "kvm:kvm_exit")) {
		c->kvm_exit += row->count;
	}
	return 0;
}

/* fallocate(2) k times on a scratch memfd */
static int do_fallocates(int k)
{
	int fd = memfd_create("host_kvm_exits", MFD_CLOEXEC), i, ok = 0;

	if (fd < 0 || ftruncate(fd, 64 << 10))
		return -1;
	for (i = 0; i < k; i++)
		ok += !fallocate(fd, 0, i * 4096, 4096);
	close(fd);
	return ok;
}

static void check_probes(struct conv_trace *t)
{
	struct conv_trace_probe_info info;
	int i, funcs = 0, missing_named = 0, tps = 0, tps_on = 0;

	for (i = 0; i < conv_trace_nr_probes(t); i++) {
		if (conv_trace_probe_info(t, i, &info))
			continue;
		if (info.is_func) {
			funcs++;
			/* attached is fine too (a host that allows fentry) */
			missing_named += info.attach ||
					 (info.name[0] && info.reason[0]);
		} else {
			tps++;
			tps_on += !!info.attach;
		}
	}
	tap_result(funcs > 0 && missing_named == funcs,
		   "every function probe is attached or missing with a reason (%d of %d)",
		   missing_named, funcs);
	tap_result(tps_on == tps, "all %d tracepoint rows attached (%d)", tps,
		   tps_on);
}

/* the histograms as "# " lines, so that they do not disturb TAP readers */
static void print_commented(struct conv_trace *t)
{
	char *buf = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return;
	conv_trace_print(t, f);
	fclose(f);
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		printf("# %s\n", line);
	free(buf);
}

static int run_guest_only(int n)
{
	struct tiny_guest g = { 0 };
	const char *what;
	int r = tiny_guest_create(&g, n, &what);

	if (r) {
		fprintf(stderr, "%s: %s\n", what, strerror(-r));
		return r == -ENOENT || r == -EACCES ? 4 : 1;
	}
	r = guest_run(&g, NULL);
	tiny_guest_destroy(&g);
	printf("outs %d\n", r);
	return r == n ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct conv_trace_opts opts = { .tgid = 0 };
	struct conv_trace *t;
	struct counts c = { 0 };
	struct tiny_guest g = { 0 };
	const char *what;
	int n = 10, outs, r, status;
	pid_t child;

	sigaction(SIGALRM, &sa, NULL);	/* no SA_RESTART: KVM_RUN sees EINTR */
	if (argc == 3 && !strcmp(argv[1], "--guest-only"))
		return run_guest_only(atoi(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "-n"))
		n = atoi(argv[2]);
	else if (argc != 1) {
		fprintf(stderr, "usage: %s [-n N] | --guest-only N\n", argv[0]);
		return 2;
	}
	if (n < 1 || n > 60000) {
		fprintf(stderr, "%s: N must be 1..60000\n", argv[0]);
		return 2;
	}

	if (access("/dev/kvm", R_OK | W_OK))
		tap_skip_all(TEST_NAME, false, "no usable /dev/kvm (%s)",
			     strerror(errno));
	t = conv_trace_open(&opts);
	if (!t && (errno == EPERM || errno == EACCES || errno == ENOSYS))
		tap_skip_all(TEST_NAME, false, "BPF loading not permitted (%s)",
			     strerror(errno));
	tap_result(t, "conv_trace_open loads with what this kernel allows (%s)",
		   t ? "ok" : strerror(errno));
	if (!t)
		return tap_finish(false);
	check_probes(t);

	r = tiny_guest_create(&g, n, &what);
	if (r)
		tap_skip_all(TEST_NAME, false, "%s: %s", what, strerror(-r));
	outs = guest_run(&g, t);
	tiny_guest_destroy(&g);
	tap_result(outs == n, "guest made %d port-IO exits (%d)", n, outs);

	conv_trace_set_context(t, 0);
	r = do_fallocates(5);
	child = fork();
	if (!child)
		_exit(do_fallocates(3) == 3 ? 0 : 1);	/* not traced */
	waitpid(child, &status, 0);

	conv_trace_read(t, collect, &c);
	tap_result(c.exits == (unsigned long long)n + 1,
		   "kvm_userspace_exit counted %llu == %d IO + 1 HLT",
		   c.exits, n);
	tap_result(c.exit_ctx[CTX_FIRST] == 1 &&
		   c.exit_ctx[CTX_REST] == (unsigned long long)n,
		   "contexts split the exits: 1 in ctx %d (%llu), %d in ctx %d (%llu)",
		   CTX_FIRST, c.exit_ctx[CTX_FIRST], n, CTX_REST,
		   c.exit_ctx[CTX_REST]);
	tap_result(c.roundtrips == (unsigned long long)n,
		   "userspace round trips %llu == %d re-entries", c.roundtrips,
		   n);
	tap_result(r == 5 && c.fallocs == 5,
		   "sys_fallocate counts this process's 5 calls, not the child's 3 (%llu)",
		   c.fallocs);
	tap_diag("kvm:kvm_exit rows counted %llu exits (informational)",
		 c.kvm_exit);
	tap_result(conv_trace_drops(t) == 0, "no samples lost");
	print_commented(t);
	conv_trace_close(t);
	return tap_finish(false);
}
