// SPDX-License-Identifier: GPL-2.0
/* Checks for the in-place conversion test: see inplace_check.h */
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <unistd.h>
#include <sys/stat.h>

#include "inplace.h"
#include "inplace_check.h"
#include "tap.h"

#define PAGE		GUEST_PAGE_SIZE
#define P_PROBE		0x50524f4245445721ULL	/* "PROBEDW!" */

/* ------------------------------------------------------------------ */
/* guest code                                                          */

GUEST_CODE void guest_read_page(uint64_t gpa)
{
	uint64_t first = guest_read64(gpa);

	GUEST_SYNC_ARGS(first, guest_count_mismatch64((void *)gpa, first, PAGE),
			0, 0);
	GUEST_DONE();
}

/* one word per page, every page of the range: base + page */
GUEST_CODE void guest_fill_pages(uint64_t gpa, uint64_t npages, uint64_t base)
{
	uint64_t p;

	for (p = 0; p < npages; p++)
		guest_write64(gpa + p * PAGE, base + p);
	GUEST_SYNC(0);
	GUEST_DONE();
}

/* pages whose first word is not base + page, and the first of them */
GUEST_CODE void guest_read_pages(uint64_t gpa, uint64_t npages, uint64_t base)
{
	uint64_t p, bad = 0, first = ~0ULL;

	for (p = 0; p < npages; p++)
		if (guest_read64(gpa + p * PAGE) != base + p && !bad++)
			first = p;
	GUEST_SYNC_ARGS(bad, first, 0, 0);
	GUEST_DONE();
}

static GUEST_CODE void guest_write_page(uint64_t gpa, uint64_t val)
{
	guest_fill64((void *)gpa, val, PAGE);
	GUEST_SYNC(guest_count_mismatch64((void *)gpa, val, PAGE));
	GUEST_DONE();
}

/* ------------------------------------------------------------------ */
/* checks: each prints what failed and returns whether it held          */

