// SPDX-License-Identifier: GPL-2.0
/*
 * Host test of bench/kvm/kvm_util on this machine's /dev/kvm: a long-mode
 * guest runs C functions of this binary, syncs values, reads and writes
 * memory the host prepared, reports asserts and exceptions; KVM_RUN is
 * always bounded. Needs no part of the private-memory series.
 *
 * Output: TAP-like lines, then "N passed, N failed[, N skipped]".
 * Exit 0 pass, 1 fail, 4 skip (no /dev/kvm).
 */
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "kvm_util.h"
#include "tap.h"

#define DATA_GPA	0x40000000ULL	/* slot 1, anonymous */
#define MEMFD_GPA	0x40200000ULL	/* slot 2, memfd MAP_SHARED */
#define DATA_SIZE	SZ_2M
#define PATTERN_HOST	0xa5a5a5a5c3c3c3c3ULL
#define PATTERN_GUEST	0x5a5a5a5a3c3c3c3cULL
#define UNMAPPED_GVA	0x8000000000ULL	/* 512 GiB: PML4[1] not present */

static struct kvm_vm *vm;
static uint32_t next_vcpu_id;
static bool abort_expected;	/* no diagnostic for a wanted abort */

/* one global, different copies in host and guest */
static uint64_t shared_counter;

/* ------------------------------------------------------------------ */
/* guest code                                                          */

static GUEST_CODE void guest_sync_values(uint64_t a, uint64_t b)
{
	GUEST_SYNC(a);
	GUEST_SYNC_ARGS(b, ~b, a + b, 0x1234);
	GUEST_DONE();
}

static GUEST_CODE void guest_mem(uint64_t gpa, uint64_t size)
{
	/* first half: host pattern expected; second half: guest writes */
	GUEST_SYNC(guest_count_mismatch64((void *)gpa, PATTERN_HOST, size / 2));
	guest_fill64((void *)(gpa + size / 2), PATTERN_GUEST, size / 2);
	GUEST_SYNC(guest_read64(gpa + size - 8));
	GUEST_DONE();
}

static GUEST_CODE void guest_counter(void)
{
	shared_counter++;
	GUEST_DONE();
}

static GUEST_CODE void guest_assert(uint64_t v)
{
	GUEST_SYNC(__LINE__ + 1);
	GUEST_ASSERT_EQ(v, 2);
	GUEST_DONE();
}

static GUEST_CODE void guest_ud2(void)
{
	asm volatile("ud2");
	GUEST_DONE();
}

static GUEST_CODE void guest_page_fault(void)
{
	GUEST_SYNC(guest_read64(UNMAPPED_GVA));
	GUEST_DONE();
}

/* an IDT of limit 0: the page fault cannot be delivered, triple fault */
static GUEST_CODE void guest_triple_fault(void)
{
	struct __attribute__((packed)) { uint16_t limit; uint64_t base; }
		idtr = { 0, 0 };

	asm volatile("lidt %0" : : "m"(idtr));
	GUEST_SYNC(guest_read64(UNMAPPED_GVA));
	GUEST_DONE();
}

static GUEST_CODE void guest_returns(void)
{
}

static GUEST_CODE void guest_spin(void)
{
	for (;;)
		asm volatile("" ::: "memory");
}

static GUEST_CODE void guest_control_regs(void)
{
	uint64_t cr0, cr4, cs;
	uint32_t lo, hi;

	asm volatile("mov %%cr0, %0" : "=r"(cr0));
	asm volatile("mov %%cr4, %0" : "=r"(cr4));
	asm volatile("mov %%cs, %0" : "=r"(cs));
	asm volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(0xc0000080));
	GUEST_SYNC_ARGS(cr0, cr4, ((uint64_t)hi << 32) | lo, cs);
	GUEST_DONE();
}

static GUEST_CODE void guest_hypercall(uint64_t gpa)
{
	GUEST_SYNC(guest_map_gpa_range(gpa, 1, KVM_MAP_GPA_RANGE_ENCRYPTED));
	GUEST_DONE();
}

/* ------------------------------------------------------------------ */
/* host side                                                           */

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

