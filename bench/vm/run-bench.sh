#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: R rounds, each in a fresh boot of the project's 6.1 kernel
# (bench/vm/vm-bench.sh: the matrix in the v5 modes, destructive and
# inplace, untraced and traced, then the work counts) and in a fresh boot
# of the 6.12 kernel (the same in gmem mode: guest_memfd as merged), in
# the order of the run's design, declared before the first boot from the
# order seed (convbench --design-boots, lib/stats/design.h): every size
# runs ABBA or BAAB in blocks inside each boot; kernel order, traced
# phase first and the v5 mode order counterbalanced across rounds;
# a clock check per boot, then convbench --merge of each kernel's boots
# into a new results/<date>-<kernel>-<series>/ folder (never reused), the
# gmem boots' in its gmem/ subfolder with their own summary and
# provenance, and the 6.1 merge's ratios against gmem (round by round).
# Every interval is this run's own (bench/report/cellstats.h): earlier
# runs in results/ enter none; comparing runs is repeatability, apart.
#
#   bench/vm/run-bench.sh [--rounds R] [--iterations N] [--sizes LIST]
#                      [--out-root DIR]
#
# Environment: BENCH_ROUNDS (10), BENCH_ITERATIONS (300 per cell and
# round), BENCH_ITERATIONS_AT (4K:600,64K:600,2M:100: per size instead,
# so that p99 has 60 samples beyond it over 10 rounds at 4K and 64K and
# its ratios are shown, and 2M's long conversions 100 a round to keep
# the run short, still 100 samples beyond p90 over 10 rounds;
# sizes not in BENCH_SIZES are dropped, empty: none),
# BENCH_SIZES (4K,64K,2M), BENCH_COUNT_ITERATIONS (20),
# BENCH_ORDER_SEED (random), BENCH_BLOCKS (2: each size's conversions in
# a boot as blocks A B B A; even, 2 to 16), BENCH_HYPERFINE (1: whole
# runs, last round's boots),
# BENCH_TIMEOUT (seconds per boot, 1500), BENCH_MODES (v5,gmem; v5 or
# gmem boots one kernel only), BENCH_MAX_VCPU_WAIT (10: a boot whose
# vCPU threads waited for a host CPU more than this % of their runnable
# time is left out, bench/vm/interference.sh), BENCH_KERNEL (custom: the
# kernel of make kernel FLAVOUR=custom instead of the project's, alone,
# running the modes it has), BENCH_CHURN_ROUNDS (3: after the design's
# boots, one more boot per kernel runs convbench --workload=churn, every
# mode this many times in a fresh VM, into RUN/churn/ and
# RUN/gmem/churn/; 0: none), BENCH_CHURN_OPS (1000 conversions per
# round, a 64M range: every mode's 2M coverage is steady by the
# 500th), BENCH_SPLIT_EVENTS (100: then in the same boot
# convbench --workload=split, the split and the merge as events, as
# many rounds, into RUN/split/ and RUN/gmem/split/), BENCH_ACCEPT_MB
# (32: then convbench --workload=accept, a boot's conversion storm over
# that many MiB in chunks of 4K, 2M and 4M, into RUN/accept/ and
# RUN/gmem/accept/), BENCH_IO_REQS (50: then convbench --workload=io,
# requests of 4K to 2M by bounce and by sharing in place, that many by
# each strategy of each size in blocks of 25, into RUN/io/ and
# RUN/gmem/io/), BENCH_SMP_VCPUS (4: then one more boot per kernel,
# single-threaded TCG, runs the matrix at 1 and at that many vCPUs,
# each vCPU its own range converting concurrently, BENCH_SMP_ROUNDS (3)
# rounds of BENCH_SMP_ITERATIONS (25) with IPIs and TLB flush requests
# per conversion, and --workload=io
# at that many vCPUs (BENCH_SMP_IO_REQS, 10 requests by each strategy
# of each size), into RUN/smp/ and RUN/gmem/smp/ (bench/vm/smp-bench.sh);
# 0 or 1: none).
# Needs: make kernel kernel-gmem and build/bench/convbench (with --trace
# built in).
set -euo pipefail
cd "$(dirname "$0")/../.."

