// SPDX-License-Identifier: GPL-2.0
/*
 * convbench KVM library, vCPU half: create, arguments, bounded KVM_RUN,
 * exit names, host side of ucalls. See kvm_util.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

#include "gmem_uapi.h"
#include "kvm_util.h"

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

#define VCPU_TIMEOUT_SIGNAL	(SIGRTMIN + 4)

/* ------------------------------------------------------------------ */
/* vCPUs                                                               */

int __vm_vcpu_add(struct kvm_vm *vm, uint32_t id, void *guest_code,
		  struct kvm_vcpu **out)
{
	struct kvm_vcpu *vcpu;
	int i, r;

	for (i = 0; i < VM_MAX_VCPUS && vm->vcpus[i]; i++)
		;
	if (i == VM_MAX_VCPUS)
		return -ENOSPC;

	vcpu = calloc(1, sizeof(*vcpu));
	if (!vcpu)
		return -ENOMEM;
	vcpu->vm = vm;
	vcpu->id = id;
	vcpu->run = MAP_FAILED;
	vcpu->timeout_ms = VCPU_DEFAULT_TIMEOUT_MS;
	vcpu->stack_gpa = __vm_alloc(vm, VCPU_STACK_SIZE, GUEST_PAGE_SIZE);
	if (!vcpu->stack_gpa) {
		free(vcpu);
		return -ENOMEM;
	}
	vcpu->stack_gpa += VCPU_STACK_SIZE;

	vcpu->fd = ioctl(vm->fd, KVM_CREATE_VCPU, id);
	if (vcpu->fd < 0) {
		r = -errno;
		free(vcpu);
		return r;
	}
	vm->vcpus[i] = vcpu;
	vcpu->run = mmap(NULL, vm->run_size, PROT_READ | PROT_WRITE,
			 MAP_SHARED, vcpu->fd, 0);
	r = vcpu->run == MAP_FAILED ? -errno : __x86_vcpu_setup(vcpu, guest_code);
	if (r) {
		kvm_vcpu_free(vcpu);
		return r;
	}
	*out = vcpu;
	return 0;
}

struct kvm_vcpu *vm_vcpu_add(struct kvm_vm *vm, uint32_t id, void *guest_code)
{
	struct kvm_vcpu *vcpu = NULL;
	int r = __vm_vcpu_add(vm, id, guest_code, &vcpu);

	errno = -r;
	TEST_ASSERT(!r, "adding vCPU %u failed", id);
	return vcpu;
}

void kvm_vcpu_free(struct kvm_vcpu *vcpu)
{
	int i;

	for (i = 0; i < VM_MAX_VCPUS; i++)
		if (vcpu->vm->vcpus[i] == vcpu)
			vcpu->vm->vcpus[i] = NULL;
	if (vcpu->has_timer)
		timer_delete((timer_t)vcpu->timer);
	if (vcpu->run != MAP_FAILED)
		munmap(vcpu->run, vcpu->vm->run_size);
	close(vcpu->fd);
	free(vcpu);
}

int __vcpu_args_set(struct kvm_vcpu *vcpu, unsigned int n, const uint64_t *a)
{
	struct kvm_regs regs;
	__u64 *dst[6] = { &regs.rdi, &regs.rsi, &regs.rdx, &regs.rcx,
			  &regs.r8, &regs.r9 };
	unsigned int i;

	if (n > 6)
		return -E2BIG;
	if (ioctl(vcpu->fd, KVM_GET_REGS, &regs))
		return -errno;
	for (i = 0; i < n; i++)
		*dst[i] = a[i];
	return ioctl(vcpu->fd, KVM_SET_REGS, &regs) ? -errno : 0;
}

void vcpu_args_set(struct kvm_vcpu *vcpu, unsigned int n, ...)
{
	uint64_t a[6];
	unsigned int i;
	va_list ap;
	int r;

	TEST_ASSERT(n <= 6, "at most 6 guest arguments, got %u", n);
	va_start(ap, n);
	for (i = 0; i < n; i++)
		a[i] = va_arg(ap, uint64_t);
	va_end(ap);
	r = __vcpu_args_set(vcpu, n, a);
	errno = -r;
	TEST_ASSERT(!r, "setting guest arguments failed");
}

int __vcpu_get_regs(struct kvm_vcpu *vcpu, struct kvm_regs *regs)
{
	return ioctl(vcpu->fd, KVM_GET_REGS, regs) ? -errno : 0;
}

/* ------------------------------------------------------------------ */
/* bounded KVM_RUN                                                     */

/*
 * The timer signal is unblocked in the vCPU thread and has a handler
 * without SA_RESTART: during KVM_RUN it makes the ioctl return EINTR;
 * if it lands just before the ioctl, immediate_exit makes KVM return at
 * once. Either way the vCPU cannot run past its deadline.
 */
static __thread struct kvm_run *tls_running;
static __thread volatile sig_atomic_t tls_timed_out;
static pthread_once_t timeout_once = PTHREAD_ONCE_INIT;
static int timeout_init_err;