static struct kvm_vcpu *new_vcpu(void *guest_code, unsigned int timeout_ms)
{
	struct kvm_vcpu *vcpu = vm_vcpu_add(vm, next_vcpu_id++, guest_code);

	vcpu_set_timeout(vcpu, timeout_ms);
	return vcpu;
}

/* Run once; the ucall command, or UCALL_NONE with a diagnostic */
static uint64_t run_ucall(struct kvm_vcpu *vcpu, struct ucall *uc)
{
	char buf[256];
	uint64_t cmd;
	int r = __vcpu_run(vcpu);

	if (r) {
		tap_diag("vCPU %u: KVM_RUN: %s, exit %s", vcpu->id,
			 strerror(-r), exit_reason_str(vcpu->run->exit_reason));
		return UCALL_NONE;
	}
	cmd = get_ucall(vcpu, uc);
	if (cmd == UCALL_NONE)
		tap_diag("vCPU %u: exit %s, not a ucall", vcpu->id,
			 exit_reason_str(vcpu->run->exit_reason));
	if ((cmd == UCALL_ABORT || cmd == UCALL_EXCEPTION) && !abort_expected) {
		ucall_describe(vm, uc, buf, sizeof(buf));
		tap_diag("vCPU %u: %s", vcpu->id, buf);
	}
	return cmd;
}

static void test_sync_values(void)
{
	struct kvm_vcpu *vcpu = new_vcpu(guest_sync_values, 2000);
	uint64_t a = 0xdeadbeefcafef00dULL, b = 42;
	struct ucall uc;
	bool ok;

	vcpu_args_set(vcpu, 2, a, b);
	ok = run_ucall(vcpu, &uc) == UCALL_SYNC && uc.args[0] == a;
	ok = ok && run_ucall(vcpu, &uc) == UCALL_SYNC && uc.args[0] == b &&
	     uc.args[1] == ~b && uc.args[2] == a + b && uc.args[3] == 0x1234;
	ok = ok && run_ucall(vcpu, &uc) == UCALL_DONE;
	tap_result(ok, "GUEST_SYNC carries 64-bit values and guest arguments");
}

static void test_memory(uint32_t slot, uint64_t gpa, enum vm_backing backing,
			const char *what)
{
	struct vm_mem_opts o = {
		.slot = slot, .gpa = gpa, .size = DATA_SIZE,
		.backing = backing, .private_fd = -1,
	};
	struct vm_mem_region *mr = vm_mem_add(vm, &o);
	struct kvm_vcpu *vcpu = new_vcpu(guest_mem, 2000);
	uint64_t *p = mr->hva, i, bad = 0, word = 0;
	struct ucall uc;
	bool ok;

	for (i = 0; i < DATA_SIZE / 16; i++)
		p[i] = PATTERN_HOST;
	vcpu_args_set(vcpu, 2, gpa, DATA_SIZE);

	ok = run_ucall(vcpu, &uc) == UCALL_SYNC && uc.args[0] == 0;
	tap_result(ok, "%s: guest reads the host's pattern (%llu bad words)",
		   what, (unsigned long long)uc.args[0]);

	ok = run_ucall(vcpu, &uc) == UCALL_SYNC && uc.args[0] == PATTERN_GUEST;
	for (i = DATA_SIZE / 16; i < DATA_SIZE / 8; i++)
		bad += p[i] != PATTERN_GUEST;
	if (backing == VM_BACKING_MEMFD)
		ok = ok && pread(mr->memfd, &word, 8, DATA_SIZE - 8) == 8 &&
		     word == PATTERN_GUEST;
	ok = ok && !bad && run_ucall(vcpu, &uc) == UCALL_DONE;
	tap_result(ok, "%s: host sees the guest's writes (%llu bad words)",
		   what, (unsigned long long)bad);
}

static void test_globals(void)
{
	struct kvm_vcpu *vcpu = new_vcpu(guest_counter, 2000);
	struct ucall uc;
	bool ok;

	shared_counter = 41;
	sync_global_to_guest(vm, shared_counter);
	shared_counter = 7;	/* host copy: the guest must not see it */
	ok = run_ucall(vcpu, &uc) == UCALL_DONE && shared_counter == 7;
	sync_global_from_guest(vm, shared_counter);
	tap_result(ok && shared_counter == 42,
		   "sync_global_to/from_guest move a global (%llu)",
		   (unsigned long long)shared_counter);
}

