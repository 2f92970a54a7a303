// SPDX-License-Identifier: GPL-2.0
/*
 * What KVM itself reads of a private gfn (kernel/patches: KVM's own
 * accesses reach a private gfn through the private fd, never through the
 * slot's userspace mapping). In a destructive slot, whose shared mapping
 * holds other bytes at the same offsets (planted by the host), and in an
 * in-place slot, whose shared mapping refuses private offsets (SIGBUS):
 *
 *   fetch      code in a private page loads from MMIO: KVM emulates the
 *              guest's instruction (one MMIO read exit, 4 bytes), not the
 *              host's (a store at MMIO + 8)
 *   operand    a private page's word is copied to MMIO by MOVS: the MMIO
 *              write carries the guest's word, not the host's
 *   walker     the same MMIO load by code mapped through a private page
 *              table: KVM's guest page-table walker reads the table from
 *              the fd, and KVM_TRANSLATE through it sets the accessed bit
 *              of the entry it used, in the private table
 *
 * Skips (exit 4) without the series; the in-place slot's cases without
 * the in-place variant.
 */
#include <unistd.h>
#include <sys/mman.h>

#include "inplace.h"
#include "inplace_check.h"
#include "kvm_util.h"
#include "tap.h"

#define TEST_NAME	"test_private_emulate"
#define PAGE		GUEST_PAGE_SIZE
#define GPA_D		0x40000000ULL
#define GPA_I		0x40200000ULL
#define MMIO_GPA	0xc0000000ULL	/* identity-mapped, no slot */
#define MMIO_VAL	0x5a17c0deU
#define GUEST_WORD	0xaabbccddU
#define HOST_WORD	0x11111111U
#define PG_CODE		1
#define PG_DATA		2
#define PG_PT		3
#define PG_UNTOUCHED	7	/* mapped by the private table, never used */
#define PTE_P_RW	0x3ULL
#define PTE_A		0x20ULL

/* the code as one little-endian word: mov (%rdi),%eax; ret; nops */
#define STUB_LOAD	0x9090909090c3078bULL
/* movsl (%rsi),(%rdi); ret; nops */
#define STUB_MOVS	0x909090909090c3a5ULL
/* what the host plants: mov %eax,8(%rdi); ret; nops */
#define STUB_HOST	0x90909090c3084789ULL

static struct kvm_vm *vm;
static struct kvm_vcpu *vcpu;

/* ------------------------------------------------------------------ */
/* guest                                                               */

typedef uint32_t (*stub_fn)(uint64_t rdi, uint64_t rsi);

static GUEST_CODE void guest_put_stub(uint64_t code, uint64_t stub)
{
	guest_write64(code, stub);
}

static GUEST_CODE void guest_fetch(uint64_t code, uint64_t mmio)
{
	guest_put_stub(code, STUB_LOAD);
	GUEST_SYNC(((stub_fn)code)(mmio, 0));
	GUEST_DONE();
}

static GUEST_CODE void guest_operand(uint64_t code, uint64_t data,
				     uint64_t mmio)
{
	guest_put_stub(code, STUB_MOVS);
	*(volatile uint32_t *)data = GUEST_WORD;
	((stub_fn)code)(mmio, data);
	GUEST_SYNC(0);
	GUEST_DONE();
}

static GUEST_CODE void guest_flush_tlb(void)
{
	uint64_t cr3;

	asm volatile("mov %%cr3, %0; mov %0, %%cr3" : "=r"(cr3) : : "memory");
}

/* the page directory entry of gva in the identity map (2M pages) */
static GUEST_CODE volatile uint64_t *guest_pde(uint64_t gva)
{
	uint64_t cr3, *pml4, *pdpt, *pd;

	asm volatile("mov %%cr3, %0" : "=r"(cr3));
	pml4 = (uint64_t *)(cr3 & 0xffffffffff000ULL);
	pdpt = (uint64_t *)(pml4[(gva >> 39) & 511] & 0xffffffffff000ULL);
	pd = (uint64_t *)(pdpt[(gva >> 30) & 511] & 0xffffffffff000ULL);
	return &pd[(gva >> 21) & 511];
}

/*
 * Map the 2M region at base through a page table in its own page PG_PT
 * (4K entries, accessed bits clear), load from MMIO by code in it, let
 * the host translate through the table, report the accessed bit of the
 * untouched page's entry, and put the 2M mapping back.
 */
