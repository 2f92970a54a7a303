// SPDX-License-Identifier: GPL-2.0
/* A run's identity on the host: see identity.h */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "identity.h"
#include "units.h"

/* what makes two runs comparable, each read from meta.json */
static const struct {
	const char *label;
	const char *obj;	/* NULL: meta.json's top level */
	const char *key;
	bool env;		/* the machine and emulator, not the A/B */
} id_field[RUN_ID_META] = {
	[RUN_ID_HOST_CPU] = { "host CPU", NULL, "host_cpu", true },
	[RUN_ID_HOST_CPUS] = { "host CPUs", NULL, "host_cpus", true },
	[RUN_ID_HOST_VIRT] = { "host virtualised", NULL, "host_virt", true },
	[RUN_ID_HOST_KERNEL] = { "host kernel", "vm", "host_kernel", true },
	[RUN_ID_QEMU] = { "QEMU", "vm", "qemu_version", true },
	[RUN_ID_ACCEL] = { "accelerator", "vm", "accel_opt", true },
	[RUN_ID_CPU] = { "emulated CPU", "vm", "cpu", true },
	[RUN_ID_VCPUS] = { "vCPUs", "vm", "cpus", true },
	[RUN_ID_MEM] = { "memory", "vm", "mem_mb", true },
	[RUN_ID_CONVBENCH] = { "convbench", NULL, "convbench_git", false },
	[RUN_ID_KERNEL] = { "kernel", NULL, "kernel_cache_key", false },
	[RUN_ID_ROUNDS] = { "rounds", NULL, "rounds", false },
	[RUN_ID_CONVERSIONS] = { "conversions", NULL, "iterations_per_round",
				 false },
	[RUN_ID_CONV_AT] = { "conversions per size", NULL, "iterations_at",
			     false },
};

const char *run_ident_label(unsigned int i)
{
	return i < RUN_ID_META ? id_field[i].label :
	       i == RUN_ID_GMEM ? "gmem kernel" : "sizes";
}

bool run_ident_is_env(unsigned int i)
{
	return i < RUN_ID_META && id_field[i].env;
}

static void jv_text(const struct jv *v, char *buf, size_t len)
{
	const char *s = jv_str(v, NULL);

	if (s)
		snprintf(buf, len, "%s", s);
	else if (v && !isnan(jv_num(v, NAN)))
		snprintf(buf, len, "%.17g", jv_num(v, NAN));
	else
		snprintf(buf, len, "?");
}

int run_ident_load(const char *dir, const struct run *r,
		   struct run_ident *id)
{
	char path[PATH_MAX], err[256], sz[32];
	struct jv *meta, *gmeta;
	unsigned int i;
	size_t k, at = 0;

	snprintf(path, sizeof(path), "%s/meta.json", dir);
	meta = jsonr_load(path, err, sizeof(err));
	if (!meta)
		return -ENOENT;
	for (i = 0; i < RUN_ID_META; i++) {
		const struct jv *o = id_field[i].obj ?
				     jv_get(meta, id_field[i].obj) : meta;

		jv_text(jv_get(o, id_field[i].key), id->v[i], sizeof(id->v[i]));
	}
	jsonr_free(meta);
	snprintf(path, sizeof(path), "%s/gmem/meta.json", dir);
	gmeta = jsonr_load(path, err, sizeof(err));
	if (gmeta)
		jv_text(jv_get(gmeta, "kernel_cache_key"), id->v[RUN_ID_GMEM],
			sizeof(id->v[RUN_ID_GMEM]));
	else
		snprintf(id->v[RUN_ID_GMEM], sizeof(id->v[RUN_ID_GMEM]),
			 "none");
	jsonr_free(gmeta);
	id->v[RUN_ID_SIZES][0] = '\0';
	for (k = 0; k < r->nsizes; k++)
		at += snprintf(id->v[RUN_ID_SIZES] + at,
			       at < sizeof(id->v[0]) ? sizeof(id->v[0]) - at : 0,
			       "%s%s", k ? "," : "",
			       size_str(r->sizes[k], sz, sizeof(sz)));
	return 0;
}

int run_ident_diff(const struct run_ident *a, const struct run_ident *b,
		   unsigned int from)
{
	unsigned int i;

	for (i = from; i < RUN_NID; i++)
		if (strcmp(a->v[i], b->v[i]))
			return (int)i;
	return -1;
}