static void test_guest_assert(void)
{
	struct kvm_vcpu *vcpu = new_vcpu(guest_assert, 2000);
	struct ucall uc;
	uint64_t line;
	char buf[256] = "";
	bool ok;

	vcpu_args_set(vcpu, 1, 1ULL);
	ok = run_ucall(vcpu, &uc) == UCALL_SYNC;
	line = uc.args[0];
	abort_expected = true;
	ok = ok && run_ucall(vcpu, &uc) == UCALL_ABORT && uc.args[1] == line &&
	     uc.args[3] == 1 && uc.args[4] == 2;
	abort_expected = false;
	ucall_describe(vm, &uc, buf, sizeof(buf));
	ok = ok && strstr(buf, "test_kvm_guest.c:") && strstr(buf, "v == 2");
	tap_result(ok, "GUEST_ASSERT_EQ reports file:line and values (%s)", buf);
}

static void test_exception(void *guest_code, uint64_t vector,
			   uint64_t cr2, const char *what)
{
	struct kvm_vcpu *vcpu = new_vcpu(guest_code, 2000);
	struct ucall uc;
	bool ok;

	abort_expected = true;
	ok = run_ucall(vcpu, &uc) == UCALL_EXCEPTION && uc.args[0] == vector &&
	     (!cr2 || uc.args[3] == cr2);
	abort_expected = false;
	tap_result(ok, "guest %s is reported as vector %llu", what,
		   (unsigned long long)vector);
}

/*
 * x86_check_tables(), what convbench says after a SHUTDOWN exit: a real
 * triple fault with the tables as built is "intact"; a changed page
 * directory entry or IDT gate is named.
 */
static void test_check_tables(void)
{
	struct kvm_vcpu *vcpu = new_vcpu(guest_triple_fault, 2000);
	uint64_t *pml4, *pdpt, *pd, *idt, pde, gate;
	char why[96];
	int r, c;

	r = __vcpu_run(vcpu);
	c = x86_check_tables(vm, why, sizeof(why));
	tap_result(!r && vcpu->run->exit_reason == KVM_EXIT_SHUTDOWN && !c,
		   "guest triple fault: exit %s, tables: %s",
		   exit_reason_str(vcpu->run->exit_reason), why);

	pml4 = addr_gpa2hva(vm, vm->pml4_gpa);
	pdpt = addr_gpa2hva(vm, pml4[0] & 0xffffffffff000ULL);
	pd = addr_gpa2hva(vm, pdpt[1] & 0xffffffffff000ULL);
	pde = pd[3];
	pd[3] &= ~1ULL;			/* 0x40600000 not present */
	c = x86_check_tables(vm, why, sizeof(why));
	pd[3] = pde;
	tap_result(c == -EINVAL && strstr(why, "PD[1][3] is"),
		   "a changed page directory entry is named (%s)", why);

	idt = addr_gpa2hva(vm, vm->idt_gpa);
	gate = idt[2 * 14];
	idt[2 * 14] ^= 1ULL << 47;	/* #PF gate not present */
	c = x86_check_tables(vm, why, sizeof(why));
	idt[2 * 14] = gate;
	tap_result(c == -EINVAL && !strcmp(why, "IDT vector 14 changed") &&
		   !x86_check_tables(vm, why, sizeof(why)),
		   "a changed IDT gate is named, and intact once restored");
}

static void test_return(void)
{
	struct kvm_vcpu *vcpu = new_vcpu(guest_returns, 2000);
	struct ucall uc;

	tap_result(run_ucall(vcpu, &uc) == UCALL_DONE,
		   "returning from guest code ends in GUEST_DONE");
}

