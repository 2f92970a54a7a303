# SPDX-License-Identifier: GPL-2.0
#
# convbench: measure KVM guest private<->shared memory conversion on
# Chao Peng's v5 private-memory series (destructive) and our in-place
# variant, and on guest_memfd as upstream merged it (gmem, Linux 6.12).
# See README.md.
#
#   make         build the kernel (once, cached) and ./convbench, which
#                runs itself in that kernel from the host shell
#   make bench   build everything, boot the kernel, run, write results/
#   make test    build everything, run the host and in-VM test suites
#   make kernel  build (or fetch from the cache) the kernel; FLAVOUR=debug
#                builds the debug kernel (KASAN, lockdep) that make test
#                and make stress use as well, FLAVOUR=gmem (or make
#                kernel-gmem) the 6.12 kernel that --mode=gmem runs in;
#                FLAVOUR=custom KSRC=6.12|7.2|tarball PATCHES=dir|mbox
#                a kernel of your own (kernel/build.sh), which make bench
#                KERNEL=custom and FLAVOUR=custom ./convbench run
#   make stress  random conversions under host attack on the debug
#                kernel (STRESS_DURATION=600 s, STRESS_SEED to replay)
#   make vm      boot the kernel and run CMD inside (make vm CMD='...';
#                FLAVOUR=gmem boots the 6.12 kernel)
#   make deps    install the Debian packages (as root) or list them
#
# V=1 shows the commands.

SHELL := /bin/bash
.DELETE_ON_ERROR:
.SUFFIXES:

BUILD ?= build
V ?= 0
# the one quiet macro: "  CC  file" lines (Q=@), the commands with V=1;
# every Makefile.inc uses it as $(call msg,CC,$@)
ifeq ($(V),1)
Q :=
msg =
else
Q := @
msg = @printf '  %-7s %s\n' $(1) $(2);
endif

DEB_PACKAGES := gcc make libc6-dev python3 linux-source-6.1 \
	linux-source-6.12 flex bison bc \
	libssl-dev libelf-dev dwarves cpio xz-utils ccache \
	qemu-system-x86 busybox-static \
	clang llvm libbpf-dev bpftool zlib1g-dev libzstd-dev pkg-config \
	gnuplot-nox hyperfine

.PHONY: all deps kernel kernel-debug kernel-gmem kernel-custom vm test test-quick test-vm test-gmem \
	tests-bin stress clean help bench

# the kernel first: convbench's BPF side needs its BTF, and ./convbench
# runs in it
all: kernel convbench tests-bin

help:
	@sed -n '3,23p' Makefile | sed 's/^# \{0,1\}//'

# Install what is missing when root; otherwise name it and stop.
deps:
	$(Q)missing=$$(dpkg-query -W -f='$${Package} $${db:Status-Abbrev}\n' \
		$(DEB_PACKAGES) 2>/dev/null | awk '$$2 == "ii" {print $$1}' | \
		sort | comm -13 - <(printf '%s\n' $(DEB_PACKAGES) | sort)); \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" != 0 ]; then \
		echo "make deps: missing Debian packages:" $$missing; \
		echo "make deps: run 'make deps' as root, or: apt-get install" $$missing; \
		exit 1; \
	fi; \
	echo "make deps: installing" $$missing; \
	{ apt-get update -q && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q --no-install-recommends $$missing; } \
		> $(BUILD)/deps.log 2>&1 || { mkdir -p $(BUILD); \
		tail -n 20 $(BUILD)/deps.log; exit 1; }

$(BUILD):
	$(Q)mkdir -p $@

deps: | $(BUILD)

# The kernel lives in a cache outside the tree (kernel/build.sh), keyed by
# the patches, the config fragment and the build script.
kernel: deps
	$(Q)kernel/build.sh >/dev/null

# the same series under KASAN, lockdep and DEBUG_VM, for make test and
# make stress (kernel/config/debug.config)
kernel-debug: deps
	$(Q)FLAVOUR=debug kernel/build.sh >/dev/null

# the second kernel: linux-source-6.12 with guest_memfd on software-
# protected VMs (kernel/patches-6.12/, kernel/config/gmem-6.12.config),
# where --mode=gmem runs
kernel-gmem: deps
	$(Q)FLAVOUR=gmem kernel/build.sh >/dev/null

# a kernel of your own: KSRC (a linux-source tarball, or a Debian
# version: 6.12, 7.2, 7.3-rc7) and PATCHES (a folder of *.patch or an
# mbox); the last one built is FLAVOUR=custom's (kernel/build.sh)
kernel-custom: deps
	$(Q)FLAVOUR=custom kernel/build.sh >/dev/null

# the kernel's output folder when built (else bpf/ asks kernel/build.sh
# again at build time, after make kernel); the BPF objects are built
# against the 6.1 kernel's BTF and relocated (CO-RE) in either kernel
KERNEL_OUT := $(shell FLAVOUR=main kernel/build.sh --print 2>/dev/null)

include lib/Makefile.inc
include bench/kvm/Makefile.inc
include bpf/Makefile.inc
include bench/Makefile.inc
include analysis/Makefile.inc
include tests/Makefile.inc

# make bench: everything, then the run (two kernels, two boots), its
# report (with the repeatability of the earlier runs of its identity in
# results/, apart from its intervals) and its plots (the report writes the ratios.csv they draw);
# it ends with the headline (convreport --headline: the p50 ratios with
# their CIs, a dozen lines) and report.txt's path
# KERNEL=custom: the kernel of make kernel FLAVOUR=custom alone, in the
# modes it has (bench/vm/run-bench.sh BENCH_KERNEL)
ifneq ($(filter-out custom,$(KERNEL)),)
$(error KERNEL expects custom (or nothing), got '$(KERNEL)')
endif
bench: deps kernel $(if $(KERNEL),kernel-custom,kernel-gmem) convbench bpf $(ANALYSIS_REPORT)
	$(Q)run=$$(BENCH_KERNEL=$(KERNEL) bench/vm/run-bench.sh) && \
	$(MAKE) --no-print-directory report RUN="$$run" REPEAT=results >/dev/null && \
	$(MAKE) --no-print-directory plot RUN="$$run" >/dev/null && \
	echo "bench: done; plots: $$run/plots/ ($$(ls "$$run"/plots/*.png | \
		wc -l) PNG, each also as SVG)" && echo && \
	$(ANALYSIS_REPORT) --headline "$$run"

# ./convtrace and ./convreport beside ./convbench (bench/Makefile.inc)
convtrace: $(BPF_OUT)/convtrace
	$(Q)ln -sf $< $@

convreport: $(ANALYSIS_REPORT)
	$(Q)ln -sf $< $@

clean:
	$(Q)rm -rf $(BUILD) convbench convtrace convreport