# rounds, not conversions, are what the intervals rest on: a round's
# p50 ratio moves by ~9% (4K) and ~4% (2M) from boot to boot, and by
# 0.4-1.5% when one round's 300 conversions are resampled
rounds=${BENCH_ROUNDS:-10}
iterations=${BENCH_ITERATIONS:-300}
sizes=${BENCH_SIZES:-4K,64K,2M}
count_iters=${BENCH_COUNT_ITERATIONS:-20}
root=results

while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds=${2:?--rounds needs a number}; shift 2 ;;
	--iterations) iterations=${2:?--iterations needs a number}; shift 2 ;;
	--sizes) sizes=${2:?--sizes needs a list such as 4K,2M}; shift 2 ;;
	--out-root) root=${2:?--out-root needs a folder}; shift 2 ;;
	*) echo "run-bench: unknown option '$1' (expected --rounds, --iterations, --sizes or --out-root)" >&2; exit 2 ;;
	esac
done
case $iterations in ''|*[!0-9]*|0) echo "run-bench: --iterations expects a whole number from 1, got '$iterations'" >&2; exit 2 ;; esac
case $rounds in ''|*[!0-9]*|0) echo "run-bench: --rounds expects a whole number from 1 to 64, got '$rounds'" >&2; exit 2 ;; esac
[ "$rounds" -le 64 ] || { echo "run-bench: --rounds expects a whole number from 1 to 64, got '$rounds'" >&2; exit 2; }
seed=${BENCH_ORDER_SEED:-$(( (RANDOM << 30 | RANDOM << 15 | RANDOM) ))}
case $seed in ''|*[!0-9]*) echo "run-bench: BENCH_ORDER_SEED expects a whole number, got '$seed'" >&2; exit 2 ;; esac
blocks=${BENCH_BLOCKS:-2}
case $blocks in 2|4|6|8|10|12|14|16) ;; *) echo "run-bench: BENCH_BLOCKS expects an even number from 2 to 16, got '$blocks'" >&2; exit 2 ;; esac
[ "$iterations" -ge "$blocks" ] || { echo "run-bench: --iterations ($iterations) must give each of the $blocks blocks a conversion" >&2; exit 2; }
[ "$count_iters" -ge "$blocks" ] 2>/dev/null || { echo "run-bench: BENCH_COUNT_ITERATIONS expects a whole number from $blocks (the blocks), got '$count_iters'" >&2; exit 2; }
# SIZE:N pairs for the sizes this run has, each N enough for the blocks
iter_at=
for pair in $(echo "${BENCH_ITERATIONS_AT-4K:600,64K:600,2M:100}" | tr ',' ' '); do
	case $pair in
	*:*) ;;
	*) echo "run-bench: BENCH_ITERATIONS_AT expects SIZE:N pairs such as 4K:600,64K:600, got '$pair'" >&2; exit 2 ;;
	esac
	n=${pair#*:}
	case $n in ''|*[!0-9]*) echo "run-bench: BENCH_ITERATIONS_AT expects SIZE:N pairs such as 4K:600,64K:600, got '$pair'" >&2; exit 2 ;; esac
	[ "$n" -ge "$blocks" ] || { echo "run-bench: BENCH_ITERATIONS_AT: $pair must give each of the $blocks blocks a conversion" >&2; exit 2; }
	case ",$sizes," in
	*",${pair%%:*},"*) iter_at=${iter_at:+$iter_at,}$pair ;;
	esac
done