static void test_timeout(void)
{
	struct kvm_vcpu *vcpu = new_vcpu(guest_spin, 200);
	uint64_t t0 = now_ms(), t1, t2;
	int r1, r2;

	r1 = __vcpu_run(vcpu);
	t1 = now_ms();
	r2 = __vcpu_run(vcpu);		/* again: no stale timer state */
	t2 = now_ms();
	tap_result(r1 == -ETIMEDOUT && r2 == -ETIMEDOUT &&
		   t1 - t0 >= 150 && t1 - t0 < 2000 && t2 - t1 >= 150 &&
		   t2 - t1 < 2000,
		   "spinning guest: KVM_RUN bounded (%d after %llu ms, %d after %llu ms)",
		   r1, (unsigned long long)(t1 - t0), r2,
		   (unsigned long long)(t2 - t1));
}

static void test_long_mode(void)
{
	struct kvm_vcpu *vcpu = new_vcpu(guest_control_regs, 2000);
	struct ucall uc;
	bool ok;

	ok = run_ucall(vcpu, &uc) == UCALL_SYNC &&
	     (uc.args[0] & 0x80000001) == 0x80000001 &&	/* PG, PE */
	     (uc.args[1] & 0x20) &&				/* PAE */
	     (uc.args[2] & 0x500) == 0x500 &&			/* LME, LMA */
	     uc.args[3] == 0x8;
	tap_result(ok, "guest in long mode (cr0 %#llx cr4 %#llx efer %#llx cs %#llx)",
		   (unsigned long long)uc.args[0], (unsigned long long)uc.args[1],
		   (unsigned long long)uc.args[2], (unsigned long long)uc.args[3]);
}

struct thread_arg {
	struct kvm_vcpu *vcpu;
	uint64_t a;
	bool ok;
};

static void *vcpu_thread(void *p)
{
	struct thread_arg *t = p;
	struct ucall uc;
	int i;

	t->ok = true;
	for (i = 0; i < 2; i++) {
		int r = __vcpu_run(t->vcpu);

		t->ok = t->ok && !r && get_ucall(t->vcpu, &uc) == UCALL_SYNC;
		t->ok = t->ok && (i ? uc.args[0] == 1000 : uc.args[0] == t->a);
	}
	t->ok = t->ok && !__vcpu_run(t->vcpu) &&
		get_ucall(t->vcpu, &uc) == UCALL_DONE;
	return NULL;
}

static void test_threads(void)
{
	struct thread_arg t[2];
	pthread_t th[2];
	int i;

	for (i = 0; i < 2; i++) {
		t[i].vcpu = new_vcpu(guest_sync_values, 2000);
		t[i].a = 100 + i;
		vcpu_args_set(t[i].vcpu, 2, t[i].a, 1000ULL);
	}
	for (i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, vcpu_thread, &t[i]);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	tap_result(t[0].ok && t[1].ok, "two vCPUs in two threads");
}

static void test_errors(void)
{
	struct vm_mem_opts o = {
		.slot = 7, .gpa = DATA_GPA, .size = DATA_SIZE, .private_fd = -1,
	};
	int overlap = __vm_mem_add(vm, &o, NULL);
	int misaligned = __vm_set_user_memory_region(vm, 8, 0, 0x60000800ULL,
						     DATA_SIZE, NULL);
	int bad_flags = __vm_set_user_memory_region(vm, 8, 1U << 3,
						    0x60000000ULL, DATA_SIZE,
						    NULL);

	tap_result(overlap == -EEXIST && misaligned == -EINVAL &&
		   bad_flags == -EINVAL,
		   "__ variants return -errno (overlap %d, misaligned %d, flags %d)",
		   overlap, misaligned, bad_flags);
}