bool check(bool cond, const char *fmt, ...)
{
	va_list ap;

	if (cond)
		return true;
	printf("#   FAILED: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return false;
}

static struct kvm_vcpu *vcpu;

void guest_checks_init(struct kvm_vcpu *v)
{
	vcpu = v;
}

int guest_call3(void *fn, uint64_t a, uint64_t b, uint64_t c,
		struct ucall *uc)
{
	uint64_t args[3] = { a, b, c };
	int r = __vcpu_set_entry(vcpu, fn);

	if (!r)
		r = __vcpu_args_set(vcpu, 3, args);
	if (!r)
		r = __vcpu_run(vcpu);
	if (!r && get_ucall(vcpu, uc) != UCALL_SYNC)
		r = -EPROTO;
	return r;
}

enum run_result { RUN_SYNC, RUN_MEMORY_EXIT, RUN_ERROR };

static enum run_result guest_call(void *fn, uint64_t a0, uint64_t a1,
				  struct ucall *uc)
{
	uint64_t args[2] = { a0, a1 };
	int r = __vcpu_set_entry(vcpu, fn);

	if (!r)
		r = __vcpu_args_set(vcpu, 2, args);
	if (!r)
		r = __vcpu_run(vcpu);
	if (!r && get_ucall(vcpu, uc) == UCALL_SYNC)
		return RUN_SYNC;
	if (r == -EFAULT && vcpu->run->exit_reason == KVM_EXIT_MEMORY_ERROR)
		return RUN_MEMORY_EXIT;
	if (!r && get_ucall(vcpu, uc) != UCALL_NONE) {
		char buf[256];

		ucall_describe(vcpu->vm, uc, buf, sizeof(buf));
		tap_diag("  guest: %s", buf);
	} else {
		tap_diag("  KVM_RUN %d (%s), exit %u (%s)", r,
			 r ? strerror(-r) : "ok", vcpu->run->exit_reason,
			 exit_reason_str(vcpu->run->exit_reason));
	}
	return RUN_ERROR;
}

bool guest_sees(uint64_t gpa, uint64_t val, const char *what)
{
	struct ucall uc = { 0 };
	enum run_result r = guest_call(guest_read_page, gpa, 0, &uc);

	return check(r == RUN_SYNC && uc.args[0] == val && !uc.args[1],
		     "%s: guest read of %#llx: %s, first word %#llx (want %#llx), %llu other words",
		     what, (unsigned long long)gpa,
		     r == RUN_SYNC ? "no exit" : "exit",
		     (unsigned long long)uc.args[0], (unsigned long long)val,
		     (unsigned long long)uc.args[1]);
}

bool guest_writes(uint64_t gpa, uint64_t val, const char *what)
{
	struct ucall uc = { 0 };
	enum run_result r = guest_call(guest_write_page, gpa, val, &uc);

	return check(r == RUN_SYNC && uc.args[0] == 0,
		     "%s: guest write of %#llx", what, (unsigned long long)gpa);
}

bool guest_exits(uint64_t gpa, uint32_t flags, const char *what)
{
	struct kvm_run_memory_exit *m = kvm_run_memory(vcpu->run);
	struct ucall uc = { 0 };
	enum run_result r = guest_call(guest_read_page, gpa, 0, &uc);

	return check(r == RUN_MEMORY_EXIT && m->gpa == gpa && m->flags == flags,
		     "%s: guest read of %#llx should exit KVM_EXIT_MEMORY_ERROR flags %#x (got %s, gpa %#llx flags %#x)",
		     what, (unsigned long long)gpa, flags,
		     r == RUN_SYNC ? "no exit" : r == RUN_MEMORY_EXIT ?
		     "the exit" : "an error",
		     (unsigned long long)m->gpa, m->flags);
}

/* ------------------------------------------------------------------ */
/* host access through a mapping, SIGBUS caught                         */

static sigjmp_buf bus_jmp;
static volatile sig_atomic_t bus_armed;

static void bus_handler(int sig)
{
	if (bus_armed)
		siglongjmp(bus_jmp, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Read (write: fill with val) one page at p: 0, or -1 on SIGBUS */
static int probe(volatile uint64_t *p, bool write, uint64_t val,
		 uint64_t *mismatch)
{
	uint64_t i, bad = 0;

	if (sigsetjmp(bus_jmp, 1)) {
		bus_armed = 0;
		return -1;
	}
	bus_armed = 1;
	for (i = 0; i < PAGE / 8; i++) {
		if (write)
			p[i] = val;
		else
			bad += p[i] != val;
	}
	bus_armed = 0;
	if (mismatch)
		*mismatch = bad;
	return 0;
}

void host_catch_sigbus(void)
{
	struct sigaction sa = { .sa_handler = bus_handler };

	sigaction(SIGBUS, &sa, NULL);
}

bool host_sees(char *map, unsigned int pg, uint64_t val, const char *what)
{
	uint64_t bad = 0;
	int r = probe((uint64_t *)(map + pg * PAGE), false, val, &bad);

	return check(!r && !bad, "%s: host read of page %u: %s, %llu words differ from %#llx",
		     what, pg, r ? "SIGBUS" : "ok", (unsigned long long)bad,
		     (unsigned long long)val);
}

bool host_fills(char *map, unsigned int pg, uint64_t val, const char *what)
{
	int r = probe((uint64_t *)(map + pg * PAGE), true, val, NULL);

	return check(!r, "%s: host write of page %u: SIGBUS", what, pg);
}

bool host_bus(char *map, unsigned int pg, const char *what)
{
	volatile uint64_t *p = (uint64_t *)(map + pg * PAGE);
	bool rd = probe(p, false, 0, NULL) == -1;
	bool wr = probe(p, true, P_PROBE, NULL) == -1;

	return check(rd && wr, "%s: page %u through a mapping: read %s, write %s (want SIGBUS)",
		     what, pg, rd ? "SIGBUS" : "went through",
		     wr ? "SIGBUS" : "went through");
}

bool host_io_eperm(int fd, unsigned int pg, const char *what)
{
	char buf[PAGE];
	ssize_t rd, prd, wr, pwr;
	int e_rd, e_prd, e_wr, e_pwr;

	memset(buf, 0x5a, sizeof(buf));
	lseek(fd, pg * PAGE, SEEK_SET);
	rd = read(fd, buf, PAGE);
	e_rd = errno;
	prd = pread(fd, buf, PAGE, pg * PAGE);
	e_prd = errno;
	lseek(fd, pg * PAGE, SEEK_SET);
	wr = write(fd, buf, PAGE);
	e_wr = errno;
	pwr = pwrite(fd, buf, PAGE, pg * PAGE);
	e_pwr = errno;
	return check(rd == -1 && e_rd == EPERM && prd == -1 && e_prd == EPERM &&
		     wr == -1 && e_wr == EPERM && pwr == -1 && e_pwr == EPERM,
		     "%s: page %u read %zd/%s pread %zd/%s write %zd/%s pwrite %zd/%s (want EPERM)",
		     what, pg, rd, strerrorname_np(e_rd), prd,
		     strerrorname_np(e_prd), wr, strerrorname_np(e_wr), pwr,
		     strerrorname_np(e_pwr));
}

bool host_pread_sees(int fd, unsigned int pg, uint64_t val, const char *what)
{
	uint64_t buf[PAGE / 8], i, bad = 0;
	ssize_t n = pread(fd, buf, PAGE, pg * PAGE);

	for (i = 0; n == PAGE && i < PAGE / 8; i++)
		bad += buf[i] != val;
	return check(n == PAGE && !bad, "%s: pread of page %u: %zd (%s), %llu words differ",
		     what, pg, n, n < 0 ? strerror(errno) : "ok",
		     (unsigned long long)bad);
}

/* pagemap shows pfns to root only */
uint64_t host_pfn(const void *addr)
{
	uint64_t ent = 0;
	int pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);

	if (pm < 0)
		return 0;
	if (pread(pm, &ent, 8, (uintptr_t)addr / PAGE * 8) != 8)
		ent = 0;
	close(pm);
	return ent >> 63 ? ent & ((1ULL << 55) - 1) : 0;
}

uint64_t kpageflags(uint64_t pfn)
{
	uint64_t flags = 0;
	int kpf = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);

	if (kpf < 0)
		return 0;
	if (pread(kpf, &flags, 8, pfn * 8) != 8)
		flags = 0;
	close(kpf);
	return flags;
}

uint64_t fd_blocks(int f)
{
	struct stat st;

	return fstat(f, &st) ? ~0ULL : (uint64_t)st.st_blocks;
}
/* ------------------------------------------------------------------ */
/* test setup                                                          */

void require_series(const char *test, bool inplace)
{
	int r = kvm_open_dev();

	if (r < 0)
		tap_no_series(test, true, "no /dev/kvm (%s)", strerror(-r));
	close(r);
	if (kvm_check_cap(KVM_CAP_PRIVATE_MEM) <= 0 ||
	    kvm_check_cap(KVM_CAP_PRIVATE_MEM_SW_GFN) <= 0)
		tap_no_series(test, true, "KVM_CAP_PRIVATE_MEM is absent: kernel lacks the series");
	if (inplace && !inplace_supported())
		tap_no_series(test, true,
			      "KVM_CAP_PRIVATE_MEM_INPLACE is absent: kernel lacks the in-place variant");
	host_catch_sigbus();
}

bool record_range(struct kvm_vm *vm, uint64_t gpa, uint64_t size,
		  bool private)
{
	int r = __vm_set_sw_private(vm, gpa, size, private);

	return check(!r, "KVM_SET_SW_PRIVATE_RANGE(%#llx, %#llx, %s): %s",
		     (unsigned long long)gpa, (unsigned long long)size,
		     private ? "private" : "shared", strerror(-r));
}

bool write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	bool ok = fd >= 0 && write(fd, val, strlen(val)) == (ssize_t)strlen(val);

	if (fd >= 0)
		close(fd);
	return ok;
}
