#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run-vm.sh: boot a kernel in QEMU with a busybox initramfs, run one command
# inside it, and bring the guest's /out back through a raw virtio-blk disk.
# See kernel/vm/README.md for the interface and exit codes.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly here prog=run-vm

usage() {
	cat <<'EOF'
usage: run-vm.sh --kernel BZIMAGE --out DIR [options] -- COMMAND [ARGS...]

Boot BZIMAGE under QEMU, run COMMAND in the guest (cwd /out, env
CONVBENCH_OUT=/out), copy the guest's /out into DIR.

  --kernel BZIMAGE        kernel to boot (required)
  --out DIR               results directory, must be absent or empty (required)
  --timeout SECONDS       kill QEMU after this long (default 600)
  --mem MB                guest memory (default 2048)
  --cpus N                guest CPUs (default 2)
  --disk MB               size of the results disk (default 256)
  --add HOSTFILE[:GUESTPATH]
                          copy a file into the guest (default /bin/NAME;
                          a GUESTPATH ending in / is a directory); repeatable
  --add-dir HOSTDIR:GUESTDIR
                          copy a directory tree into the guest; repeatable
  --cmdline EXTRA         append to the kernel command line; repeatable
  --env NAME=VALUE        set NAME in the command's environment; repeatable
  --split-stderr          the command's stderr to this script's stderr,
                          live, through a second serial port (default:
                          both on stdout, in order)
  --pass-signals          with --split-stderr: the first SIGINT or SIGTERM
                          to this script goes to the command in the guest
                          (a second stops the VM); for a caller that runs
                          this script in a process group of its own
  --fail-on-warn          a kernel warning (WARNING, lockdep, RCU stall, hung
                          task, UBSAN) fails the run (exit 125)
  -q, --quiet             no start and summary lines (problems still)
  --which-accel           print the accelerator a run would use, exit
  -v, --verbose           stream the whole console (boot log) to stderr
  -h, --help              this text

stdout carries the command's output; run-vm messages go to stderr.
DIR gets console.log, qemu.log (CPU resets), vm.env and the files the
command left in /out; sched.log the vCPU threads' time on a CPU and
waiting for one, once a second (vm.env: vcpu_wait_pct, the share of
their runnable time they waited, and its worst second; the host's CPU
pressure and steal time);
clock.log gets every CONVBENCH-CLOCK line of the command's output (or of
the kernel's, through /dev/kmsg) with the host's time of its arrival
(host_s=SECONDS, convbench --clock-mark).
Exit: COMMAND's status, 2 bad usage, 124 guest hung, 125 kernel panic/oops,
126 no exit status came back (QEMU or guest init failed).
Env: CONVBENCH_ACCEL=kvm|tcg, CONVBENCH_TCG_THREAD=multi|single (TCG's
vCPU threads, default multi), CONVBENCH_VERBOSE=1, CONVBENCH_QEMU=BINARY.

example:
  kernel/vm/run-vm.sh --kernel out/bzImage --out /tmp/r1 --add build/convbench \
      --timeout 300 -- convbench --mode all --json /out/result.json
EOF
}