static void vcpu_timeout_handler(int sig)
{
	(void)sig;
	if (tls_running)
		tls_running->immediate_exit = 1;
	tls_timed_out = 1;
}

static void timeout_init(void)
{
	struct sigaction sa = { .sa_handler = vcpu_timeout_handler };

	sigemptyset(&sa.sa_mask);
	if (sigaction(VCPU_TIMEOUT_SIGNAL, &sa, NULL))
		timeout_init_err = -errno;
}

static int vcpu_timer_prepare(struct kvm_vcpu *vcpu)
{
	struct sigevent sev = {
		.sigev_notify = SIGEV_THREAD_ID,
		.sigev_signo = VCPU_TIMEOUT_SIGNAL,
	};
	int tid = gettid();
	sigset_t set;
	timer_t t;

	pthread_once(&timeout_once, timeout_init);
	if (timeout_init_err)
		return timeout_init_err;
	if (vcpu->has_timer && vcpu->timer_tid == tid)
		return 0;
	if (vcpu->has_timer)
		timer_delete((timer_t)vcpu->timer);
	vcpu->has_timer = false;

	sev.sigev_notify_thread_id = tid;
	if (timer_create(CLOCK_MONOTONIC, &sev, &t))
		return -errno;
	sigemptyset(&set);
	sigaddset(&set, VCPU_TIMEOUT_SIGNAL);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	vcpu->timer = (void *)t;
	vcpu->timer_tid = tid;
	vcpu->has_timer = true;
	return 0;
}

void vcpu_set_timeout(struct kvm_vcpu *vcpu, unsigned int ms)
{
	vcpu->timeout_ms = ms;
}

int __vcpu_run(struct kvm_vcpu *vcpu)
{
	struct itimerspec its = { 0 };
	int r, err;

	vcpu->run->immediate_exit = 0;
	if (!vcpu->timeout_ms) {
		r = ioctl(vcpu->fd, KVM_RUN, NULL);
		return r < 0 ? -errno : 0;
	}

	r = vcpu_timer_prepare(vcpu);
	if (r)
		return r;
	tls_timed_out = 0;
	tls_running = vcpu->run;
	its.it_value.tv_sec = vcpu->timeout_ms / 1000;
	its.it_value.tv_nsec = (vcpu->timeout_ms % 1000) * 1000000L;
	if (timer_settime((timer_t)vcpu->timer, 0, &its, NULL)) {
		tls_running = NULL;
		return -errno;
	}

	r = ioctl(vcpu->fd, KVM_RUN, NULL);
	err = errno;

	/* disarm: a signal generated before this is handled on return */
	memset(&its, 0, sizeof(its));
	timer_settime((timer_t)vcpu->timer, 0, &its, NULL);
	tls_running = NULL;
	vcpu->run->immediate_exit = 0;

	if (r < 0 && err == EINTR && tls_timed_out)
		return -ETIMEDOUT;
	return r < 0 ? -err : 0;
}

void vcpu_run(struct kvm_vcpu *vcpu)
{
	int r = __vcpu_run(vcpu);

	errno = -r;
	TEST_ASSERT(!r, "KVM_RUN on vCPU %u: %s, exit reason %u (%s)",
		    vcpu->id, r == -ETIMEDOUT ? "timed out" : "failed",
		    vcpu->run->exit_reason,
		    exit_reason_str(vcpu->run->exit_reason));
}

const char *exit_reason_str(uint32_t reason)
{
	static const char *const names[] = {
		[KVM_EXIT_UNKNOWN] = "UNKNOWN",
		[KVM_EXIT_EXCEPTION] = "EXCEPTION",
		[KVM_EXIT_IO] = "IO",
		[KVM_EXIT_HYPERCALL] = "HYPERCALL",
		[KVM_EXIT_DEBUG] = "DEBUG",
		[KVM_EXIT_HLT] = "HLT",
		[KVM_EXIT_MMIO] = "MMIO",
		[KVM_EXIT_IRQ_WINDOW_OPEN] = "IRQ_WINDOW_OPEN",
		[KVM_EXIT_SHUTDOWN] = "SHUTDOWN",
		[KVM_EXIT_FAIL_ENTRY] = "FAIL_ENTRY",
		[KVM_EXIT_INTR] = "INTR",
		[KVM_EXIT_SET_TPR] = "SET_TPR",
		[KVM_EXIT_TPR_ACCESS] = "TPR_ACCESS",
		[KVM_EXIT_INTERNAL_ERROR] = "INTERNAL_ERROR",
		[KVM_EXIT_SYSTEM_EVENT] = "SYSTEM_EVENT",
		[KVM_EXIT_X86_RDMSR] = "X86_RDMSR",
		[KVM_EXIT_X86_WRMSR] = "X86_WRMSR",
		[KVM_EXIT_NOTIFY] = "NOTIFY",
	};

	if (reason == KVM_EXIT_MEMORY_ERROR)
		return "MEMORY_ERROR";
	if (reason == GMEM_EXIT_MEMORY_FAULT)
		return "MEMORY_FAULT";
	if (reason < sizeof(names) / sizeof(names[0]) && names[reason])
		return names[reason];
	return "?";
}