say() { echo "bench: $*" >&2; }
churn_rounds=${BENCH_CHURN_ROUNDS:-3}
churn_ops=${BENCH_CHURN_OPS:-1000}
case $churn_rounds in ''|*[!0-9]*) echo "run-bench: BENCH_CHURN_ROUNDS expects a whole number from 0 to 64, got '$churn_rounds'" >&2; exit 2 ;; esac
[ "$churn_rounds" -le 64 ] || { echo "run-bench: BENCH_CHURN_ROUNDS expects a whole number from 0 to 64, got '$churn_rounds'" >&2; exit 2; }
case $churn_ops in ''|0|*[!0-9]*) echo "run-bench: BENCH_CHURN_OPS expects a whole number from 1, got '$churn_ops'" >&2; exit 2 ;; esac
case ${BENCH_SPLIT_EVENTS:-100} in ''|0|*[!0-9]*) echo "run-bench: BENCH_SPLIT_EVENTS expects a whole number from 1, got '${BENCH_SPLIT_EVENTS:-}'" >&2; exit 2 ;; esac
# split events: two conversions each
churn_events=$(( 2 * ${BENCH_SPLIT_EVENTS:-100} ))
io_reqs=${BENCH_IO_REQS:-50}
case $io_reqs in ''|0|*[!0-9]*) echo "run-bench: BENCH_IO_REQS expects a whole number from 1, got '$io_reqs'" >&2; exit 2 ;; esac
smp_vcpus=${BENCH_SMP_VCPUS:-4}
smp_rounds=${BENCH_SMP_ROUNDS:-3}
smp_iters=${BENCH_SMP_ITERATIONS:-25}
smp_io_reqs=${BENCH_SMP_IO_REQS:-10}
case $smp_io_reqs in ''|0|*[!0-9]*) echo "run-bench: BENCH_SMP_IO_REQS expects a whole number from 1, got '$smp_io_reqs'" >&2; exit 2 ;; esac
case $smp_vcpus in ''|*[!0-9]*) echo "run-bench: BENCH_SMP_VCPUS expects a whole number from 0 to 8, got '$smp_vcpus'" >&2; exit 2 ;; esac
[ "$smp_vcpus" -le 8 ] || { echo "run-bench: BENCH_SMP_VCPUS expects a whole number from 0 to 8, got '$smp_vcpus'" >&2; exit 2; }
case $smp_rounds in ''|0|*[!0-9]*) echo "run-bench: BENCH_SMP_ROUNDS expects a whole number from 1 to 64, got '$smp_rounds'" >&2; exit 2 ;; esac
[ "$smp_rounds" -le 64 ] || { echo "run-bench: BENCH_SMP_ROUNDS expects a whole number from 1 to 64, got '$smp_rounds'" >&2; exit 2; }
case $smp_iters in ''|0|*[!0-9]*) echo "run-bench: BENCH_SMP_ITERATIONS expects a whole number from 1, got '$smp_iters'" >&2; exit 2 ;; esac
accept_mb=${BENCH_ACCEPT_MB:-32}
case $accept_mb in
''|*[!0-9]*) accept_ok=0 ;;
*) accept_ok=$(( 10#$accept_mb >= 4 && 10#$accept_mb <= 1024 && 10#$accept_mb % 4 == 0 )) ;;
esac
[ "$accept_ok" = 1 ] || { echo "run-bench: BENCH_ACCEPT_MB expects a whole number of MiB, a multiple of 4 from 4 to 1024, got '$accept_mb'" >&2; exit 2; }

kinds=${BENCH_MODES:-v5,gmem}
case $kinds in
v5|gmem|v5,gmem|gmem,v5) ;;
*) echo "run-bench: BENCH_MODES expects v5, gmem or v5,gmem, got '$kinds'" >&2; exit 2 ;;
esac
# BENCH_KERNEL=custom: the kernel of make kernel FLAVOUR=custom, alone,
# in the place of the kernel whose modes it has (kernel/build.sh --kind)
case ${BENCH_KERNEL:-} in
'') ;;
custom)
	ckdir=$(FLAVOUR=custom kernel/build.sh --print) ||
		{ echo "run-bench: BENCH_KERNEL=custom: build it first (make kernel FLAVOUR=custom KSRC=... PATCHES=...)" >&2; exit 2; }
	kinds=$(FLAVOUR=custom kernel/build.sh --kind)
	if [ "$kinds" = none ]; then
		echo "run-bench: the custom kernel $(cat "$ckdir/key") has neither the v5 series (memfile_register_notifier) nor guest_memfd with software-protected VMs (kvm_gmem_create, CONFIG_KVM_SW_PROTECTED_VM): nothing convbench can measure there" >&2
		exit 4
	fi
	echo "bench: the custom kernel $(cat "$ckdir/key") runs the $kinds modes; it takes the place of the project's" >&2 ;;
*) echo "run-bench: BENCH_KERNEL expects custom (or nothing), got '$BENCH_KERNEL'" >&2; exit 2 ;;
esac
has() { case ,$kinds, in *,$1,*) return 0 ;; esac; return 1; }
has v5 && kdir=${ckdir:-$(FLAVOUR=main kernel/build.sh --print)}
has gmem && gkdir=${ckdir:-$(FLAVOUR=gmem kernel/build.sh --print)}
cb=build/bench/convbench
[ -x "$cb" ] || { say "build convbench first (make convbench)"; exit 1; }