say() { echo "$prog: $*" >&2; }
bad() { say "$*"; exit 2; }
need_uint() {	# OPTION VALUE MIN MAX
	if ! [[ $2 =~ ^[0-9]{1,7}$ ]] || ((10#$2 < $3 || 10#$2 > $4)); then
		bad "$1 expects an integer in $3..$4, got '$2'"
	fi
}

kernel='' out='' timeout=600 mem=2048 cpus=2 disk=256 fail_on_warn=0
verbose=${CONVBENCH_VERBOSE:-0} split_stderr=0 quiet=0 which_accel=0 pass_signals=0
adds=() add_dirs=() extra_cmdline=() envs=()
while (($#)); do
	opt=$1
	case $opt in
	--*=*) set -- "${opt%%=*}" "${opt#*=}" "${@:2}"; continue ;;
	-h | --help) usage; exit 0 ;;
	-v | --verbose) verbose=1; shift; continue ;;
	--fail-on-warn) fail_on_warn=1; shift; continue ;;
	--split-stderr) split_stderr=1; shift; continue ;;
	--pass-signals) pass_signals=1; shift; continue ;;
	-q | --quiet) quiet=1; shift; continue ;;
	--which-accel) which_accel=1; shift; continue ;;
	--) shift; break ;;
	--kernel | --out | --timeout | --mem | --cpus | --disk | --add | --add-dir | --cmdline | --env)
		(($# >= 2)) || bad "$opt expects a value" ;;
	*) bad "unknown option '$opt' (the command goes after --; see --help)" ;;
	esac
	val=$2
	shift 2
	case $opt in
	--kernel) kernel=$val ;;
	--out) out=$val ;;
	--timeout) need_uint "$opt" "$val" 1 86400; timeout=$((10#$val)) ;;
	--mem) need_uint "$opt" "$val" 128 1048576; mem=$((10#$val)) ;;
	--cpus) need_uint "$opt" "$val" 1 256; cpus=$((10#$val)) ;;
	--disk) need_uint "$opt" "$val" 1 1048576; disk=$((10#$val)) ;;
	--add) adds+=("$val") ;;
	--add-dir) add_dirs+=("$val") ;;
	--cmdline) extra_cmdline+=("$val") ;;
	--env) [[ $val =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] ||
		bad "--env expects NAME=VALUE, got '$val'"
		envs+=("$val") ;;
	esac
done
# Accelerator: KVM only where the host really offers VMX/SVM (the CI host
# has a /dev/kvm without them, on which QEMU cannot boot a normal kernel).
accel=${CONVBENCH_ACCEL:-auto}
if [[ $accel == auto ]]; then
	accel=tcg
	if [[ -r /dev/kvm && -w /dev/kvm ]] &&
		grep -qE '^flags[[:space:]]*:.*\<(vmx|svm)\>' /proc/cpuinfo; then
		accel=kvm
	fi
fi
if ((which_accel)); then
	[[ $accel == kvm || $accel == tcg ]] || bad "CONVBENCH_ACCEL expects kvm or tcg, got '$accel'"
	echo "$accel"
	exit 0
fi
((!pass_signals || split_stderr)) || bad "--pass-signals needs --split-stderr (the signal goes through its port)"
(($#)) || bad "no command given: expected '-- COMMAND [ARGS...]'"
[[ -n $kernel ]] || bad "--kernel BZIMAGE is required"
[[ -f $kernel && -r $kernel ]] || bad "--kernel expects a readable file, got '$kernel'"
[[ -n $out ]] || bad "--out DIR is required"
if [[ -e $out ]]; then
	[[ -d $out ]] || bad "--out expects a directory, '$out' is not one"
	[[ -z $(ls -A "$out") ]] || bad "--out '$out' exists and is not empty; refusing to overwrite it"
fi

qemu=${CONVBENCH_QEMU:-qemu-system-x86_64}
for tool in "$qemu" busybox cpio gzip tar timeout awk; do
	command -v "$tool" >/dev/null || { say "missing host tool '$tool'"; exit 2; }
done
busybox=$(command -v busybox)
if command -v readelf >/dev/null &&
	LC_ALL=C readelf -l -- "$busybox" 2>/dev/null | grep -q 'program interpreter'; then
	say "$busybox is dynamically linked: install busybox-static"
	exit 2
fi

# The host's TSC rate in kHz ("" if unknown). Under TCG the guest reads
# the host's TSC, but its calibration against the emulated PIT fails
# now and then (timing jitter, and no HPET or PM timer without ACPI):
# the kernel then marks the TSC unstable and KVM's nested guests stall.
# tsc_early_khz skips that calibration.
host_tsc_khz() {
	local mhz
	if [[ -r /sys/devices/system/cpu/cpu0/tsc_freq_khz ]]; then
		cat /sys/devices/system/cpu/cpu0/tsc_freq_khz
		return
	fi
	mhz=$(dmesg 2>/dev/null | sed -n 's/.*tsc: Refined TSC clocksource calibration: \([0-9.]*\) MHz.*/\1/p' | tail -n1)
	[[ -n $mhz ]] || mhz=$(dmesg 2>/dev/null | sed -n 's/.*tsc: Detected \([0-9.]*\) MHz.*/\1/p' | head -n1)
	[[ -n $mhz ]] || mhz=$(awk -F': *' '/^cpu MHz/ { print $2; exit }' /proc/cpuinfo)
	awk -v m="$mhz" 'BEGIN { if (m > 0) printf "%d\n", m * 1000 }'
}

tsc_opt=
case $accel in
kvm) cpu=host; accel_opt=kvm ;;
tcg) cpu=EPYC,+svm,+npt
	# single: every vCPU in one host thread, in turn (slower; the
	# multi-threaded emulator's rare triple fault of a nested guest,
	# tests/lib/emu_retry.sh, is a multi-vCPU race)
	tcg_thread=${CONVBENCH_TCG_THREAD:-multi}
	[[ $tcg_thread == single || $tcg_thread == multi ]] ||
		bad "CONVBENCH_TCG_THREAD expects single or multi, got '$tcg_thread'"
	accel_opt=tcg,thread=$tcg_thread
	khz=$(host_tsc_khz)
	[[ -z $khz ]] || tsc_opt=" tsc_early_khz=$khz" ;;
*) bad "CONVBENCH_ACCEL expects kvm or tcg, got '$accel'" ;;
esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/run-vm.XXXXXX")
# QEMU runs in the background so that a signal to this script alone (a test
# harness killing it) stops QEMU at once instead of at the timeout.
# shellcheck disable=SC2317 # called from the traps
stop_vm() {
	local pid
	pid=$(cat "$tmp/timeout.pid" 2>/dev/null) && kill -TERM "$pid" 2>/dev/null
	return 0
}
# --pass-signals: the first signal is written to the guest's ttyS1, where
# init.sh sends it to the command (convbench then writes what it has)
signalled=0 sig_fd=
# shellcheck disable=SC2317 # called from the traps
on_signal() {	# INT|TERM CODE
	if ((pass_signals && !signalled)) && [[ -n $sig_fd ]]; then
		signalled=1
		echo "$1" >&"$sig_fd"
		say "SIG$1 passed to the command in the guest (again: stop the VM)"
		return
	fi
	stop_vm
	say "$([[ $1 == INT ]] && echo interrupted || echo terminated)"
	exit "$2"
}
trap 'rm -rf -- "$tmp"' EXIT
trap 'on_signal INT 130' INT
trap 'on_signal TERM 143' TERM

# Guest paths: absolute, no "..", a trailing / means "into this directory".
guest_path() {	# OPTION HOSTPATH GUESTPATH
	local g=$3
	[[ $g == /* && /$g/ != */../* ]] || bad "$1 expects an absolute guest path without '..', got '$g'"
	[[ $g == */ ]] && g=$g$(basename -- "$2")
	printf '%s' "$g"
}
sq() { local s=${1//\'/\'\\\'\'}; printf " '%s'" "$s"; }

root=$tmp/root
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,root,etc/convbench}
cp -- "$busybox" "$root/bin/busybox"
install -m 0755 -- "$here/init.sh" "$root/init"
{ printf 'set --'; for a in "$@"; do sq "$a"; done; echo; } >"$root/etc/convbench/argv"
for e in "${envs[@]}"; do v=$(sq "${e#*=}"); printf 'export %s=%s\n' "${e%%=*}" "${v# }"; done \
	>"$root/etc/convbench/env"
((split_stderr)) && : >"$root/etc/convbench/split-stderr"
((pass_signals)) && : >"$root/etc/convbench/pass-signals"
mknod -m 600 "$root/dev/console" c 5 1 2>/dev/null || true

is_dynamic() {	# FILE: an ELF file with a program interpreter
	command -v readelf >/dev/null &&
		LC_ALL=C readelf -l -- "$1" 2>/dev/null | grep -q 'program interpreter'
}
# A dynamically linked file gets its loader and libraries, at the paths
# the host's ldd names: the guest has no others.
add_libs() {	# FILE
	local deps lib
	if ! deps=$(LC_ALL=C ldd -- "$1" 2>&1) || grep -q 'not found' <<<"$deps"; then
		say "warning: '$1' is dynamically linked and ldd cannot name all its libraries; it may not run in the guest:"
		grep 'not found' <<<"$deps" | sed 's/^/  /' >&2
		return 0
	fi
	while read -r lib; do
		[[ -e $root$lib ]] && continue
		mkdir -p -- "$root$(dirname -- "$lib")"
		cp -L -- "$lib" "$root$lib"
	done < <(grep -oE '/[^ ]+' <<<"$deps" | sort -u)
}

for spec in "${adds[@]}"; do
	src=$spec dst=/bin/
	if [[ ! -e $spec && $spec == *:* ]]; then src=${spec%:*} dst=${spec##*:}; fi
	[[ -f $src && -r $src ]] || bad "--add expects a readable file, got '$src'"
	dst=$(guest_path --add "$src" "$dst")
	mkdir -p -- "$root$(dirname -- "$dst")"
	cp -L --preserve=mode,timestamps -- "$src" "$root$dst"
	is_dynamic "$src" && add_libs "$src"
done
for spec in "${add_dirs[@]}"; do
	[[ $spec == *:* ]] || bad "--add-dir expects HOSTDIR:GUESTDIR, got '$spec'"
	src=${spec%:*}
	[[ -d $src ]] || bad "--add-dir expects a host directory, got '$src'"
	dst=$(guest_path --add-dir "$src" "${spec##*:}")
	mkdir -p -- "$root$dst"
	cp -a -- "$src/." "$root$dst/"
done

(cd "$root" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --owner=0:0 --quiet) | gzip -1 >"$tmp/initramfs.gz"
truncate -s "${disk}M" "$tmp/disk.img"

# tsc=reliable: under TCG every vCPU reads the host's invariant TSC, but the
# boot-time sync check sees emulation skew, marks the TSC unstable and
# falls back to jiffies; KVM would then freeze the guest TSC across exits
# to userspace (vcpu_load re-bases it), hiding the VMM's time from guest
# timings. convbench.* keys tell programs inside where they run.
qemu_ver=$("$qemu" --version | head -n1 | sed -n 's/^QEMU emulator version \([^ ]*\).*/\1/p')
cmdline="console=ttyS0 panic=-1 oops=panic quiet tsc=reliable$tsc_opt convbench.accel=$accel convbench.qemu=${qemu_ver:-unknown}${extra_cmdline[*]:+ ${extra_cmdline[*]}}"
# One CPU per socket: without ACPI the kernel finds CPUs in SeaBIOS's MP
# table, which lists only the first CPU of each package (QEMU 7.2's plain
# "-smp 2" is 1 socket x 2 cores, and the guest would see one CPU).
# debug-threads: the vCPU threads carry their names ("CPU 0/TCG"), which
# the scheduling sampler below looks for
qemu_args=(-nographic -nodefaults -no-reboot -monitor none -serial stdio
	-name convbench,debug-threads=on
	-accel "$accel_opt" -cpu "$cpu" -m "$mem"
	-smp "$cpus,sockets=$cpus,cores=1,threads=1"
	-kernel "$kernel" -initrd "$tmp/initramfs.gz" -append "$cmdline"
	-drive "file=${tmp//,/,,}/disk.img,format=raw,if=virtio"
	# CPU resets and guest errors: a guest that resets itself without a
	# word (a triple fault) leaves its trace here
	-d cpu_reset,guest_errors -D "$out/qemu.log")
# --split-stderr: the guest's ttyS1 carries the command's stderr out and
# (--pass-signals) signal names in: QEMU's pipe chardev opens both FIFOs
# read-write; cat empties ttyS1.out onto our stderr as it comes
if ((split_stderr)); then
	mkfifo "$tmp/ttyS1.in" "$tmp/ttyS1.out"
	qemu_args+=(-chardev "pipe,id=ttyS1,path=${tmp//,/,,}/ttyS1" -serial chardev:ttyS1)
	exec {sig_fd}<>"$tmp/ttyS1.in"
fi

mkdir -p -- "$out"
log=$out/console.log
env_file=$out/vm.env
kv() {	# KEY VALUE: key=value, single-quoted when needed (sourceable by sh)
	local v=$2
	[[ $v =~ ^[A-Za-z0-9_./:,+=@%-]*$ ]] || { v=$(sq "$v"); v=${v# }; }
	printf '%s=%s\n' "$1" "$v" >>"$env_file"
}
kv accel "$accel"
kv accel_opt "$accel_opt"
kv cpu "$cpu"
kv qemu_version "$("$qemu" --version | head -n1)"
kv kernel "$(realpath -- "$kernel")"
kv kernel_sha256 "$(sha256sum -- "$kernel" | cut -d' ' -f1)"
kv mem_mb "$mem"
kv cpus "$cpus"
kv cmdline "$cmdline"
args=$(for a in "$@"; do sq "$a"; done)
kv command "${args# }"
kv host_kernel "$(uname -r)"
kv started "$(date -u +%Y-%m-%dT%H:%M:%SZ)"

((quiet)) || say "booting $(basename -- "$kernel") ($accel, $cpus cpus, $mem MB, timeout ${timeout}s); console: $log"
# The console goes to console.log; the command's lines (between the guest's
# markers) to stdout; QEMU's own errors to stderr; everything else to
# stderr only when verbose. mawk needs -W interactive to stream.
awk_opts=()
awk -W version 2>&1 | grep -q mawk && awk_opts=(-W interactive)
: >"$log"
t0=$(date +%s.%N)
set +e
if ((split_stderr)); then
	cat "$tmp/ttyS1.out" >&2 &
	err_pid=$!
fi
# The group also keeps bash's job notice (QEMU killed by a signal) in the log.
{
	timeout --foreground -k 10 "$timeout" "$qemu" "${qemu_args[@]}" </dev/null &
	echo "$!" >"$tmp/timeout.pid"
	wait "$!"
	echo "$?" 2>/dev/null >"$tmp/qemu.rc"	# $tmp is gone after a signal
	rm -f "$tmp/timeout.pid"
} 2>&1 |
	awk "${awk_opts[@]}" -v logf="$log" -v verbose="$verbose" -v t0="$t0" -v mark="$tmp/started" \
		-v clockf="$out/clock.log" '
	{
		sub(/\r$/, "")
		if (!inside) gsub(/\033(\[[0-9;?]*[A-Za-z]|c)/, "")	# SeaBIOS screen codes
		print >logf; fflush(logf)
	}
	inside && (i = index($0, "CONVBENCH-COMMAND-END")) {
		inside = 0
		if (i > 1) { print substr($0, 1, i - 1); fflush() }
	}
	/^qemu-system-[^:]*: / {
		if (!/TCG doesn.t support requested feature|terminating on signal/) {
			print >"/dev/stderr"; fflush("/dev/stderr")
		}
		next
	}
	# the host clock when a clock mark arrives (make bench checks the
	# guest TSC against it, bench/vm/clock_mark.h)
	inside && (i = index($0, "CONVBENCH-CLOCK ")) {
		"date +%s.%N" | getline t; close("date +%s.%N")
		print "host_s=" t, substr($0, i) >clockf; fflush(clockf)
	}
	inside { print; fflush(); next }
	verbose { print >"/dev/stderr"; fflush("/dev/stderr") }
	/^CONVBENCH-COMMAND-START/ {
		inside = 1
		"date +%s.%N" | getline t; printf "%.2f\n", t - t0 >mark; close(mark)
	}' &
vm_job=$!
# What kept QEMU's vCPU threads off a CPU while the guest's clock ran on
# (under TCG the guest's TSC follows the host's clock): once a second,
# the vCPU threads' time on a CPU and waiting for one
# (/proc/PID/task/TID/schedstat), the host's CPU pressure and steal
# time, to sched.log; summed up into vm.env below. Builtins only but
# for sleep: the sampler must not load the host it watches.
sched_sample() {	# LOG
	local logf=$1 qpid='' t run wait x comm n=0 r w line steal psome f
	while [[ -z $qpid ]] && ((n++ < 600)); do
		[[ -f $tmp/timeout.pid ]] && read -r t <"$tmp/timeout.pid" 2>/dev/null &&
			qpid=$(pgrep -P "$t" 2>/dev/null | head -n1)
		[[ -n $qpid ]] || sleep 0.1
	done
	[[ -n $qpid ]] || return 0
	while [[ -d /proc/$qpid ]]; do
		r=0 w=0
		for f in /proc/"$qpid"/task/*; do
			read -r comm <"$f/comm" 2>/dev/null || continue
			[[ $comm == CPU* || $comm == "ALL CPUs"* ]] || continue
			read -r run wait x <"$f/schedstat" 2>/dev/null || continue
			r=$((r + run)) w=$((w + wait))
		done
		psome=0
		if [[ -r /proc/pressure/cpu ]]; then
			read -r line </proc/pressure/cpu
			psome=${line##*total=}
		fi
		read -r line </proc/stat
		# shellcheck disable=SC2086 # the fields of the cpu line
		set -- $line
		steal=${9:-0}
		printf '%s %s %s %s %s\n' "${EPOCHREALTIME:-0}" "$r" "$w" "$psome" "$steal" >>"$logf"
		sleep 1
	done
}
sched_sample "$out/sched.log" &
sampler=$!
# a trapped signal ends wait early: wait again while the job runs
wait_for() { while wait "$1"; (($? > 128)) && kill -0 "$1" 2>/dev/null; do :; done; }
wait_for "$vm_job"
kill "$sampler" 2>/dev/null
wait "$sampler" 2>/dev/null
# QEMU has closed the FIFO and cat ends with the last bytes; a QEMU that
# never opened it leaves cat waiting in open(): a writer lets it go
if ((split_stderr)); then
	# shellcheck disable=SC2016 # $1 of the inner shell
	kill -0 "$err_pid" 2>/dev/null &&
		timeout 2 bash -c ': >"$1"' _ "$tmp/ttyS1.out" 2>/dev/null
	wait_for "$err_pid"
fi
set -e
qemu_rc=$(cat "$tmp/qemu.rc" 2>/dev/null || echo 255)
wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')

status=$(sed -n 's/^CONVBENCH-EXIT-STATUS: \([0-9]\{1,3\}\)$/\1/p' "$log" | tail -n1)
# Kernel reports (kreport.sh): a BUG (KASAN, bad page state, sleeping in
# atomic, soft lockup) or an oops fails the run; a WARNING (WARN_ON,
# lockdep, suspicious RCU), an RCU stall or a hung task is reported and
# fails with --fail-on-warn.
# shellcheck source=kernel/vm/kreport.sh
. "$here/kreport.sh"
kreport_scan "$log"
panic=$kreport_panic warn=$kreport_warn nwarn=$kreport_nwarn
boot=$(cat "$tmp/started" 2>/dev/null || echo)
up_start=$(sed -n 's/^CONVBENCH-COMMAND-START uptime=\([0-9.]*\).*/\1/p' "$log" | head -n1)
guest_cpus=$(sed -n 's/^CONVBENCH-COMMAND-START .*cpus=\([0-9]*\).*/\1/p' "$log" | head -n1)
[[ -z $guest_cpus || $guest_cpus == "$cpus" ]] ||
	say "warning: the guest sees $guest_cpus CPUs, not $cpus"
up_end=$(sed -n 's/.*CONVBENCH-COMMAND-END uptime=//p' "$log" | tail -n1)

result=ok code=$status
if [[ -n $status ]]; then
	# The marker comes after the disk is synced: the tar is complete unless
	# the guest said otherwise (then extract nothing rather than a torso).
	if grep -q '^convbench-init: .*/out is lost\|^convbench-init: writing /out' "$log"; then
		say "the guest could not write /out to the ${disk} MB results disk (--disk MB), see $log"
		result=no-results code=126
	elif ! tar -C "$out" -xf "$tmp/disk.img" --no-same-owner \
		--exclude=./console.log --exclude=./vm.env --exclude=./clock.log \
		--exclude=./qemu.log; then
		say "could not extract the results disk into $out"
		result=no-results code=126
	fi
	((qemu_rc == 124 || qemu_rc == 137)) &&
		say "warning: the guest reported its status but did not power off"
fi
if [[ -n $panic ]]; then
	if [[ $panic == *'Kernel panic'* ]]; then say "kernel panicked: $panic"; else say "kernel BUG/oops: $panic"; fi
	kreport_excerpt "$log" "$panic" >&2
	result=panic code=125
elif [[ -z $status ]] && ((qemu_rc == 124 || qemu_rc == 137)); then
	say "guest hung (no exit after $timeout s), see $log"
	result=timeout code=124
elif [[ -z $status ]]; then
	say "no 'CONVBENCH-EXIT-STATUS' line: the guest did not report (QEMU exit $qemu_rc), see $log; last lines:"
	tail -n 15 "$log" | sed 's/^/  | /' >&2
	grep -q 'Triple fault' "$out/qemu.log" 2>/dev/null &&
		say "QEMU saw a triple fault: the guest reset itself (CPU state in $out/qemu.log)"
	result=no-status code=126
fi
if [[ -n $warn ]]; then
	say "kernel warning ($nwarn report lines, the first): $warn"
	kreport_excerpt "$log" "$warn" >&2
	if ((fail_on_warn)) && [[ $result == ok ]]; then result=warning code=125; fi
fi

kv result "$result"
kv exit_status "$status"
kv exit_code "$code"
kv boot_to_command_s "$boot"
kv guest_cpus "$guest_cpus"
kv guest_uptime_at_start_s "$up_start"
kv guest_uptime_at_end_s "$up_end"
kv kernel_warnings "$nwarn"
kv tcg_unsupported_features "$(grep -o "TCG doesn't support requested feature: [^ ]*" "$log" |
	sed 's/.*\.//' | sort -u | paste -sd, -)"
kv wall_s "$wall"
# sched.log's sums: vCPU threads' wait for a CPU as a share of their
# runnable time over the boot and in its worst second (seconds when the
# threads were busy at least a fifth of it), the host's CPU pressure
# ("some") and steal time as shares of the wall time
sched=$(awk -v hz="$(getconf CLK_TCK 2>/dev/null || echo 100)" -v ncpu="$(nproc)" '
	NR == 1 { t0 = $1; r0 = $2; w0 = $3; p0 = $4; s0 = $5 }
	NR > 1 {
		dr = $2 - pr; dw = $3 - pw; dt = $1 - pt
		if (dt > 0 && (dr + dw) / 1e9 > 0.2 * dt && dw / (dr + dw) > worst)
			worst = dw / (dr + dw)
	}
	{ pt = $1; pr = $2; pw = $3; last = NR; t1 = $1; r1 = $2; w1 = $3; p1 = $4; s1 = $5 }
	END {
		if (last < 2 || t1 <= t0) { print "? ? ? ? 0"; exit }
		dr = r1 - r0; dw = w1 - w0; dt = t1 - t0
		printf "%.2f %.2f %.2f %.2f %d\n", (dr + dw > 0 ? 100 * dw / (dr + dw) : 0),
			100 * worst, 100 * (p1 - p0) / 1e6 / dt,
			100 * (s1 - s0) / hz / dt / ncpu, last
	}' "$out/sched.log" 2>/dev/null || echo "? ? ? ? 0")
read -r s_wait s_worst s_psi s_steal s_n <<<"$sched"
kv vcpu_wait_pct "$s_wait"
kv vcpu_wait_worst_pct "$s_worst"
kv host_cpu_pressure_pct "$s_psi"
kv host_steal_pct "$s_steal"
kv sched_samples "$s_n"
[[ $result == ok ]] && ((!quiet)) &&
	say "command exited with $status; boot ${boot:-?} s, wall $wall s; results in $out"
exit "$code"
