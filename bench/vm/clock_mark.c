// SPDX-License-Identifier: GPL-2.0
/* convbench --clock-mark: see clock_mark.h */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <linux/kvm.h>

#include "clock_mark.h"
#include "cell_types.h"	/* rdtsc() */

/* KVM_GET_TSC_KHZ of a throwaway vCPU: the rate convbench's cells get */
static long kvm_tsc_khz(void)
{
	int kvm, vm = -1, vcpu = -1;
	long khz = -ENODEV;

	kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm >= 0)
		vm = ioctl(kvm, KVM_CREATE_VM, 0);
	if (vm >= 0)
		vcpu = ioctl(vm, KVM_CREATE_VCPU, 0);
	if (vcpu >= 0)
		khz = ioctl(vcpu, KVM_GET_TSC_KHZ, 0);
	if (khz < 0 && khz != -ENODEV)
		khz = -errno;
	if (vcpu >= 0)
		close(vcpu);
	if (vm >= 0)
		close(vm);
	if (kvm >= 0)
		close(kvm);
	return khz;
}

static void read_word(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	if (fgets(buf, len, f))
		buf[strcspn(buf, " \n")] = 0;
	fclose(f);
}

static long cmdline_tsc_early_khz(void)
{
	char cmd[4096] = "", *p;
	FILE *f = fopen("/proc/cmdline", "r");

	if (!f)
		return 0;
	if (!fgets(cmd, sizeof(cmd), f))
		cmd[0] = 0;
	fclose(f);
	p = strstr(cmd, "tsc_early_khz=");
	return p ? strtol(p + 14, NULL, 10) : 0;
}

/* the kernel log says the TSC was found unstable */
static int tsc_unstable(void)
{
	int len = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	char *buf;
	int n, r;

	if (len <= 0)
		return 0;
	buf = malloc(len + 1);
	if (!buf)
		return 0;
	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, len);
	buf[n > 0 ? n : 0] = 0;
	r = strstr(buf, "TSC unstable") || strstr(buf, "Marking TSC unstable") ||
	    strstr(buf, "tsc: Marking TSC unstable");
	free(buf);
	return r;
}

int clock_mark_print(const char *label, FILE *f)
{
	struct timespec ts, gap = { 0, CLOCK_MARK_GAP_MS * 1000000L };
	long khz = kvm_tsc_khz();
	int i, kmsg, unstable = tsc_unstable();
	char cs[64];
	uint64_t tsc;

	read_word("/sys/devices/system/clocksource/clocksource0/current_clocksource",
		  cs, sizeof(cs));
	kmsg = getenv("CONVBENCH_CLOCK_KMSG") ?
	       open("/dev/kmsg", O_WRONLY | O_CLOEXEC) : -1;
	for (i = 0; i < CLOCK_MARK_LINES; i++) {
		char line[512];

		if (i)
			nanosleep(&gap, NULL);
		tsc = rdtsc();
		clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
		snprintf(line, sizeof(line), "CONVBENCH-CLOCK %s tsc=%llu "
			 "raw_ns=%llu tsc_khz=%ld clocksource=%s "
			 "tsc_early_khz=%ld tsc_unstable=%d", label,
			 (unsigned long long)tsc,
			 (unsigned long long)ts.tv_sec * 1000000000ULL + ts.tv_nsec,
			 khz > 0 ? khz : 0, cs, cmdline_tsc_early_khz(),
			 unstable);
		/* an error-level record: printed even with "quiet" */
		if (kmsg < 0 || dprintf(kmsg, "<3>%s\n", line) < 0)
			fprintf(f, "%s\n", line);
		fflush(f);
	}
	if (kmsg >= 0)
		close(kmsg);
	if (khz <= 0)
		fprintf(stderr, "convbench: --clock-mark: KVM_GET_TSC_KHZ: %s\n",
			strerror((int)-khz));
	return khz > 0 ? 0 : (int)khz;
}