static GUEST_CODE void guest_walker(uint64_t base, uint64_t mmio)
{
	volatile uint64_t *pt = (volatile uint64_t *)(base + PG_PT * PAGE);
	volatile uint64_t *pde = guest_pde(base);
	uint64_t old = *pde, i, v;

	for (i = 0; i < 512; i++)
		pt[i] = (base + i * PAGE) | PTE_P_RW;
	guest_put_stub(base + PG_CODE * PAGE, STUB_LOAD);
	*pde = (base + PG_PT * PAGE) | PTE_P_RW;
	guest_flush_tlb();
	v = ((stub_fn)(base + PG_CODE * PAGE))(mmio, 0);
	GUEST_SYNC(v);
	v = pt[PG_UNTOUCHED] & PTE_A;
	*pde = old;
	guest_flush_tlb();
	GUEST_SYNC(v);
	GUEST_DONE();
}

/* ------------------------------------------------------------------ */
/* host                                                                */

struct mmio_seen {
	unsigned int exits;
	uint64_t addr;
	uint32_t len, data;
	bool write;
};

/*
 * Run the vCPU to its next ucall, answering MMIO reads with MMIO_VAL and
 * recording every MMIO exit. 0 at a UCALL_SYNC (in *uc), else -errno
 * (what came instead is printed).
 */
static int run_to_sync(struct ucall *uc, struct mmio_seen *m)
{
	struct kvm_run *run = vcpu->run;
	uint64_t cmd;
	int r;

	for (;;) {
		r = __vcpu_run(vcpu);
		if (!r && run->exit_reason == KVM_EXIT_MMIO) {
			m->exits++;
			m->addr = run->mmio.phys_addr;
			m->len = run->mmio.len;
			m->write = run->mmio.is_write;
			memcpy(&m->data, run->mmio.data, sizeof(m->data));
			if (!run->mmio.is_write) {
				uint32_t v = MMIO_VAL;

				memcpy(run->mmio.data, &v, sizeof(v));
			}
			continue;
		}
		cmd = r ? UCALL_NONE : get_ucall(vcpu, uc);
		if (cmd == UCALL_SYNC)
			return 0;
		if (cmd != UCALL_NONE) {
			char buf[256];

			ucall_describe(vm, uc, buf, sizeof(buf));
			tap_diag("  guest: %s", buf);
		} else {
			tap_diag("  KVM_RUN %d (%s), exit %u (%s)", r,
				 r ? strerror(-r) : "ok", run->exit_reason,
				 exit_reason_str(run->exit_reason));
		}
		return r ? r : -EPROTO;
	}
}

static int start(void *fn, uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t args[3] = { a, b, c };
	int r = __vcpu_set_entry(vcpu, fn);

	return r ? r : __vcpu_args_set(vcpu, 3, args);
}

static bool mmio_is(const struct mmio_seen *m, bool write, uint32_t data)
{
	return m->exits == 1 && m->addr == MMIO_GPA && m->len == 4 &&
	       m->write == write && (!write || m->data == data);
}

static const char *mmio_str(const struct mmio_seen *m, char *buf, size_t len)
{
	snprintf(buf, len, "%u MMIO exit(s), last a %u-byte %s at %#llx%s%#x",
		 m->exits, m->len, m->write ? "write" : "read",
		 (unsigned long long)m->addr, m->write ? " of " : "",
		 m->write ? m->data : 0);
	return buf;
}

static void test_fetch(uint64_t base, const char *kind)
{
	struct mmio_seen m = { 0 };
	struct ucall uc = { 0 };
	char buf[128];
	int r = start(guest_fetch, base + PG_CODE * PAGE, MMIO_GPA, 0);

	if (!r)
		r = run_to_sync(&uc, &m);
	tap_result(!r && mmio_is(&m, false, 0) && uc.args[0] == MMIO_VAL,
		   "%s: MMIO load by code in a private page: %s, the guest got %#llx (want one 4-byte read at %#llx, %#x)",
		   kind, r ? strerror(-r) : mmio_str(&m, buf, sizeof(buf)),
		   (unsigned long long)uc.args[0],
		   (unsigned long long)MMIO_GPA, MMIO_VAL);
}

static void test_operand(uint64_t base, const char *kind)
{
	struct mmio_seen m = { 0 };
	struct ucall uc = { 0 };
	char buf[128];
	int r = start(guest_operand, base + PG_CODE * PAGE,
		      base + PG_DATA * PAGE, MMIO_GPA);

	if (!r)
		r = run_to_sync(&uc, &m);
	tap_result(!r && mmio_is(&m, true, GUEST_WORD),
		   "%s: MOVS of a private word to MMIO: %s (want the guest's %#x)",
		   kind, r ? strerror(-r) : mmio_str(&m, buf, sizeof(buf)),
		   GUEST_WORD);
}

