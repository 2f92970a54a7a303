// SPDX-License-Identifier: GPL-2.0
/*
 * x86-64 long-mode setup for convbench guests: copy of this executable
 * into guest memory, identity map with 2M pages, GDT/TSS/IDT, CPUID,
 * XCR0 and the register state a vCPU starts with.
 */
#include <elf.h>
#include <link.h>
#include <stdlib.h>
#include <sys/auxv.h>

#include "kvm_util.h"

#define X86_CR0_PE	(1ULL << 0)
#define X86_CR0_MP	(1ULL << 1)
#define X86_CR0_ET	(1ULL << 4)
#define X86_CR0_NE	(1ULL << 5)
#define X86_CR0_WP	(1ULL << 16)
#define X86_CR0_AM	(1ULL << 18)
#define X86_CR0_PG	(1ULL << 31)
#define X86_CR4_PAE	(1ULL << 5)
#define X86_CR4_OSFXSR	(1ULL << 9)
#define X86_CR4_OSXMMEXCPT (1ULL << 10)
#define X86_CR4_OSXSAVE	(1ULL << 18)
#define EFER_LME	(1ULL << 8)
#define EFER_LMA	(1ULL << 10)

#define PTE_P		(1ULL << 0)
#define PTE_RW		(1ULL << 1)
#define PTE_PS		(1ULL << 7)

#define SEL_CODE	0x08
#define SEL_DATA	0x10
#define SEL_TSS		0x18

#define XFEATURE_X87	(1ULL << 0)
#define XFEATURE_SSE	(1ULL << 1)
#define XFEATURE_AVX	(1ULL << 2)
#define XFEATURE_AVX512	(7ULL << 5)	/* opmask, ZMM_Hi256, Hi16_ZMM */

/* Written by the host into the guest's copy (see guest_lib.h) */
bool guest_use_vmmcall;

/* Called from guest_entry.S, in the guest */
void GUEST_CODE __attribute__((noreturn, used))
guest_report_exception(uint64_t vector, uint64_t error, uint64_t rip,
		       uint64_t cr2)
{
	guest_ucall(UCALL_EXCEPTION, vector, error, rip, cr2, 0, 0);
	guest_halt();
}

void GUEST_CODE __attribute__((noreturn, used)) guest_report_return(void)
{
	GUEST_DONE();
	guest_halt();
}

/* PT_LOAD segments of this executable, as mapped (static, non-PIE) */
static int image_segments(const ElfW(Phdr) **phdr, unsigned long *phnum)
{
	const ElfW(Phdr) *p = (const void *)getauxval(AT_PHDR);
	unsigned long i, n = getauxval(AT_PHNUM);

	if (!p || !n)
		return -ENOEXEC;
	/* A PIE would be loaded high, out of the identity map */
	for (i = 0; i < n; i++)
		if (p[i].p_type == PT_PHDR &&
		    p[i].p_vaddr != (uintptr_t)p)
			return -ENOEXEC;
	*phdr = p;
	*phnum = n;
	return 0;
}

uint64_t x86_image_end(void)
{
	const ElfW(Phdr) *p;
	unsigned long i, n;
	uint64_t end = 0;

	if (image_segments(&p, &n))
		return 0;
	for (i = 0; i < n; i++)
		if (p[i].p_type == PT_LOAD && p[i].p_vaddr + p[i].p_memsz > end)
			end = p[i].p_vaddr + p[i].p_memsz;
	return end;
}

int __x86_load_image(struct kvm_vm *vm)
{
	const ElfW(Phdr) *p;
	unsigned long i, n;
	int r;

	r = image_segments(&p, &n);
	if (r)
		return r;
	if (x86_image_end() > vm->mem_size)
		return -E2BIG;

	for (i = 0; i < n; i++) {
		void *dst;

		if (p[i].p_type != PT_LOAD || !p[i].p_memsz)
			continue;
		dst = __addr_gpa2hva(vm, p[i].p_vaddr);
		if (!dst)
			return -EFAULT;
		/* live copy: .data/.bss as the host has them now */
		memcpy(dst, (void *)p[i].p_vaddr, p[i].p_memsz);
	}
	return 0;
}