# the design: which boot runs when, and in it which cell (summary.json's
# "design" lists it all; the same seed gives the same design)
dkernels=${kinds/,/+}
design="rounds=$rounds,kernels=$dkernels,traced=1,blocks=$blocks"
dopts=(--design="$design" --size="$sizes" --order-seed="$seed")
boots=$("$cb" "${dopts[@]}" --design-boots) ||
	{ echo "run-bench: no design for --sizes '$sizes' (convbench --design-boots failed)" >&2; exit 2; }

# the run folder is named after the 6.1 kernel (the 6.12 one if alone)
pk=${kdir:-$gkdir}
# the output folder's (kernel/build.sh), else the build tree's
release=$(cat "$pk/kernel.release" 2>/dev/null ||
	cat "$pk/../build/include/config/kernel.release" 2>/dev/null) || release=
release=${release:-unknown}
series=$(cat "$pk/series.sha")
stamp=$(date -u +%Y%m%d-%H%M%S)
mkdir -p "$root"
run=$root/$stamp-$release-$series
n=1
while ! mkdir "$run" 2>/dev/null; do	# never reuse a folder
	n=$((n + 1))
	run=$root/$stamp-$release-$series-$n
done
say "results go to $run"

adds=(--add "$cb" --add bench/vm/vm-bench.sh)
hf=0
# hyperfine is dynamically linked: run-vm brings its loader and libraries
if [ "${BENCH_HYPERFINE:-1}" = 1 ] && command -v hyperfine >/dev/null; then
	hf=1
	adds+=(--add "$(command -v hyperfine)")
else
	say "no hyperfine (or BENCH_HYPERFINE=0): whole-run timings skipped"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/convbench-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/boots"

# The guest's TSC against the host's clock over the boot: clock.env
# (bench/vm/clock-check.sh says how).
clock_check() {	# VMOUT BOOTDIR
	sh bench/vm/clock-check.sh "$1/clock.log" "$2/clock.env"
}

