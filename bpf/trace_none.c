// SPDX-License-Identifier: GPL-2.0
/*
 * The loader library (trace_lib.h) without its BPF programs, for a
 * convbench built without the kernel's BTF (make test-quick): every
 * open fails with ENOTSUP, as on a kernel without BPF, so --trace and
 * --counts exit 4. Nothing else can be reached without an open trace.
 * The real convbench links trace_lib.c and trace_read.c instead.
 */
#include <errno.h>
#include <stddef.h>

#include "trace_lib.h"

struct conv_trace *conv_trace_open(const struct conv_trace_opts *opts)
{
	(void)opts;
	errno = ENOTSUP;
	return NULL;
}

void conv_trace_close(struct conv_trace *t)
{
	(void)t;
}

void conv_trace_set_context(struct conv_trace *t, unsigned int ctx)
{
	(void)t;
	(void)ctx;
}

int conv_trace_name_context(struct conv_trace *t, unsigned int ctx,
			    const char *name)
{
	(void)t;
	(void)ctx;
	(void)name;
	return -ENOTSUP;
}

int conv_trace_nr_probes(const struct conv_trace *t)
{
	(void)t;
	return 0;
}

int conv_trace_probe_info(const struct conv_trace *t, int i,
			  struct conv_trace_probe_info *info)
{
	(void)t;
	(void)i;
	(void)info;
	return -ENOENT;
}

int conv_trace_read(struct conv_trace *t, conv_trace_cb cb, void *arg)
{
	(void)t;
	(void)cb;
	(void)arg;
	return -ENOTSUP;
}

int conv_trace_reset(struct conv_trace *t)
{
	(void)t;
	return -ENOTSUP;
}

unsigned long long conv_trace_drops(struct conv_trace *t)
{
	(void)t;
	return 0;
}

unsigned long long conv_trace_hits(struct conv_trace *t)
{
	(void)t;
	return 0;
}

unsigned long long conv_trace_ctx_hits(struct conv_trace *t, unsigned int ctx)
{
	(void)t;
	(void)ctx;
	return 0;
}

int conv_trace_counter(struct conv_trace *t, unsigned int ctx, unsigned int c,
		       unsigned long long *val, const char **why)
{
	(void)t;
	(void)ctx;
	(void)c;
	(void)val;
	if (why)
		*why = "convbench was built without the BPF tracer";
	return -ENOENT;
}