static int get_supported_cpuid(struct kvm_vm *vm)
{
	int nent = 64;

	for (;;) {
		struct kvm_cpuid2 *c;

		c = calloc(1, sizeof(*c) + nent * sizeof(c->entries[0]));
		if (!c)
			return -ENOMEM;
		c->nent = nent;
		if (!ioctl(vm->kvm_fd, KVM_GET_SUPPORTED_CPUID, c)) {
			vm->cpuid = c;
			return 0;
		}
		free(c);
		if (errno != E2BIG || nent >= 4096)
			return -errno;
		nent *= 2;
	}
}

static struct kvm_cpuid_entry2 *cpuid_find(struct kvm_cpuid2 *c,
					   uint32_t fn, uint32_t idx)
{
	uint32_t i;

	for (i = 0; i < c->nent; i++)
		if (c->entries[i].function == fn && c->entries[i].index == idx)
			return &c->entries[i];
	return NULL;
}

static void cpuid_features(struct kvm_vm *vm)
{
	struct kvm_cpuid_entry2 *e = cpuid_find(vm->cpuid, 0, 0);
	uint64_t supported;

	/* "AuthenticAMD" / "HygonGenuine": ebx "Auth" / "Hygo" */
	vm->amd = e && (e->ebx == 0x68747541 || e->ebx == 0x6f677948);

	vm->xcr0 = 0;
	e = cpuid_find(vm->cpuid, 1, 0);
	if (!e || !(e->ecx & (1U << 26)))	/* XSAVE */
		return;
	e = cpuid_find(vm->cpuid, 0xd, 0);
	if (!e)
		return;
	supported = ((uint64_t)e->edx << 32) | e->eax;
	vm->xcr0 = supported & (XFEATURE_X87 | XFEATURE_SSE | XFEATURE_AVX);
	if ((supported & XFEATURE_AVX512) == XFEATURE_AVX512 &&
	    (vm->xcr0 & XFEATURE_AVX))
		vm->xcr0 |= XFEATURE_AVX512;
}

static void *alloc_zeroed_page(struct kvm_vm *vm, uint64_t *gpa)
{
	void *p;

	*gpa = __vm_alloc(vm, GUEST_PAGE_SIZE, GUEST_PAGE_SIZE);
	if (!*gpa)
		return NULL;
	p = __addr_gpa2hva(vm, *gpa);
	if (p)
		memset(p, 0, GUEST_PAGE_SIZE);
	return p;
}

/* the identity map's PD entry for GiB g, 2M page i */
static uint64_t identity_pde(unsigned int g, unsigned int i)
{
	return ((uint64_t)g * SZ_1G + i * SZ_2M) | PTE_P | PTE_RW | PTE_PS;
}

/* vector v's 64-bit interrupt gate, low and high quadword */
static void idt_gate(unsigned int v, uint64_t gate[2])
{
	uint64_t h = guest_exception_stubs[v];

	gate[0] = (h & 0xffff) | (uint64_t)SEL_CODE << 16 | 0x8eULL << 40 |
		  (h >> 16 & 0xffff) << 48;
	gate[1] = h >> 32;
}

static int build_page_tables(struct kvm_vm *vm)
{
	uint64_t *pml4, *pdpt, *pd, pdpt_gpa, pd_gpa;
	unsigned int g, i;

	pml4 = alloc_zeroed_page(vm, &vm->pml4_gpa);
	pdpt = alloc_zeroed_page(vm, &pdpt_gpa);
	if (!pml4 || !pdpt)
		return -ENOMEM;
	pml4[0] = pdpt_gpa | PTE_P | PTE_RW;

	for (g = 0; g < vm->map_gib; g++) {
		pd = alloc_zeroed_page(vm, &pd_gpa);
		if (!pd)
			return -ENOMEM;
		pdpt[g] = pd_gpa | PTE_P | PTE_RW;
		for (i = 0; i < 512; i++)
			pd[i] = identity_pde(g, i);
	}
	return 0;
}

