// SPDX-License-Identifier: GPL-2.0
/* The smallest exit-making KVM guest: see tiny_guest.h */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "tiny_guest.h"

#define MEM_SIZE	0x10000
#define CODE_GPA	0x1000
#define PORT		TINY_GUEST_PORT

/* mov cx, n; 1: out PORT, al; dec cx; jnz 1b; hlt */
static void write_code(uint8_t *p, uint16_t n)
{
	const uint8_t code[] = {
		0xb9, n & 0xff, n >> 8,		/* mov cx, n */
		0xe6, PORT,			/* out PORT, al */
		0x49,				/* dec cx */
		0x75, 0xfb,			/* jnz -5 */
		0xf4,				/* hlt */
	};

	memcpy(p, code, sizeof(code));
}

/* 0 or -errno with *what naming the failing step */
int tiny_guest_create(struct tiny_guest *g, uint16_t n, const char **what)
{
	struct kvm_userspace_memory_region r = { 0 };
	struct kvm_sregs sregs;
	struct kvm_regs regs = { 0 };
	int size;

#define STEP(expr, name) do { *what = name; if ((expr) < 0) return -errno; } while (0)
	STEP(g->kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC), "open /dev/kvm");
	STEP(g->vm = ioctl(g->kvm, KVM_CREATE_VM, 0), "KVM_CREATE_VM");
	g->mem = mmap(NULL, MEM_SIZE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	STEP(g->mem == MAP_FAILED ? -1 : 0, "mmap guest memory");
	write_code(g->mem + CODE_GPA, n);
	r.memory_size = MEM_SIZE;
	r.userspace_addr = (uintptr_t)g->mem;
	STEP(ioctl(g->vm, KVM_SET_USER_MEMORY_REGION, &r),
	     "KVM_SET_USER_MEMORY_REGION");
	STEP(g->vcpu = ioctl(g->vm, KVM_CREATE_VCPU, 0), "KVM_CREATE_VCPU");
	STEP(size = ioctl(g->kvm, KVM_GET_VCPU_MMAP_SIZE, 0),
	     "KVM_GET_VCPU_MMAP_SIZE");
	g->run = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      g->vcpu, 0);
	STEP(g->run == MAP_FAILED ? -1 : 0, "mmap kvm_run");
	STEP(ioctl(g->vcpu, KVM_GET_SREGS, &sregs), "KVM_GET_SREGS");
	sregs.cs.base = 0;
	sregs.cs.selector = 0;
	STEP(ioctl(g->vcpu, KVM_SET_SREGS, &sregs), "KVM_SET_SREGS");
	regs.rip = CODE_GPA;
	regs.rflags = 2;
	STEP(ioctl(g->vcpu, KVM_SET_REGS, &regs), "KVM_SET_REGS");
#undef STEP
	return 0;
}

void tiny_guest_destroy(struct tiny_guest *g)
{
	if (g->vcpu > 0)
		close(g->vcpu);
	if (g->vm > 0)
		close(g->vm);
	if (g->kvm > 0)
		close(g->kvm);
}