# one boot of round K: the kernel of KDIR running MODES, its round's files
# to WORK/boot-K, what it leaves in the run folder to DEST/boots/boot-K;
# TRACED_FIRST from the design; 0, or 1 when the boot is left out
one_boot() {	# KDIR MODES K WORK DEST HYPERFINE TRACED_FIRST
	local k=$3 vmout=$work/vm-$3-${2//,/-} boot=$4/boot-$3 rc f d
	mkdir -p "$boot"
	set +e
	kernel/vm/run-vm.sh --kernel "$1/bzImage" --out "$vmout" \
		--timeout "${BENCH_TIMEOUT:-1500}" --mem 4096 "${adds[@]}" \
		--cmdline "convbench.series=$(cat "$1/series.sha") convbench.config=$(cat "$1/config.sha") convbench.kernel_key=$(cat "$1/key")" \
		-- sh /bin/vm-bench.sh "$sizes" "$iterations" "$k" "$seed" "$6" "$count_iters" "$2" "$design" "$7" "$iter_at" |
		sed -u '/^CONVBENCH-CLOCK /d; s/^/  | /' >&2	# clock marks: clock.log
	rc=${PIPESTATUS[0]}
	set -e
	for d in plain traced counts; do
		[ -d "$vmout/$d" ] && cp -r "$vmout/$d" "$boot/"
	done
	clock_check "$vmout" "$boot"
	# a boot its host kept off the CPU is left out, said why
	sh bench/vm/interference.sh "$vmout/vm.env" >>"$boot/clock.env"
	if [ "$rc" != 0 ]; then
		say "boot $k ($2): the VM run failed (status $rc): its round is left out"
		{ echo "valid=0"; echo "why=the VM run failed (status $rc)"; } >>"$boot/clock.env"
	fi
	if grep -q '^valid=0' "$boot/clock.env"; then
		say "boot $k ($2): left out: $(sed -n 's/^why=//p' "$boot/clock.env" | tail -n 1)"
	elif grep -q '^checked=0' "$boot/clock.env"; then
		say "boot $k ($2): clock not checked: $(sed -n 's/^why=//p' "$boot/clock.env")"
	fi
	# what each boot leaves in the run folder: small files only
	mkdir -p "$5/boots/boot-$k"
	cp "$boot/clock.env" "$5/boots/boot-$k/"
	for f in console.log vm.env clock.log plain.txt traced.txt counts.txt \
		plain.err.txt traced.err.txt counts.err.txt; do
		[ -f "$vmout/$f" ] && cp "$vmout/$f" "$5/boots/boot-$k/"
	done
	for f in hyperfine.json hyperfine.txt hyperfine-stderr.txt; do
		[ -f "$vmout/$f" ] && cp "$vmout/$f" "$5/"
	done
	rm -rf "$vmout"
	[ "$rc" = 0 ]
}

mkdir "$work/gmem-boots"
say "$rounds rounds, a fresh boot of each kernel each ($kinds; $sizes, $iterations conversions per cell and round${iter_at:+ ($iter_at)} in $blocks blocks, untraced and traced, order seed $seed); this takes a while under TCG"
failed=0
gfailed=0
nboots=$(echo "$boots" | wc -l)
# boot ID round K kernel KIND slot S traced_first T mode_first M seed X
while read -r _ id _ k _ kind _ _ _ tf _ mfirst _ _; do
	last=$([ "$k" -eq $((rounds - 1)) ] && echo "$hf" || echo 0)
	what="traced phase $([ "$tf" = 1 ] && echo first || echo second)"
	[ "$kind" = v5 ] && what="$what, $mfirst first"
	say "boot $((id + 1)) of $nboots: round $((k + 1)) of $rounds, $kind ($what)"
	if [ "$kind" = v5 ]; then
		one_boot "$kdir" destructive,inplace "$k" "$work/boots" \
			"$run" "$last" "$tf" || failed=$((failed + 1))
	else
		one_boot "$gkdir" gmem "$k" "$work/gmem-boots" \
			"$run/gmem" "$last" "$tf" || gfailed=$((gfailed + 1))
	fi
done <<<"$boots"

# one more boot of KDIR after the design's: run-vm.sh into VMOUT with
# the kernel's provenance on its command line and convbench in it, then
# the given run-vm options and -- COMMAND; the console on stderr,
# indented; run-vm's status
extra_boot() {	# KDIR VMOUT RUN-VM-OPTION... -- COMMAND...
	local kdir=$1 vmout=$2 rc
	shift 2
	set +e
	kernel/vm/run-vm.sh --kernel "$kdir/bzImage" --out "$vmout" \
		--timeout "${BENCH_TIMEOUT:-1500}" --mem 4096 --add "$cb" \
		--cmdline "convbench.series=$(cat "$kdir/series.sha") convbench.config=$(cat "$kdir/config.sha") convbench.kernel_key=$(cat "$kdir/key")" \
		"$@" 2>&1 | sed -u 's/^/  | /' >&2
	rc=${PIPESTATUS[0]}
	set -e
	return "$rc"
}

# such a boot holds all its runs' rounds: a disturbed one is said into
# DIR/interference.env and on stderr, not left out
extra_interference() {	# WHAT VMOUT DIR
	sh bench/vm/interference.sh "$2/vm.env" > "$3/interference.env"
	if grep -q '^valid=0' "$3/interference.env"; then
		say "$1: $(sed -n 's/^why=//p' "$3/interference.env"); its rounds are kept (they share the boot)"
	fi
}

# huge pages over time: one boot of KDIR running convbench
# --workload=churn in MODES, then --workload=split (the split and the
# range made uniform again, timed as events), --workload=accept (a
# boot's conversion storm) and --workload=io (I/O bounced or shared in
# place), their folders into DEST/churn, DEST/split, DEST/accept and
# DEST/io (with the boot's console and vm.env in churn/), then the io
# requests' kernel work once (--counts: BPF counters, one round of one
# block per strategy and size) into DEST/io-counts, a run of its own
# since counting costs time (a kernel without BPF: exit 4, left out); where MODES has
# inplace, churn and split once more in place with the merge back on
# (--churn-merge: kernel/patches 0048), into DEST/churn-merge and
# DEST/split-merge, the same sequences; 0, or 1 when it failed (what it
# wrote is kept)
churn_boot() {	# KDIR MODES DEST
	local vmout=$work/vm-churn-${2//,/-} rc=0 f merge=
	local common="--mode=$2 --rounds=$churn_rounds --seed=$seed"
	local mcommon="--mode=inplace --churn-merge --rounds=$churn_rounds --seed=$seed"
	case ,$2, in
	*,inplace,*) merge=" && convbench --workload=churn $mcommon --churn-ops=$churn_ops --out=/out/churn-merge && convbench --workload=split $mcommon --churn-ops=$churn_events --out=/out/split-merge" ;;
	esac
	extra_boot "$1" "$vmout" \
		-- sh -c "convbench --workload=churn $common --churn-ops=$churn_ops --out=/out/churn && convbench --workload=split $common --churn-ops=$churn_events --out=/out/split$merge && convbench --workload=accept $common --churn-range=${accept_mb}M --out=/out/accept && convbench --workload=io $common --churn-ops=$io_reqs --out=/out/io && { convbench --workload=io --mode=$2 --rounds=1 --seed=$seed --counts --churn-ops=25 --churn-interval=25 --out=/out/io-counts; s=\$?; [ \$s = 0 ] || [ \$s = 4 ]; }" ||
		rc=$?
	mkdir -p "$3"
	for f in churn split churn-merge split-merge accept io io-counts; do
		[ -d "$vmout/$f" ] && cp -r "$vmout/$f" "$3/"
	done
	mkdir -p "$3/churn"
	for f in console.log vm.env; do
		[ -f "$vmout/$f" ] && cp "$vmout/$f" "$3/churn/"
	done
	extra_interference "churn boot ($2)" "$vmout" "$3/churn"
	rm -rf "$vmout"
	[ "$rc" = 0 ] || { say "churn boot ($2): convbench failed (status $rc)"; return 1; }
}
churn_failed=0
if [ "$churn_rounds" -gt 0 ]; then
	say "huge pages under churn: a boot per kernel, each mode $churn_rounds times ($churn_ops conversions of a 64M range each, seed $seed)"
	if has v5; then
		churn_boot "$kdir" destructive,inplace "$run" || churn_failed=1
	fi
	if has gmem; then
		churn_boot "$gkdir" gmem "$run/gmem" || churn_failed=1
	fi
fi

# more vCPUs: one boot of KDIR under single-threaded TCG (every vCPU in
# one host thread, in turn: no emulator triple fault, and timings of
# vCPUs that take turns) running bench/vm/smp-bench.sh in MODES into
# DEST/smp (with the boot's console and vm.env); 0, or 1 when it failed
smp_boot() {	# KDIR MODES DEST
	local vmout=$work/vm-smp-${2//,/-} rc=0
	CONVBENCH_TCG_THREAD=single extra_boot "$1" "$vmout" \
		--cpus $((smp_vcpus + 1)) \
		--add bench/vm/smp-bench.sh:/bin/smp-bench.sh \
		--add tests/lib/emu_retry.sh:/bin/emu_retry.sh \
		-- sh /bin/smp-bench.sh "$2" "$smp_rounds" "$smp_iters" "$smp_io_reqs" "$smp_vcpus" 4K,2M "$seed" ||
		rc=$?
	mkdir -p "$3/smp"
	cp -r "$vmout"/. "$3/smp/" 2>/dev/null || true
	extra_interference "vCPU boot ($2)" "$vmout" "$3/smp"
	rm -rf "$vmout"
	[ "$rc" = 0 ] || { say "vCPU boot ($2): convbench failed (status $rc)"; return 1; }
}
smp_failed=0
if [ "$smp_vcpus" -gt 1 ]; then
	say "more vCPUs: a boot per kernel under single-threaded TCG, the matrix at 1 and $smp_vcpus vCPUs ($smp_rounds rounds of $smp_iters) and io at $smp_vcpus vCPUs"
	if has v5; then
		smp_boot "$kdir" destructive,inplace "$run" || smp_failed=1
	fi
	if has gmem; then
		smp_boot "$gkdir" gmem "$run/gmem" || smp_failed=1
	fi
fi

# a JSON string: backslashes and double quotes escaped (vm.env's values
# are printable, control characters aside)
json_str() {
	local v=${1//\\/\\\\}
	v=${v//\"/\\\"}
	printf '"%s"' "$v"
}

# whether this host is itself a virtual machine: systemd's answer, else
# the CPU's hypervisor flag
host_virt() {
	local v
	v=$(systemd-detect-virt --vm 2>/dev/null) && [ -n "$v" ] && { echo "yes ($v)"; return; }
	[ "$v" = none ] && { echo no; return; }
	if grep -qw hypervisor /proc/cpuinfo; then echo "yes (hypervisor flag)"; else echo no; fi
}

# DEST/meta.json: the host's side (the last boot's VM runner, vm.env
# sourced so that its shell quoting is undone) and the run
meta_json() {	# DEST KDIR BOOTS_FAILED
	local dest=$1 k=$2 env=$1/boots/boot-$((rounds - 1))/vm.env key sep=
	{
		echo '{'
		echo '  "vm": {'
		for key in $(sed -n 's/^\([a-z_0-9]*\)=.*/\1/p' "$env" 2>/dev/null); do
			printf '%s    "%s": %s' "$sep" "$key" \
				"$(json_str "$(. "$env"; eval "printf '%s' \"\$$key\"")")"
			sep=$',\n'
		done
		echo
		echo '  },'
		echo "  \"rounds\": $rounds,"
		echo "  \"boots_failed\": $3,"
		echo "  \"iterations_per_round\": $iterations,"
		echo "  \"iterations_at\": $(json_str "$iter_at"),"
		echo "  \"order_seed\": $seed,"
		echo "  \"kernel_cache_key\": $(json_str "$(cat "$k/key")"),"
		echo "  \"kernel_flavour\": $(json_str "$(cat "$k/flavour" 2>/dev/null || echo main)"),"
		echo "  \"kernel_release\": $(json_str "$release"),"
		echo "  \"series_sha\": $(json_str "$(cat "$k/series.sha")"),"
		echo "  \"config_sha\": $(json_str "$(cat "$k/config.sha")"),"
		echo "  \"convbench_git\": $(json_str "$(git describe --always --dirty 2>/dev/null || echo unknown)"),"
		echo "  \"host_cpu\": $(json_str "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"),"
		echo "  \"host_cpus\": $(nproc),"
		echo "  \"host_virt\": $(json_str "$(host_virt)")"
		echo '}'
	} > "$dest/meta.json.tmp" && mv "$dest/meta.json.tmp" "$dest/meta.json"
}

# convbench --merge of WORK's boots into DEST (EXTRA: more options)
merge() {	# WORK DEST KDIR BOOTS_FAILED EXTRA...
	local w=$1 dest=$2 k=$3 nf=$4 out=$work/merged-${1##*/} rc
	shift 4
	mkdir -p "$out" "$dest"
	set +e
	"$cb" --merge="$w" --out="$out" "${dopts[@]}" "$@" >"$work/merge.txt" 2>&1
	rc=$?
	set -e
	cp "$work/merge.txt" "$dest/convbench.txt"
	[ "$rc" = 0 ] || { say "convbench --merge of $w failed (status $rc):"; tail -n 5 "$work/merge.txt" >&2; }
	cp "$out/"* "$dest/" 2>/dev/null || true
	rm -f "$dest/samples-traced.csv"	# summarised in summary.json's overhead
	[ -f "$dest/summary.json" ] && meta_json "$dest" "$k" "$nf"
	return "$rc"
}

say "merging $rounds rounds"
mrc=0
gmem_run=()
if has gmem; then
	merge "$work/gmem-boots" "$run/gmem" "$gkdir" "$gfailed" || mrc=$?
	# the 6.1 merge's ratios against gmem: from the gmem merge's summary
	[ -f "$work/merged-gmem-boots/summary.json" ] &&
		gmem_run=(--gmem-run="$work/merged-gmem-boots")
	[ "$gfailed" != "$rounds" ] || mrc=1
fi
if has v5; then
	merge "$work/boots" "$run" "$kdir" "$failed" "${gmem_run[@]}" || mrc=$?
	[ "$failed" != "$rounds" ] || mrc=1
fi
if [ "$mrc" != 0 ]; then
	say "no usable run (merge status $mrc, $failed and $gfailed of $rounds boots failed); what there is is in $run"
	exit 1
fi
[ "$smp_failed" = 0 ] || say "a vCPU boot failed: the report's vCPU section lacks it (its console is in $run/smp or $run/gmem/smp)"
[ "$churn_failed" = 0 ] || say "a churn boot failed: the report's churn section lacks it (its console is in $run/churn or $run/gmem/churn)"
# gmem alone: its folder is the run that make bench reports
if has v5; then echo "$run"; else echo "$run/gmem"; fi