/*
 * After a triple fault: are the guest's page tables, GDT and IDT still
 * what the host wrote (the walker's accessed/dirty bits aside)? Says
 * which entry changed, or that all are intact. A triple fault with
 * intact tables is not guest memory corruption: the guest saw a fault
 * its tables cannot produce (under TCG, an emulation race).
 */
int x86_check_tables(struct kvm_vm *vm, char *why, size_t len)
{
	const uint64_t ad = 3ULL << 5;	/* accessed, dirty */
	uint64_t *pml4, *pdpt, *pd, *idt;
	unsigned int g, i, v;

	pml4 = __addr_gpa2hva(vm, vm->pml4_gpa);
	if (!pml4)
		return snprintf(why, len, "PML4 not in guest memory"), -EFAULT;
	pdpt = __addr_gpa2hva(vm, pml4[0] & 0xffffffffff000ULL);
	if ((pml4[0] & ~ad & 0xfff) != (PTE_P | PTE_RW) || !pdpt)
		return snprintf(why, len, "PML4[0] changed: %#llx",
				(unsigned long long)pml4[0]), -EINVAL;
	for (g = 0; g < vm->map_gib; g++) {
		pd = __addr_gpa2hva(vm, pdpt[g] & 0xffffffffff000ULL);
		if ((pdpt[g] & ~ad & 0xfff) != (PTE_P | PTE_RW) || !pd)
			return snprintf(why, len, "PDPT[%u] changed: %#llx", g,
					(unsigned long long)pdpt[g]), -EINVAL;
		for (i = 0; i < 512; i++) {
			uint64_t want = identity_pde(g, i);

			if ((pd[i] & ~ad) != want)
				return snprintf(why, len,
						"PD[%u][%u] is %#llx, not %#llx",
						g, i, (unsigned long long)pd[i],
						(unsigned long long)want), -EINVAL;
		}
	}
	idt = __addr_gpa2hva(vm, vm->idt_gpa);
	for (v = 0; idt && v < 32; v++) {
		uint64_t gate[2];

		idt_gate(v, gate);
		if (idt[2 * v] != gate[0] || idt[2 * v + 1] != gate[1])
			return snprintf(why, len, "IDT vector %u changed", v),
			       -EINVAL;
	}
	snprintf(why, len, "page tables and IDT intact");
	return 0;
}

static uint64_t tss_descriptor_low(uint64_t base, uint32_t limit)
{
	return (limit & 0xffffULL) | (base & 0xffffffULL) << 16 |
	       0x8bULL << 40 |			/* P, busy 64-bit TSS */
	       ((uint64_t)(limit >> 16) & 0xf) << 48 |
	       (base >> 24 & 0xff) << 56;
}

static int build_descriptor_tables(struct kvm_vm *vm)
{
	uint64_t *gdt, *idt;
	unsigned int v;

	gdt = alloc_zeroed_page(vm, &vm->gdt_gpa);
	idt = alloc_zeroed_page(vm, &vm->idt_gpa);
	if (!gdt || !idt || !alloc_zeroed_page(vm, &vm->tss_gpa))
		return -ENOMEM;

	gdt[SEL_CODE / 8] = 0x00af9b000000ffffULL;	/* 64-bit code, DPL0 */
	gdt[SEL_DATA / 8] = 0x00cf93000000ffffULL;	/* data, DPL0 */
	gdt[SEL_TSS / 8] = tss_descriptor_low(vm->tss_gpa, 0x67);
	gdt[SEL_TSS / 8 + 1] = vm->tss_gpa >> 32;

	/* 64-bit interrupt gates, no IST: report the exception and halt */
	for (v = 0; v < 32; v++)
		idt_gate(v, &idt[2 * v]);
	return 0;
}

int __x86_vm_setup(struct kvm_vm *vm)
{
	bool *vmmcall;
	int r;

	r = get_supported_cpuid(vm);
	if (r)
		return r;
	cpuid_features(vm);

	r = build_page_tables(vm);
	if (!r)
		r = build_descriptor_tables(vm);
	if (r)
		return r;

	vmmcall = __addr_gpa2hva(vm, (uintptr_t)&guest_use_vmmcall);
	if (!vmmcall)
		return -EFAULT;
	*vmmcall = vm->amd;
	return 0;
}

