// SPDX-License-Identifier: GPL-2.0
/*
 * Provenance of a run. Inside the project's VM, kernel/vm/run-vm.sh puts
 * convbench.accel, convbench.qemu and (from make bench) convbench.series
 * and convbench.config on the kernel command line; convbench records
 * every convbench.* key it finds there.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "provenance.h"

#ifndef CONVBENCH_VERSION
#define CONVBENCH_VERSION "unknown"
#endif

static void read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = 0;
	if (!f)
		return;
	if (fgets(buf, len, f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

/* value of "key\t: value" in /proc/cpuinfo (first CPU) */
static void cpuinfo(const char *key, char *buf, size_t len)
{
	char line[1024];
	FILE *f = fopen("/proc/cpuinfo", "r");
	size_t kl = strlen(key);

	buf[0] = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, key, kl) || !colon)
			continue;
		snprintf(buf, len, "%s", colon + 2);
		buf[strcspn(buf, "\n")] = 0;
		break;
	}
	fclose(f);
}

static bool cpu_flag(const char *flag)
{
	char flags[4096], *p;
	size_t fl = strlen(flag);

	cpuinfo("flags", flags, sizeof(flags));
	for (p = strstr(flags, flag); p; p = strstr(p + 1, flag)) {
		if ((p == flags || p[-1] == ' ') && (p[fl] == ' ' || !p[fl]))
			return true;
	}
	return false;
}

/* convbench.KEY=VALUE from /proc/cmdline into buf, "" if absent */
static void cmdline_param(const char *key, char *buf, size_t len)
{
	char cmd[4096], want[128], *tok, *save = NULL;

	buf[0] = 0;
	read_line("/proc/cmdline", cmd, sizeof(cmd));
	snprintf(want, sizeof(want), "convbench.%s=", key);
	for (tok = strtok_r(cmd, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		if (!strncmp(tok, want, strlen(want))) {
			snprintf(buf, len, "%s", tok + strlen(want));
			return;
		}
	}
}

static void accelerator(char *buf, size_t len)
{
	cmdline_param("accel", buf, len);
	if (!buf[0])
		snprintf(buf, len, "%s", cpu_flag("hypervisor") ?
			 "unknown hypervisor" : "none (bare metal)");
}

void provenance_line(char *buf, size_t len)
{
	struct utsname u;
	char accel[64], cpu[256];

	uname(&u);
	accelerator(accel, sizeof(accel));
	cpuinfo("model name", cpu, sizeof(cpu));
	snprintf(buf, len, "Linux %s, %s, %s", u.release, accel, cpu);
}

void provenance_write(struct jsonw *w, const struct env *env)
{
	static const char *const keys[] = { "series", "config", "kernel_key",
					    "qemu", "accel" };
	char *p;
	char buf[1024], when[64];
	struct utsname u;
	time_t now = time(NULL);
	unsigned int i;
	int a;

	uname(&u);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	jsonw_kv_str(w, "convbench_version", CONVBENCH_VERSION);
	jsonw_kv_str(w, "date", when);
	jsonw_kv_str(w, "kernel_release", u.release);
	read_line("/proc/version", buf, sizeof(buf));
	jsonw_kv_str(w, "kernel_version", buf);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		char name[64];

		cmdline_param(keys[i], buf, sizeof(buf));
		snprintf(name, sizeof(name), "%s", keys[i]);
		if (!strcmp(keys[i], "series"))
			snprintf(name, sizeof(name), "series_sha");
		else if (!strcmp(keys[i], "config"))
			snprintf(name, sizeof(name), "config_sha");
		else if (!strcmp(keys[i], "qemu"))
			snprintf(name, sizeof(name), "qemu_version");
		if (!strcmp(keys[i], "accel"))
			accelerator(buf, sizeof(buf));
		if (buf[0])
			jsonw_kv_str(w, name, buf);
		else
			jsonw_kv_str(w, name, NULL);
	}
	cpuinfo("model name", buf, sizeof(buf));
	jsonw_kv_str(w, "cpu_model", buf);
	jsonw_kv_u64(w, "online_cpus", sysconf(_SC_NPROCESSORS_ONLN));
	jsonw_kv_bool(w, "hypervisor", cpu_flag("hypervisor"));
	jsonw_kv_bool(w, "constant_tsc", cpu_flag("constant_tsc"));
	jsonw_kv_str(w, "clock", "TSC (guest and host), KVM_GET_TSC_KHZ");
	read_line("/sys/devices/system/clocksource/clocksource0/current_clocksource",
		  buf, sizeof(buf));
	jsonw_kv_str(w, "clocksource", buf[0] ? buf : NULL);
	/* the host's TSC rate run-vm.sh gives the guest under TCG */
	read_line("/proc/cmdline", buf, sizeof(buf));
	p = strstr(buf, "tsc_early_khz=");
	if (p)
		jsonw_kv_u64(w, "tsc_early_khz", strtoull(p + 14, NULL, 10));
	else
		jsonw_kv_str(w, "tsc_early_khz", NULL);
	read_line("/sys/kernel/mm/transparent_hugepage/enabled", buf,
		  sizeof(buf));
	jsonw_kv_str(w, "thp_anon", buf);
	jsonw_key(w, "argv");
	jsonw_arr_open(w);
	for (a = 0; a < env->argc; a++)
		jsonw_str(w, env->argv[a]);
	jsonw_arr_close(w);
}
