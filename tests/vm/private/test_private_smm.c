// SPDX-License-Identifier: GPL-2.0
/*
 * The software-private record covers every address space (kernel/patches:
 * KVM_SET_SW_PRIVATE_RANGE zaps the range in each of them). The record is
 * one per VM, but x86 maps the same gfns in two address spaces, the
 * normal one and SMM's, each with slots of its own. Here SMM has its own
 * private slot at X (a destructive one: no private page at X, the shared
 * page holds the host's pattern) and the normal address space none.
 *
 *   An SMI handler reads X while X is recorded shared: the host's pattern.
 *   The host records X private, and the next SMI's read must take the
 *   private path (no private page: KVM_EXIT_MEMORY_ERROR with the PRIVATE
 *   flag). Before the fix the zap reached address space 0 only, and the
 *   handler went on reading the shared page through its stale entry.
 *
 * Skips without the series, or where KVM has no SMM (KVM_CAP_X86_SMM).
 */
#include <unistd.h>
#include <sys/mman.h>

#include "kvm_util.h"
#include "tap.h"

#define TEST_NAME	"test_private_smm"
#define SMBASE		0x30000ULL
#define SMM_ENTRY	(SMBASE + 0x8000)
#define X_GPA		0x40000000ULL
#define SMM_PORT	0x1234
#define PATTERN		0x55aa55aaU
#define AS_SMM		(1U << 16)
#ifndef KVM_CAP_X86_SMM
#define KVM_CAP_X86_SMM	117
#endif

static struct kvm_vm *vm;
static struct kvm_vcpu *vcpu;

/* the normal world: sync with the host, again and again */
static GUEST_CODE void guest_loop(void)
{
	uint64_t i;

	for (i = 0;; i++)
		GUEST_SYNC(i);
}

/*
 * The SMI handler, 16-bit code at SMBASE + 0x8000 (CS base SMBASE, data
 * segments flat 4G): mov eax, [X]; mov edx, SMM_PORT; out dx, eax; rsm
 */
static void put_handler(uint8_t *p)
{
	const uint8_t code[] = {
		0x67, 0x66, 0xa1,			/* mov eax, [disp32] */
		X_GPA & 0xff, (X_GPA >> 8) & 0xff,
		(X_GPA >> 16) & 0xff, (X_GPA >> 24) & 0xff,
		0x66, 0xba,				/* mov edx, imm32 */
		SMM_PORT & 0xff, SMM_PORT >> 8, 0, 0,
		0x66, 0xef,				/* out dx, eax */
		0x0f, 0xaa,				/* rsm */
	};

	memcpy(p, code, sizeof(code));
}

/* run one SMI: 0 with the value the handler read, or -errno (exit left) */
static int smi_read(uint32_t *val)
{
	struct kvm_run *run = vcpu->run;
	struct ucall uc;
	int r;

	r = __vcpu_ioctl(vcpu, KVM_SMI, NULL) ? -errno : 0;
	if (!r)
		r = __vcpu_run(vcpu);
	if (r)
		return r;
	if (run->exit_reason != KVM_EXIT_IO || run->io.port != SMM_PORT ||
	    run->io.size != 4)
		return -EPROTO;
	memcpy(val, (char *)run + run->io.data_offset, 4);
	/* rsm, back to the loop's next sync */
	r = __vcpu_run(vcpu);
	if (!r && get_ucall(vcpu, &uc) != UCALL_SYNC)
		r = -EPROTO;
	return r;
}

int main(void)
{
	struct kvm_run_memory_exit *m;
	struct vm_mem_region *slot0;
	uint32_t val = 0, val2 = 0;
	struct ucall uc;
	char *shared;
	int fd, r, r2;

	setvbuf(stdout, NULL, _IOLBF, 0);
	r = kvm_check_cap(KVM_CAP_PRIVATE_MEM);
	if (r <= 0 || kvm_check_cap(KVM_CAP_PRIVATE_MEM_SW_GFN) <= 0)
		tap_no_series(TEST_NAME, true,
			      "KVM_CAP_PRIVATE_MEM is %d: kernel lacks the series", r);
	if (kvm_check_cap(KVM_CAP_X86_SMM) <= 0)
		tap_skip_all(TEST_NAME, true, "KVM has no SMM here (KVM_CAP_X86_SMM)");

	shared = mmap(NULL, SZ_2M, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	fd = memfd_inaccessible_create("convbench-smm", SZ_2M);
	r = shared == MAP_FAILED ? -ENOMEM : fd < 0 ? fd : __vm_create(&vm, NULL);
	if (!r)
		r = __vm_vcpu_add(vm, 0, guest_loop, &vcpu);
	slot0 = r ? NULL : vm_mem_region_find(vm, 0);
	if (!r && !slot0)
		r = -ENOENT;
	/* SMM's address space: slot 0's memory again, and a private slot at X */
	if (!r)
		r = __vm_set_user_memory_region(vm, AS_SMM | 0, 0, 0, slot0->size,
						slot0->hva);
	if (!r)
		r = __vm_set_private_memory_region(vm, AS_SMM | 1, KVM_MEM_PRIVATE,
						   X_GPA, SZ_2M, shared, fd, 0);
	if (!r)
		r = __vm_set_sw_private(vm, X_GPA, SZ_2M, false);
	tap_result(!r, "VM with an SMM address space holding a private slot at %#llx (%s)",
		   (unsigned long long)X_GPA, r ? strerror(-r) : "ok");
	if (r)
		return tap_finish(true);
	*(uint32_t *)shared = PATTERN;
	put_handler(addr_gpa2hva(vm, SMM_ENTRY));
	vcpu_set_timeout(vcpu, 20000);

	r = __vcpu_run(vcpu);
	if (!r && get_ucall(vcpu, &uc) != UCALL_SYNC)
		r = -EPROTO;
	if (!r)
		r = smi_read(&val);
	tap_result(!r && val == PATTERN,
		   "an SMI handler reads %#llx while it is shared: %s, %#x (want the host's %#x)",
		   (unsigned long long)X_GPA, r ? strerror(-r) : "ok", val,
		   PATTERN);
	if (r)
		return tap_finish(true);

	r = __vm_set_sw_private(vm, X_GPA, SZ_2M, true);
	r2 = r ? r : smi_read(&val2);
	m = kvm_run_memory(vcpu->run);
	tap_result(!r && r2 == -EFAULT &&
		   vcpu->run->exit_reason == KVM_EXIT_MEMORY_ERROR &&
		   m->gpa == X_GPA && (m->flags & KVM_MEMORY_EXIT_FLAG_PRIVATE),
		   "recorded private, the next SMI's read takes the private path: %s, exit %s, gpa %#llx, flags %#x (want EFAULT, KVM_EXIT_MEMORY_ERROR with the PRIVATE flag)%s",
		   r2 ? strerror(-r2) : "it read the shared page",
		   exit_reason_str(vcpu->run->exit_reason),
		   (unsigned long long)m->gpa, m->flags,
		   r2 ? "" : " again");
	kvm_vm_free(vm);
	close(fd);
	return tap_finish(true);
}