static void test_hypercall(void)
{
	struct kvm_vcpu *vcpu;
	struct kvm_run *run;
	struct ucall uc;
	int r = __vm_enable_exit_map_gpa_range(vm);

	if (r) {
		tap_skip(strerror(-r), "MAP_GPA_RANGE hypercall exits to userspace");
		return;
	}
	vcpu = new_vcpu(guest_hypercall, 1000);
	run = vcpu->run;
	vcpu_args_set(vcpu, 1, DATA_GPA);
	r = __vcpu_run(vcpu);
	if (r == -ETIMEDOUT) {
		/* CONTEXT.md: this host's KVM_RUN spins on VMMCALL/VMCALL */
		tap_skip("KVM_RUN did not return within 1 s (host KVM spins on the hypercall instruction)",
			 "MAP_GPA_RANGE hypercall exits to userspace");
		return;
	}
	if (r || run->exit_reason != KVM_EXIT_HYPERCALL ||
	    run->hypercall.nr != KVM_HC_MAP_GPA_RANGE ||
	    run->hypercall.args[0] != DATA_GPA || run->hypercall.args[1] != 1 ||
	    run->hypercall.args[2] != KVM_MAP_GPA_RANGE_ENCRYPTED) {
		tap_result(false, "MAP_GPA_RANGE hypercall exits to userspace (r %d exit %s)",
			   r, exit_reason_str(run->exit_reason));
		return;
	}
	run->hypercall.ret = 0;
	tap_result(run_ucall(vcpu, &uc) == UCALL_SYNC && uc.args[0] == 0,
		   "MAP_GPA_RANGE hypercall exits to userspace");
}

static void test_privmem_guard(void)
{
	int cap = kvm_check_cap(KVM_CAP_PRIVATE_MEM);
	int fd;

	if (cap > 0) {
		tap_skip("kernel has the series", "memfd_inaccessible_create refuses a kernel without the series");
		return;
	}
	fd = memfd_inaccessible_create("convbench-test", GUEST_PAGE_SIZE);
	tap_result(fd == -EINVAL || fd == -EOPNOTSUPP,
		   "memfd_inaccessible_create refuses a kernel without the series (%s)",
		   fd < 0 ? strerror(-fd) : "accepted");
	if (fd >= 0)
		close(fd);
}

/*
 * Our ABI numbers must mean nothing to a kernel without the series (this
 * host runs an upstream kernel): the capabilities answer 0 and the record
 * ioctl is unknown there, so no upstream ioctl runs under our name.
 */
static void test_abi_numbers(void)
{
	static const long caps[] = {
		KVM_CAP_PRIVATE_MEM, KVM_CAP_PRIVATE_MEM_SW_GFN,
		KVM_CAP_PRIVATE_MEM_INPLACE,
	};
	struct kvm_sw_private_range range = {
		.gpa = DATA_GPA, .size = GUEST_PAGE_SIZE, .flags = KVM_SW_PRIVATE,
	};
	unsigned int i, answered = 0;
	int r;

	if (kvm_check_cap(KVM_CAP_PRIVATE_MEM) > 0) {
		tap_skip("kernel has the series", "our ABI numbers are unknown to an upstream kernel");
		return;
	}
	for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++)
		answered += kvm_check_cap(caps[i]) != 0;
	r = __vm_ioctl(vm, KVM_SET_SW_PRIVATE_RANGE, &range) ? -errno : 0;
	tap_result(!answered && r == -ENOTTY,
		   "our ABI numbers are unknown to an upstream kernel: %u of 3 capabilities answered, the record ioctl %#lx is %s (want ENOTTY)",
		   answered, (unsigned long)KVM_SET_SW_PRIVATE_RANGE,
		   r ? strerrorname_np(-r) : "accepted");
}

int main(void)
{
	int r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	r = kvm_open_dev();
	if (r < 0)
		tap_skip_all("test_kvm_guest", false, "no /dev/kvm (%s)",
			     strerror(-r));
	close(r);

	r = __vm_create(&vm, NULL);
	tap_result(!r, "long-mode VM created (%s)", r ? strerror(-r) : "ok");
	if (r)
		return tap_finish(false);

	test_sync_values();
	test_long_mode();
	test_memory(1, DATA_GPA, VM_BACKING_ANON, "anonymous slot");
	test_memory(2, MEMFD_GPA, VM_BACKING_MEMFD, "memfd slot");
	test_globals();
	test_guest_assert();
	test_exception(guest_ud2, 6, 0, "ud2");
	test_exception(guest_page_fault, 14, UNMAPPED_GVA, "page fault");
	test_return();
	test_check_tables();
	test_timeout();
	test_threads();
	test_errors();
	test_hypercall();
	test_privmem_guard();
	test_abi_numbers();

	kvm_vm_free(vm);
	return tap_finish(false);
}
