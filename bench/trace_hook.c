// SPDX-License-Identifier: GPL-2.0
/* convbench --trace, see trace_hook.h */
#include <errno.h>
#include <string.h>

#include "options.h"
#include "trace_hook.h"
#include "trace_lib.h"

int trace_hook_open(struct trace_hook *h, bool verbose)
{
	struct conv_trace_opts opts = { .verbose = verbose };

	memset(h, 0, sizeof(*h));
	h->t = conv_trace_open(&opts);
	if (!h->t) {
		fprintf(stderr, "convbench: --trace: BPF tracing is not available here: %s\n",
			strerror(errno));
		return 4;
	}
	h->next_ctx = 1;	/* 0: warm-up and everything unlabelled */
	conv_trace_print_missing(h->t, stderr, "convbench: --trace: ");
	return 0;
}

/* called from the vCPU threads: one store into the BPF .bss */
static void set_ctx(void *arg, unsigned int ctx)
{
	conv_trace_set_context(arg, ctx);
}

void trace_hook_cell(struct trace_hook *h, struct cell_params *p)
{
	char name[96], sz[32];
	unsigned int d;

	if (!h->t)
		return;
	p->trace_ctx = h->next_ctx;
	p->trace_set = set_ctx;
	p->trace_arg = h->t;
	for (d = 0; d < DIR_NR; d++) {
		snprintf(name, sizeof(name), "%s %s %s", conv_mode_name(p->mode),
			 size_str(p->size, sz, sizeof(sz)), conv_dir_name(d));
		conv_trace_name_context(h->t, h->next_ctx + d, name);
	}
	h->next_ctx += DIR_NR;
}

int trace_hook_report(struct trace_hook *h, FILE *out, FILE *csv)
{
	int r = 0;

	if (!h->t)
		return 0;
	conv_trace_set_context(h->t, 0);
	if (out)
		r = conv_trace_print(h->t, out);
	if (csv && !r)
		r = conv_trace_write_csv(h->t, csv);
	return r;
}

void trace_hook_close(struct trace_hook *h)
{
	if (h->t)
		conv_trace_close(h->t);
	h->t = NULL;
}
