// SPDX-License-Identifier: GPL-2.0
/* convstress's hang report, the faults part: see diag_faults.h */
#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "diag_faults.h"
#include "inplace_check.h"
#include "verdict.h"

#define TRACE		"/sys/kernel/tracing"
#define TRACE_EVENT	TRACE "/events/kvm/kvm_page_fault/enable"
/* the MMU notifier's invalidations, by the task that caused them */
#define TRACE_UNMAP	TRACE "/events/kvm/kvm_unmap_hva_range/enable"
#define TRACE_READ_MAX	(4 << 20)

void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

ssize_t read_text(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, got = 0;

	if (fd < 0)
		return -1;
	while (got < (ssize_t)len - 1 &&
	       (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += n;
	close(fd);
	buf[got] = '\0';
	return got;
}

/* the VMM's record of gpa: 0 private, 1 shared, -1 not a guest page */
static int record_of(struct stress *st, uint64_t gpa)
{
	unsigned int s;

	for (s = 0; s < STRESS_SLOTS; s++) {
		struct stress_slot *sl = &st->slot[s];

		if (gpa >= sl->gpa && gpa - sl->gpa < sl->guest_bytes)
			return sl->shadow[(gpa - sl->gpa) / STRESS_PAGE];
	}
	return -1;
}

/* what the host's record and the fd say of the page at gpa */
static void describe_gpa(struct stress *st, uint64_t gpa, char *buf,
			 size_t len)
{
	unsigned int s;

	for (s = 0; s < STRESS_SLOTS; s++) {
		struct stress_slot *sl = &st->slot[s];
		uint64_t off = gpa - sl->gpa, p = off / STRESS_PAGE;
		off_t data;

		if (gpa < sl->gpa || off >= sl->size)
			continue;
		data = lseek(sl->fd, off & ~(STRESS_PAGE - 1), SEEK_DATA);
		snprintf(buf, len, "slot %c page %llu: the fd %s there, the VMM's record says %s",
			 s == STRESS_SLOT_D ? 'D' : 'I', (unsigned long long)p,
			 data == (off_t)(off & ~(STRESS_PAGE - 1)) ? "has a page" : "has no page",
			 p < sl->guest_bytes / STRESS_PAGE ?
			 (sl->shadow[p] ? "shared" : "private") : "(host region)");
		return;
	}
	snprintf(buf, len, "outside the private slots");
}


/* "   convstress-84   [001] ....": the task before its -pid */
static void count_comm(struct unmap_sum *u, const char *line)
{
	char comm[20];
	const char *p = line, *dash;
	size_t len;
	unsigned int i;

	while (*p == ' ')
		p++;
	dash = strstr(p, " [");
	while (dash && dash > p && dash[-1] == ' ')
		dash--;
	/* back to the '-' before the pid */
	while (dash && dash > p && dash[-1] != '-')
		dash--;
	len = dash && dash > p ? (size_t)(dash - 1 - p) : 0;
	if (!len || len >= sizeof(comm))
		len = snprintf(comm, sizeof(comm), "?");
	else
		memcpy(comm, p, len);
	comm[len] = '\0';
	u->count++;
	for (i = 0; i < u->ncomm && strcmp(u->comm[i].comm, comm); i++)
		;
	if (i == u->ncomm && u->ncomm < MAX_COMMS)
		snprintf(u->comm[u->ncomm++].comm, sizeof(u->comm[0].comm),
			 "%s", comm);
	if (i < u->ncomm)
		u->comm[i].count++;
}

static bool trace_write(const char *path, const char *val, bool truncate)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | (truncate ? O_TRUNC : 0));
	bool ok = fd >= 0 && write(fd, val, strlen(val)) == (ssize_t)strlen(val);

	if (fd >= 0)
		close(fd);
	return ok;
}

/*
 * kvm:kvm_page_fault for ms: per vCPU id, how many and where; and
 * kvm:kvm_unmap_hva_range, by task
 */
bool trace_faults(struct stress *st, struct fault_sum *sum, unsigned int n,
		  struct unmap_sum *unmap, unsigned int ms)
{
	char *buf, *line, *save = NULL;
	ssize_t got;

	memset(sum, 0, n * sizeof(*sum));
	memset(unmap, 0, sizeof(*unmap));
	if (!trace_write(TRACE "/trace", "", true) ||
	    !trace_write(TRACE_EVENT, "1", false))
		return false;
	trace_write(TRACE_UNMAP, "1", false);
	sleep_ms(ms);
	trace_write(TRACE_EVENT, "0", false);
	trace_write(TRACE_UNMAP, "0", false);
	buf = malloc(TRACE_READ_MAX);
	got = buf ? read_text(TRACE "/trace", buf, TRACE_READ_MAX) : -1;
	for (line = got > 0 ? strtok_r(buf, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		/* 6.1: "vcpu %u rip 0x%lx address 0x%016llx error_code 0x%llx" */
		char *e = strstr(line, "kvm_page_fault: ");
		unsigned long long rip, gpa, err;
		unsigned int id, i;
		struct fault_sum *f;

		if (strstr(line, "kvm_unmap_hva_range: ")) {
			count_comm(unmap, line);
			continue;
		}
		if (!e || sscanf(e, "kvm_page_fault: vcpu %u rip %llx address %llx error_code %llx",
				 &id, &rip, &gpa, &err) != 4 || id >= n)
			continue;
		f = &sum[id];
		f->count++;
		switch (record_of(st, gpa)) {
		case 0:
			f->on_private++;
			break;
		case 1:
			f->on_shared++;
			break;
		default:
			f->elsewhere++;
		}
		for (i = 0; i < f->naddr && f->addr[i].gpa != (gpa & ~0xfffULL); i++)
			;
		if (i == f->naddr && f->naddr < MAX_ADDRS)
			f->addr[f->naddr++] = (struct fault_addr){
				gpa & ~0xfffULL, rip, err, 0 };
		if (i < f->naddr)
			f->addr[i].count++;
	}
	free(buf);
	trace_write(TRACE "/trace", "", true);
	return got >= 0;
}

void print_faults(struct stress *st, unsigned int id,
		  const struct fault_sum *f, unsigned int ms)
{
	unsigned int i, top = 0;
	char what[256];

	if (!f->count) {
		printf("# diag: vCPU %u: no kvm_page_fault in %u ms\n", id, ms);
		return;
	}
	for (i = 1; i < f->naddr; i++)
		if (f->addr[i].count > f->addr[top].count)
			top = i;
	describe_gpa(st, f->addr[top].gpa, what, sizeof(what));
	printf("# diag: vCPU %u: %llu kvm_page_fault in %u ms (%llu on pages the VMM's record calls private, %llu shared, %llu elsewhere) at %u%s pages, most at gpa %#llx (%llu times, rip %#llx, error code %#llx): %s\n",
	       id, (unsigned long long)f->count, ms,
	       (unsigned long long)f->on_private,
	       (unsigned long long)f->on_shared,
	       (unsigned long long)f->elsewhere, f->naddr,
	       f->naddr == MAX_ADDRS ? "+" : "",
	       (unsigned long long)f->addr[top].gpa,
	       (unsigned long long)f->addr[top].count,
	       (unsigned long long)f->addr[top].rip,
	       (unsigned long long)f->addr[top].error, what);
}