/* ------------------------------------------------------------------ */
/* ucalls                                                              */

uint64_t get_ucall(struct kvm_vcpu *vcpu, struct ucall *uc)
{
	struct kvm_run *run = vcpu->run;
	struct vm_mem_region *mr;
	uint32_t gva;

	if (uc)
		memset(uc, 0, sizeof(*uc));
	if (run->exit_reason != KVM_EXIT_IO || run->io.port != UCALL_PORT ||
	    run->io.direction != KVM_EXIT_IO_OUT || run->io.size != 4 ||
	    run->io.count != 1)
		return UCALL_NONE;

	memcpy(&gva, (char *)run + run->io.data_offset, sizeof(gva));
	mr = vm_mem_region_find(vcpu->vm, gva);
	if (!mr || gva + sizeof(struct ucall) > mr->gpa + mr->size)
		return UCALL_NONE;
	if (uc) {
		memcpy(uc, __addr_gpa2hva(vcpu->vm, gva), sizeof(*uc));
		return uc->cmd;
	}
	return ((struct ucall *)__addr_gpa2hva(vcpu->vm, gva))->cmd;
}

/* A NUL-terminated string at gva in guest memory, or "?" */
static const char *ucall_string(struct kvm_vm *vm, uint64_t gva)
{
	struct vm_mem_region *mr = vm_mem_region_find(vm, gva);
	const char *s;

	if (!mr)
		return "?";
	s = __addr_gpa2hva(vm, gva);
	return memchr(s, 0, mr->gpa + mr->size - gva) ? s : "?";
}

int ucall_describe(struct kvm_vm *vm, const struct ucall *uc, char *buf,
		   size_t len)
{
	static const char *const vectors[32] = {
		"#DE", "#DB", "NMI", "#BP", "#OF", "#BR", "#UD", "#NM",
		"#DF", "?", "#TS", "#NP", "#SS", "#GP", "#PF", "?",
		"#MF", "#AC", "#MC", "#XM", "#VE", "#CP",
	};
	const uint64_t *a = uc->args;

	switch (uc->cmd) {
	case UCALL_ABORT:
		if (a[5])
			return snprintf(buf, len, "%s:%llu: assertion failed: %s (%#llx vs %#llx)",
					ucall_string(vm, a[0]), (unsigned long long)a[1],
					ucall_string(vm, a[2]), (unsigned long long)a[3],
					(unsigned long long)a[4]);
		return snprintf(buf, len, "%s:%llu: assertion failed: %s",
				ucall_string(vm, a[0]), (unsigned long long)a[1],
				ucall_string(vm, a[2]));
	case UCALL_EXCEPTION:
		return snprintf(buf, len,
				"unhandled exception %llu (%s), error code %#llx, rip %#llx, cr2 %#llx",
				(unsigned long long)a[0],
				a[0] < 32 && vectors[a[0]] ? vectors[a[0]] : "?",
				(unsigned long long)a[1], (unsigned long long)a[2],
				(unsigned long long)a[3]);
	default:
		return snprintf(buf, len, "ucall %llu (%#llx, %#llx, %#llx, %#llx)",
				(unsigned long long)uc->cmd,
				(unsigned long long)a[0], (unsigned long long)a[1],
				(unsigned long long)a[2], (unsigned long long)a[3]);
	}
}

bool get_map_gpa_range(struct kvm_vcpu *vcpu, uint64_t *gpa,
		       uint64_t *npages, uint64_t *attrs)
{
	struct kvm_run *run = vcpu->run;

	if (run->exit_reason != KVM_EXIT_HYPERCALL ||
	    run->hypercall.nr != KVM_HC_MAP_GPA_RANGE)
		return false;
	*gpa = run->hypercall.args[0];
	*npages = run->hypercall.args[1];
	*attrs = run->hypercall.args[2];
	return true;
}

void vcpu_run_expect_ucall(struct kvm_vcpu *vcpu, uint64_t cmd,
			   struct ucall *uc)
{
	struct ucall tmp;
	struct kvm_regs regs = { 0 };
	uint64_t got;
	int r;

	if (!uc)
		uc = &tmp;
	r = __vcpu_run(vcpu);
	got = r ? UCALL_NONE : get_ucall(vcpu, uc);
	if (got == UCALL_ABORT || got == UCALL_EXCEPTION)
		REPORT_GUEST_ASSERT(vcpu, *uc);
	if (got == cmd)
		return;
	__vcpu_get_regs(vcpu, &regs);
	errno = r < 0 ? -r : 0;
	TEST_FAIL("vCPU %u: wanted ucall %llu, got %s (KVM_RUN %d, exit %u %s, rip %#llx)",
		  vcpu->id, (unsigned long long)cmd,
		  got != UCALL_NONE ? "another ucall" : "no ucall", r,
		  vcpu->run->exit_reason, exit_reason_str(vcpu->run->exit_reason),
		  (unsigned long long)regs.rip);
}