static void test_walker(uint64_t base, const char *kind)
{
	struct kvm_translation tr = {
		.linear_address = base + PG_UNTOUCHED * PAGE,
	};
	struct mmio_seen m = { 0 };
	struct ucall uc = { 0 };
	bool ok;
	char buf[128];
	int r = start(guest_walker, base, MMIO_GPA, 0);

	if (!r)
		r = run_to_sync(&uc, &m);
	ok = check(!r && mmio_is(&m, false, 0) && uc.args[0] == MMIO_VAL,
		   "%s: MMIO load by code mapped through a private page table: %s, the guest got %#llx",
		   kind, r ? strerror(-r) : mmio_str(&m, buf, sizeof(buf)),
		   (unsigned long long)uc.args[0]);
	if (!r) {
		r = __vcpu_ioctl(vcpu, KVM_TRANSLATE, &tr) ? -errno : 0;
		ok &= check(!r && tr.valid &&
			    tr.physical_address == base + PG_UNTOUCHED * PAGE,
			    "%s: KVM_TRANSLATE through the private table: %s, valid %u, %#llx (want %#llx)",
			    kind, r ? strerror(-r) : "ok", tr.valid,
			    (unsigned long long)tr.physical_address,
			    (unsigned long long)(base + PG_UNTOUCHED * PAGE));
		r = run_to_sync(&uc, &m);
		ok &= check(!r && uc.args[0] == PTE_A,
			    "%s: the accessed bit of the entry KVM used, in the private table: %#llx (want %#llx)",
			    kind, (unsigned long long)uc.args[0],
			    (unsigned long long)PTE_A);
	}
	tap_result(ok, "%s: KVM's guest page-table walker reads a private page table and sets its accessed bit",
		   kind);
}

/* a 2M private slot on a fallocated fd, recorded private */
static int add_slot(uint32_t slot, uint64_t gpa, bool in_place, char **hva)
{
	struct vm_mem_opts o = {
		.slot = slot, .flags = KVM_MEM_PRIVATE, .gpa = gpa,
		.size = SZ_2M, .backing = VM_BACKING_ANON,
	};
	struct vm_mem_region *mr;
	int fd = memfd_inaccessible_create("convbench-emulate", SZ_2M), r;

	if (fd < 0)
		return fd;
	o.private_fd = fd;
	r = __private_fallocate(fd, 0, SZ_2M);
	if (!r)
		r = __vm_mem_add(vm, &o, &mr);
	if (!r && in_place)
		r = inplace_map_shared(fd, 0, SZ_2M, mr->hva);
	if (!r)
		r = __vm_set_sw_private(vm, gpa, SZ_2M, true);
	if (!r)
		*hva = mr->hva;
	return r;
}

int main(void)
{
	char *hva_d = NULL, *hva_i = NULL;
	bool in_place;
	int r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	require_series(TEST_NAME, false);
	in_place = inplace_supported();

	r = __vm_create(&vm, NULL);
	if (!r)
		r = __vm_vcpu_add(vm, 0, guest_fetch, &vcpu);
	if (!r)
		r = add_slot(1, GPA_D, false, &hva_d);
	if (!r && in_place)
		r = add_slot(2, GPA_I, true, &hva_i);
	tap_result(!r, "VM with a destructive%s private slot (%s)",
		   in_place ? " and an in-place" : "", r ? strerror(-r) : "ok");
	if (r)
		return tap_finish(true);
	vcpu_set_timeout(vcpu, 20000);

	/* the destructive slot's shared mapping: other bytes, same offsets */
	*(uint64_t *)(hva_d + PG_CODE * PAGE) = STUB_HOST;
	*(uint32_t *)(hva_d + PG_DATA * PAGE) = HOST_WORD;

	test_fetch(GPA_D, "destructive");
	test_operand(GPA_D, "destructive");
	test_walker(GPA_D, "destructive");
	if (in_place) {
		test_fetch(GPA_I, "in place");
		test_operand(GPA_I, "in place");
		test_walker(GPA_I, "in place");
	} else {
		tap_skip("no KVM_CAP_PRIVATE_MEM_INPLACE", "in place: the same three cases");
	}
	kvm_vm_free(vm);
	return tap_finish(true);
}