static void seg_flat(struct kvm_segment *s, uint16_t sel, bool code)
{
	memset(s, 0, sizeof(*s));
	s->base = 0;
	s->limit = 0xffffffff;
	s->selector = sel;
	s->type = code ? 11 : 3;	/* execute/read, accessed : read/write, accessed */
	s->present = 1;
	s->s = 1;
	s->g = 1;
	s->l = code;
	s->db = !code;
}

static int setup_sregs(struct kvm_vcpu *vcpu)
{
	struct kvm_vm *vm = vcpu->vm;
	struct kvm_sregs sregs;

	if (ioctl(vcpu->fd, KVM_GET_SREGS, &sregs))
		return -errno;

	seg_flat(&sregs.cs, SEL_CODE, true);
	seg_flat(&sregs.ds, SEL_DATA, false);
	sregs.es = sregs.fs = sregs.gs = sregs.ss = sregs.ds;

	memset(&sregs.tr, 0, sizeof(sregs.tr));
	sregs.tr.base = vm->tss_gpa;
	sregs.tr.limit = 0x67;
	sregs.tr.selector = SEL_TSS;
	sregs.tr.type = 11;
	sregs.tr.present = 1;

	memset(&sregs.ldt, 0, sizeof(sregs.ldt));
	sregs.ldt.unusable = 1;

	sregs.gdt.base = vm->gdt_gpa;
	sregs.gdt.limit = 0x27;
	sregs.idt.base = vm->idt_gpa;
	sregs.idt.limit = 32 * 16 - 1;

	sregs.cr0 = X86_CR0_PE | X86_CR0_MP | X86_CR0_ET | X86_CR0_NE |
		    X86_CR0_WP | X86_CR0_AM | X86_CR0_PG;
	sregs.cr3 = vm->pml4_gpa;
	sregs.cr4 = X86_CR4_PAE | X86_CR4_OSFXSR | X86_CR4_OSXMMEXCPT;
	if (vm->xcr0)
		sregs.cr4 |= X86_CR4_OSXSAVE;
	sregs.efer = EFER_LME | EFER_LMA;

	if (ioctl(vcpu->fd, KVM_SET_SREGS, &sregs))
		return -errno;
	return 0;
}

static int setup_xcr0(struct kvm_vcpu *vcpu)
{
	struct kvm_xcrs xcrs = {
		.nr_xcrs = 1,
		.xcrs[0] = { .xcr = 0, .value = vcpu->vm->xcr0 },
	};

	if (!vcpu->vm->xcr0)
		return 0;
	if (ioctl(vcpu->fd, KVM_SET_XCRS, &xcrs))
		return -errno;
	return 0;
}

int __vcpu_set_entry(struct kvm_vcpu *vcpu, void *guest_code)
{
	struct kvm_regs regs;
	uint64_t *ret_slot;

	if (ioctl(vcpu->fd, KVM_GET_REGS, &regs))
		return -errno;

	/* a guest_code() that returns lands in guest_code_returned */
	ret_slot = __addr_gpa2hva(vcpu->vm, vcpu->stack_gpa - 8);
	if (!ret_slot)
		return -EFAULT;
	*ret_slot = (uintptr_t)guest_code_returned;

	regs.rip = (uintptr_t)guest_code;
	regs.rsp = vcpu->stack_gpa - 8;
	regs.rbp = 0;
	regs.rflags = 0x2;		/* IF=0: no interrupts in the guest */

	if (ioctl(vcpu->fd, KVM_SET_REGS, &regs))
		return -errno;
	return 0;
}

int __x86_vcpu_setup(struct kvm_vcpu *vcpu, void *guest_code)
{
	int r;

	if (ioctl(vcpu->fd, KVM_SET_CPUID2, vcpu->vm->cpuid))
		return -errno;
	r = setup_sregs(vcpu);
	if (!r)
		r = setup_xcr0(vcpu);
	if (!r)
		r = __vcpu_set_entry(vcpu, guest_code);
	return r;
}
