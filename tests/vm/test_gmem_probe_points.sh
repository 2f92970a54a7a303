#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# test_probe_points.sh for the 6.12 kernel (FLAVOUR=gmem): the functions
# of guest_memfd's conversion path that convbench --trace times exist as
# probe points there (kernel/patches-6.12 0002 keeps the static ones out
# of line), and kvm_make_all_cpus_request, where convbench --counts
# counts TLB flush requests. busybox sh; the same output as
# test_probe_points.sh.
PROBE_FUNCS="kvm_gmem_fallocate kvm_gmem_punch_hole kvm_gmem_invalidate_begin kvm_gmem_get_pfn kvm_faultin_pfn_private kvm_vm_set_mem_attributes kvm_arch_pre_set_memory_attributes kvm_make_all_cpus_request" \
	exec "$(dirname "$0")/test_probe_points.sh"
