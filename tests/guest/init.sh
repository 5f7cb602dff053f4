#!/bin/busybox sh
# SPDX-License-Identifier: GPL-3.0-or-later
# /init of the test guest (tests/guest/check.sh): the real kernel's vhci-hcd,
# cdc_acm, usb-storage and vfat drivers against `neug emulate` on the guest's
# own loopback. Results go to /dev/ttyS1 as PASS:/FAIL:/SKIP: lines, ending
# with "# done"; the console (ttyS0) carries the kernel log.
/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
mount -t tmpfs run /var/run
exec 3>/dev/ttyS1
say() { echo "$*" >&3; }
pass() { say "PASS: $*"; }
fail() { say "FAIL: $*"; }
check() { # name condition...
	local n=$1; shift
	if "$@"; then pass "$n"; else fail "$n"; fi
}
finish() {
	say "# done"
	sync
	poweroff -f
}
trap finish EXIT
say "# guest /init at $(cut -d' ' -f1 /proc/uptime) s uptime"

# What the device declares (usb/neug_fn.c); the checks compare the
# kernel's view with these.
VID=234b PID=0001
MFR=${NG_MFR:-Free Software Initiative of Japan}
PRODUCT=${NG_PRODUCT:-NeuG True RNG}
IFCLASSES=${NG_IFCLASSES:-02 0a 08}
UID3=12345678:9abcdef0:0fedcba9
SERIAL=${NG_SERIAL:-123456789ABCDEF00FEDCBA9}   # doc/usb.md: uid[0..2] as 24 upper-case hex digits
GET_INFO="0xc0 254"   # vendor request GET_INFO: bmRequestType, bRequest

ip link set lo up
nmod=0
while read -r m; do
	insmod "/lib/modules/$m" 2>/tmp/insmod.err || { fail "insmod $m: $(cat /tmp/insmod.err)"; }
	nmod=$((nmod + 1))
done </etc/modules.order
say "# $nmod modules loaded at $(cut -d' ' -f1 /proc/uptime) s"

EMU=
emu_start() { # neug emulate options...
	neug emulate -v "$@" 2>>/tmp/emu.log &
	EMU=$!
	local i=0
	while [ $i -lt 100 ]; do
		usbip list -r 127.0.0.1 >/tmp/list.txt 2>&1 && grep -q '1-1' /tmp/list.txt && return 0
		kill -0 $EMU 2>/dev/null || break
		sleep 0.1; i=$((i + 1))
	done
	fail "neug emulate $* started and listed 1-1"
	tail -5 /tmp/emu.log /tmp/list.txt | sed "s/^/# /" >&3
	return 1
}
attach() {
	local t0 i=0
	t0=$(cut -d' ' -f1 /proc/uptime)
	usbip attach -r 127.0.0.1 -b 1-1 >/tmp/attach.log 2>&1 || { fail "usbip attach: $(cat /tmp/attach.log)"; return 1; }
	while [ $i -lt 150 ] && [ ! -c /dev/ttyACM0 ]; do sleep 0.1; i=$((i + 1)); done
	[ -c /dev/ttyACM0 ] || { fail "attach: /dev/ttyACM0 appeared"; dmesg | tail -20 >&3; return 1; }
	say "# attached: /dev/ttyACM0 after $(awk -v a="$t0" '{printf "%.1f", $1 - a}' /proc/uptime) s"
	DEV=$(for d in /sys/bus/usb/devices/*; do
		[ "$(cat "$d/idVendor" 2>/dev/null)" = "$VID" ] && echo "$d" && break; done)
	USBDEV=
	[ -n "$DEV" ] && USBDEV=$(printf '/dev/bus/usb/%03d/%03d' "$(cat "$DEV/busnum")" "$(cat "$DEV/devnum")")
	return 0
}
detach() {
	local i=0
	usbip detach -p 0 >/dev/null 2>&1
	while [ $i -lt 50 ] && [ -e /dev/ttyACM0 ]; do sleep 0.1; i=$((i + 1)); done
	[ -n "$EMU" ] && kill "$EMU" 2>/dev/null && wait "$EMU" 2>/dev/null
	EMU=
}
get_info() { # index [wLength] -> the value, little endian (usb/neug_device.h)
	ngctl ctrl "$USBDEV" $GET_INFO 0 "$1" "${2:-1}" | sed -n 's/.*le=\([0-9]*\).*/\1/p'
}

# 1. enumeration ------------------------------------------------------------
check1() {
	emu_start --source=file:/vectors/adc.bin --uid=$UID3 || return
	attach || { detach; return; }
	check "enum: /dev/ttyACM0 is a character device" [ -c /dev/ttyACM0 ]
	check "enum: idVendor $VID idProduct $PID" [ "$(cat $DEV/idVendor):$(cat $DEV/idProduct)" = "$VID:$PID" ]
	check "enum: manufacturer '$(cat $DEV/manufacturer)'" [ "$(cat $DEV/manufacturer)" = "$MFR" ]
	check "enum: product '$(cat $DEV/product)'" [ "$(cat $DEV/product)" = "$PRODUCT" ]
	if [ -n "$SERIAL" ]; then
		check "enum: serial '$(cat $DEV/serial)'" [ "$(cat $DEV/serial)" = "$SERIAL" ]
	else
		check "enum: serial '$(cat $DEV/serial 2>/dev/null)' is not empty" [ -n "$(cat $DEV/serial 2>/dev/null)" ]
	fi
	got=$(for i in "$DEV":1.*; do cat "$i/bInterfaceClass"; done | tr '\n' ' ' | sed 's/ $//')
	check "enum: interface classes '$got' = '$IFCLASSES'" [ "$got" = "$IFCLASSES" ]
	check "enum: cdc_acm bound to interface 0" [ "$(basename "$(readlink "$DEV:1.0/driver")")" = cdc_acm ]
	dmesg | grep -E 'usb 1-1|cdc_acm|vhci' | tail -12 | sed 's/^/# dmesg: /' >&3
	detach
}

# 2. golden vector through the tty -----------------------------------------
# The stream starts at the file's first sample when DTR first rises, and any
# open of the tty raises DTR (the kernel resets ttyACM0's termios on every
# attach, so it cannot be made raw beforehand). ngctl opens the tty and makes
# it raw at once, at real-time priority, with the other CPUs offline: the
# kworker that feeds received bytes to the line discipline cannot run before
# tcsetattr(). Should bytes still beat it, the check says so and runs once
# more with a fresh device.
cpus_offline() { # 0|1
	for c in /sys/devices/system/cpu/cpu[1-9]*/online; do [ -f "$c" ] && echo "$1" >"$c"; done
}
check2() {
	local attempt t0 t1 n
	cpus_offline 0
	say "# vector: CPUs online: $(cat /sys/devices/system/cpu/online)"
	for attempt in 1 2; do
		emu_start --source=file:/vectors/adc.bin --uid=$UID3 || return
		attach || { detach; return; }
		t0=$(cut -d' ' -f1 /proc/uptime)
		ngctl read /dev/ttyACM0 6400 60000 >/tmp/m0.bin 2>/dev/null
		t1=$(cut -d' ' -f1 /proc/uptime)
		detach
		cmp -s /tmp/m0.bin /vectors/out-adc-m0.bin && break
		say "# vector: attempt $attempt: $(wc -c </tmp/m0.bin) bytes, differ from out-adc-m0.bin at $(cmp /tmp/m0.bin /vectors/out-adc-m0.bin 2>&1 | head -1)"
	done
	cpus_offline 1
	n=$(wc -c </tmp/m0.bin)
	check "vector: /dev/ttyACM0 from adc.bin gives out-adc-m0.bin byte for byte ($n bytes in $(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.2f", b - a}') s, attempt $attempt)" \
		cmp -s /tmp/m0.bin /vectors/out-adc-m0.bin
}

# 3. modes from stty parity, raw blocks, DTR gating -------------------------
# A long input (adc.bin 200 times): every open of the tty (stty's too) raises
# DTR and lets the device run through samples.
big_input() {
	[ -s /tmp/big.bin ] && return
	# 200 copies (22.4 MB): each stty open lets the device run through up to
	# a tty buffer's worth of output (~300,000 samples in conditioned mode),
	# and a faster machine gets further, so 40 copies could run dry.
	local i=0
	while [ $i -lt 200 ]; do cat /vectors/adc.bin; i=$((i + 1)); done >/tmp/big.bin
}
check3() {
	big_input
	emu_start --source=file:/tmp/big.bin --uid=$UID3 || return
	attach || { detach; return; }
	check "mode: usbfs node $USBDEV exists" [ -c "$USBDEV" ]
	stty -F /dev/ttyACM0 raw -echo
	stty -F /dev/ttyACM0 -parenb; m0=$(get_info 0)
	stty -F /dev/ttyACM0 parenb parodd; m1=$(get_info 0)
	stty -F /dev/ttyACM0 parenb -parodd; m2=$(get_info 0)
	check "mode: GET_INFO 0 follows parity none/odd/even: $m0 $m1 $m2 (want 0 1 2)" [ "$m0 $m1 $m2" = "0 1 2" ]
	timeout 20 dd if=/dev/ttyACM0 of=/tmp/raw.bin bs=32 count=512 iflag=fullblock 2>/tmp/dd.err || sed "s/^/# dd: /" /tmp/dd.err >&3
	if [ ! -s /tmp/raw.bin ]; then
		# Seen once in about ten runs on a loaded machine: no raw data at all
		# after the three parity changes. Keep what the device said, then
		# try once more from a fresh attach (the result is what counts).
		say "# check 3: no raw data on the first try; device log, then one retry:"
		tail -8 /tmp/emu.log | sed "s/^/# emu: /" >&3
		GET16=$(get_info 16 4); say "# check 3: GET_INFO 16 (status) = $GET16, mode = $(get_info 0)"
		detach
		emu_start --source=file:/tmp/big.bin --uid=$UID3 || return
		attach || { detach; return; }
		stty -F /dev/ttyACM0 raw -echo parenb -parodd
		timeout 20 dd if=/dev/ttyACM0 of=/tmp/raw.bin bs=32 count=512 iflag=fullblock 2>/tmp/dd.err || sed "s/^/# dd: /" /tmp/dd.err >&3
	fi
	r=$(ngctl blocks /tmp/raw.bin /tmp/big.bin)
	# Up to 2 leading blocks (the one 64-byte packet the controller held at
	# the switch; the device cuts the rest of the transfer, doc/usb.md) may
	# be the previous mode's output.
	check "mode: raw mode, every 32-byte block after at most one 64-byte packet of the previous mode's is a 32-byte-aligned block of the input, in order ($r)" \
		sh -c "echo '$r' | grep -Eq 'blocks=512 lead=[0-2] .* phase=0 bad=0'"
	stty -F /dev/ttyACM0 -parenb
	r=$(ngctl dtr /dev/ttyACM0 2>&1)
	check "mode: no data while DTR is dropped, data again after raising it ($r)" \
		sh -c "echo '$r' | grep -Eq 'before=[1-9][0-9]* .*while_low=0 after_raise=[1-9]'"
	grep -h "neug emulate:" /tmp/emu.log 2>/dev/null | tail -3 | sed "s/^/# emu: /" >&3
	detach
}

# 4. mass storage -----------------------------------------------------------
check4() {
	emu_start --source=file:/vectors/adc.bin --uid=$UID3 || return
	attach || { detach; return; }
	i=0
	while [ $i -lt 100 ] && [ ! -b /dev/sda ]; do sleep 0.1; i=$((i + 1)); done
	check "msc: /dev/sda appeared" [ -b /dev/sda ]
	part=/dev/sda; [ -b /dev/sda1 ] && part=/dev/sda1
	check "msc: $part mounts read-only as vfat" mount -t vfat -o ro "$part" /mnt
	ls -l /mnt | sed 's/^/# msc: /' >&3
	check "msc: COPYING is the GPLv3 text byte for byte" cmp -s /mnt/COPYING /ref/COPYING
	check "msc: README is there and not empty" [ -s /mnt/README ]
	if touch /mnt/x 2>/dev/null; then fail "msc: the file system refuses writes"; else pass "msc: the file system refuses writes"; fi
	umount /mnt
	detach
}

# 5. a stuck source ---------------------------------------------------------
check5() {
	emu_start --source=file:/vectors/stuck.bin --uid=$UID3 || return
	attach || { detach; return; }
	n=$(ngctl read /dev/ttyACM0 65536 4000 2>&1 >/dev/null | sed -n 's/read=//p')
	check "stuck: the tty delivers no data from stuck.bin ($n bytes in 4 s)" [ "$n" = 0 ]
	st=$(get_info 16 4)
	check "stuck: GET_INFO 16 (health status bits) reports the failure (0x$(printf %x "${st:-0}"))" \
		[ $(( ${st:-0} & 0x80 )) != 0 ]
	ft=$(get_info 27 4); fi_=$(get_info 28 8)
	check "stuck: GET_INFO 27/28 name the test and sample index that latched (test $ft at sample $fi_)" \
		[ "${ft:-0}" != 0 ]
	detach
}

# 6. jitter source under rngtest ---------------------------------------------
check6() {
	emu_start || return
	attach || { detach; return; }
	stty -F /dev/ttyACM0 raw -echo
	t0=$(cut -d' ' -f1 /proc/uptime)
	timeout 240 dd if=/dev/ttyACM0 of=/tmp/j.bin bs=4096 count=512 iflag=fullblock 2>/dev/null
	t1=$(cut -d' ' -f1 /proc/uptime)
	n=$(wc -c </tmp/j.bin)
	say "# jitter: $n bytes in $(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.1f", b - a}') s"
	rngtest <"/tmp/j.bin" >/tmp/rngtest.txt 2>&1
	ok=$(sed -n 's/.*FIPS 140-2 successes: *\([0-9]*\).*/\1/p' /tmp/rngtest.txt)
	bad=$(sed -n 's/.*FIPS 140-2 failures: *\([0-9]*\).*/\1/p' /tmp/rngtest.txt)
	ok=${ok:-0} bad=${bad:-0}
	good=no
	[ "$n" -ge 2000000 ] && [ "$ok" -gt 0 ] && [ $((ok * 1000)) -ge $(((ok + bad) * 995)) ] && good=yes
	check "jitter: rngtest on $n bytes: $ok of $((ok + bad)) blocks pass (>= 99.5%)" [ $good = yes ]
	detach
}

# 7. --selfattach: no TCP, a socketpair handed to vhci_hcd's sysfs attach ----
check7() {
	local i=0 rc
	neug emulate --selfattach --source=file:/vectors/adc.bin --uid=$UID3 2>>/tmp/emu.log &
	EMU=$!
	while [ $i -lt 150 ] && [ ! -c /dev/ttyACM0 ]; do sleep 0.1; i=$((i + 1)); done
	check "selfattach: /dev/ttyACM0 appears without TCP or the usbip tool" [ -c /dev/ttyACM0 ]
	cpus_offline 0
	ngctl read /dev/ttyACM0 6400 30000 >/tmp/s0.bin 2>/dev/null
	cpus_offline 1
	check "selfattach: out-adc-m0.bin byte for byte ($(wc -c </tmp/s0.bin) bytes)" cmp -s /tmp/s0.bin /vectors/out-adc-m0.bin
	echo 0 >/sys/devices/platform/vhci_hcd.0/detach 2>/dev/null
	i=0
	while [ $i -lt 50 ] && kill -0 $EMU 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
	if kill -0 $EMU 2>/dev/null; then
		fail "selfattach: neug emulate ends when the kernel detaches the device"
		kill $EMU; wait $EMU
	else
		wait $EMU; rc=$?
		check "selfattach: neug emulate ends with status 0 when the kernel detaches the device ($rc)" [ $rc = 0 ]
	fi
	EMU=
}

# 8. NeuG 1.0.x's check tool: its requests through libusb ---------------------
# neug-check (tests/guest/neug_check.c) reads strings 1..7 and GET_INFO 0..7
# as tool/neug_check.py does, then requests that must STALL, then the same
# again; the tty must deliver data before and after, and `neug info` (libusb)
# decodes the same strings.
check8() {
	local n1 n2 rc s6 ok6
	big_input
	emu_start --source=file:/tmp/big.bin --uid=$UID3 || return
	attach || { detach; return; }
	n1=$(ngctl read /dev/ttyACM0 4096 10000 2>&1 >/dev/null | sed -n 's/read=//p')
	neug-check >/tmp/nc.txt 2>&1; rc=$?
	sed 's/^/# neug-check: /' /tmp/nc.txt >&3
	nc() { sed -n "s/^$1: //p" /tmp/nc.txt; }
	check "neug-check: strings 1..3 '$(nc 'string 1')' / '$(nc 'string 2')' / '$(nc 'string 3')'" \
		[ "$(nc 'string 1')|$(nc 'string 2')|$(nc 'string 3')" = "$MFR|$PRODUCT|$SERIAL" ]
	check "neug-check: string 4 (revision) '$(nc 'string 4')' is not empty" [ -n "$(nc 'string 4')" ]
	check "neug-check: string 5 (build configuration) '$(nc 'string 5')'" [ "$(nc 'string 5')" = "emulate:source=file" ]
	s6=$(nc 'string 6') ok6=no
	case $s6 in "Linux "*", core "*) ok6=yes ;; esac
	check "neug-check: string 6 (system version) '$s6'" [ $ok6 = yes ]
	check "neug-check: string 7 (board) '$(nc 'string 7')'" [ "$(nc 'string 7')" = "USB/IP emulation" ]
	check "neug-check: GET_INFO 0..7 answered (mode $(nc 'info 0'), errors $(nc 'info 1'))" \
		[ "$(grep -c '^info [0-7]: [0-9]' /tmp/nc.txt)" = 8 ]
	check "neug-check: GET_INFO 8, 15 and 65535, strings 9 and 0xEE, vendor request 253 STALL" \
		[ "$(grep -c '^stall .*: ok$' /tmp/nc.txt)" = 6 ]
	check "neug-check: after each STALL the strings and GET_INFO answer the same (status $rc)" \
		sh -c "[ $rc = 0 ] && grep -q '^again: same' /tmp/nc.txt && grep -q '^result: ok' /tmp/nc.txt"
	n2=$(ngctl read /dev/ttyACM0 4096 10000 2>&1 >/dev/null | sed -n 's/read=//p')
	check "neug-check: the tty delivers data before ($n1 bytes) and after the STALLs ($n2 bytes)" \
		[ "${n1:-0}:${n2:-0}" = 4096:4096 ]
	neug info >/tmp/info.txt 2>&1; rc=$?
	sed 's/^/# neug info: /' /tmp/info.txt >&3
	check "neug info: status $rc, board, build and system lines from strings 7, 5 and 6" \
		sh -c "[ $rc = 0 ] && grep -q '^board  *USB/IP emulation' /tmp/info.txt &&
			grep -q '^build  *emulate:source=file' /tmp/info.txt && grep -q '^system  *Linux ' /tmp/info.txt"
	detach
}

# 9-11. updates of the emulated board (neug emulate --flash) ----------------
# The board runs the loader over a flash file (/tmp/*.flash) and attaches
# itself to vhci (--selfattach), so that a reset (DFU_DETACH, leaving DFU
# mode) is a re-enumeration, as on a real bus; killing the emulator (-9) is
# pulling the plug: the flash file keeps what was written. Images: /data
# (tests/guest/check.sh). systemd-udevd runs, so that libusb (dfu-util's
# one context) sees the board come back.
UDEVD=
udevd_start() {
	[ -n "$UDEVD" ] && return 0
	mkdir -p /run/udev /lib/systemd /etc/udev
	ln -sf /usr/bin/udevadm /lib/systemd/systemd-udevd
	/lib/systemd/systemd-udevd --daemon --resolve-names=never >/tmp/udevd.log 2>&1 && UDEVD=1
	[ -n "$UDEVD" ] || say "# udevd did not start: $(head -3 /tmp/udevd.log)"
}
board() { # flash [emulate options...]: plug in a board with this flash file
	local f=$1; shift
	neug emulate --selfattach --flash="$f" --source=file:/tmp/big.bin --uid=$UID3 "$@" 2>>/tmp/emu.log &
	EMU=$!
}
unplug() { # power gone at once: the flash file keeps what was written
	[ -n "$EMU" ] && kill -9 "$EMU" 2>/dev/null && wait "$EMU" 2>/dev/null
	EMU=
	local i=0
	while [ $i -lt 50 ] && [ -n "$(nusb)" ]; do sleep 0.1; i=$((i + 1)); done
}
nusb() { # the board's sysfs directory, if one is attached
	for d in /sys/bus/usb/devices/*; do
		[ "$(cat "$d/idVendor" 2>/dev/null)" = "$VID" ] && echo "$d" && return
	done
}
mode_of() { # app | dfu | none: what the attached board is now
	local d
	d=$(nusb)
	[ -n "$d" ] || { echo none; return; }
	case "$(cat "$d/$(basename "$d"):1.0/bInterfaceClass" 2>/dev/null)$(cat "$d/$(basename "$d"):1.0/bInterfaceProtocol" 2>/dev/null)" in
	fe02) echo dfu ;;
	0200) [ -c /dev/ttyACM0 ] && echo app || echo none ;;
	*) echo none ;;
	esac
}
wait_mode() { # app|dfu: 0 once the board is there in that mode (15 s at most)
	local i=0
	while [ $i -lt 150 ]; do
		[ "$(mode_of)" = "$1" ] && {
			DEV=$(nusb)
			USBDEV=$(printf '/dev/bus/usb/%03d/%03d' "$(cat "$DEV/busnum")" "$(cat "$DEV/devnum")")
			return 0
		}
		sleep 0.1; i=$((i + 1))
	done
	say "# wait for $1: the board is '$(mode_of)'"
	tail -4 /tmp/emu.log | sed 's/^/# emu: /' >&3
	return 1
}
digest_of() { neug sign --check "$1" 2>/dev/null | sed -n 's/^sha256: *//p'; }
info_has() { # file pattern...: every pattern in neug info's output
	local f=$1; shift
	for p in "$@"; do grep -q -- "$p" "$f" || return 1; done
}
dfu_retry() { # what: a board in DFU mode takes B.dfu with dfu-util and comes back running it
	dfu-util -d 234b:0001 -D /data/B.dfu -R >/tmp/du.txt 2>&1
	local rc=$?
	wait_mode app && neug info >/tmp/i.txt 2>&1
	check "dfu-util: $1: the board takes B.dfu again (dfu-util status $rc) and runs 0.1.1" \
		info_has /tmp/i.txt "^revision  *0.1.1" "SHA-256 $DB"
}

check9() {
	big_input
	udevd_start
	DA=$(digest_of /data/A.img) DB=$(digest_of /data/B.img)
	rm -f /tmp/9.flash
	board /tmp/9.flash --program=/data/A.img
	wait_mode app || { fail "dfu-util: the board with A.img runs its application"; unplug; return; }
	neug info >/tmp/i.txt 2>&1
	sed 's/^/# neug info: /' /tmp/i.txt | grep -E 'revision|build|loader|image|signed|SHA' >&3
	check "neug info: A.img runs: revision 0.1.0, loader 1.1, the loader's SHA-256 of it, no owner key" \
		info_has /tmp/i.txt "^revision  *0.1.0" "^loader  *version 1.1" "SHA-256 $DA" "holds no owner key"
	dfu-util -l >/tmp/dl.txt 2>&1
	check "dfu-util -l: the run-time interface of 234b:0001 ($(grep -c Found /tmp/dl.txt) found)" \
		grep -q 'Found Runtime: \[234b:0001\]' /tmp/dl.txt
	local t0 t1 rc
	t0=$(cut -d' ' -f1 /proc/uptime)
	dfu-util -d 234b:0001 -D /data/B.dfu -R >/tmp/du.txt 2>&1; rc=$?
	t1=$(cut -d' ' -f1 /proc/uptime)
	tail -6 /tmp/du.txt | sed 's/^/# dfu-util: /' >&3
	wait_mode app && neug info >/tmp/i.txt 2>&1
	check "dfu-util -D B.dfu -R (status $rc, $(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.1f", b - a}') s): the board re-enumerates running 0.1.1 with B's SHA-256" \
		info_has /tmp/i.txt "^revision  *0.1.1" "SHA-256 $DB"
	unplug
}

check10() {
	big_input
	udevd_start
	DA=$(digest_of /data/A.img) DB=$(digest_of /data/B.img)
	local r m
	# before detach: nothing written, the old image runs again
	rm -f /tmp/10.flash
	board /tmp/10.flash --program=/data/A.img
	wait_mode app || { fail "interrupted: the board runs A.img"; unplug; return; }
	unplug
	board /tmp/10.flash
	wait_mode app && neug info >/tmp/i.txt 2>&1
	check "interrupted before the detach: the board comes back running A.img" info_has /tmp/i.txt "SHA-256 $DA"
	# after the detach, before the first block
	dfu-util -d 234b:0001 -e >/tmp/du.txt 2>&1
	wait_mode dfu
	check "dfu-util -e: the board detaches into DFU mode" [ "$(mode_of)" = dfu ]
	unplug
	board /tmp/10.flash
	wait_mode app
	check "interrupted in DFU mode before the first block: the board comes back running A.img (nothing written)" \
		[ "$(mode_of)" = app ]
	# mid-download
	dfu-util -d 234b:0001 -e >/tmp/du.txt 2>&1
	wait_mode dfu
	r=$(ngctl dfu "$USBDEV" /data/B.img 20 2>&1)
	unplug
	board /tmp/10.flash
	wait_mode dfu
	check "interrupted mid-download ($r): the board comes back in DFU mode" [ "$(mode_of)" = dfu ]
	neug info >/tmp/i.txt 2>&1
	check "neug info on it: DFU mode, no valid image" info_has /tmp/i.txt "^mode  *DFU" "none valid"
	dfu_retry "after the interrupted download"
	# every block, no manifestation
	dfu-util -d 234b:0001 -e >/tmp/du.txt 2>&1
	wait_mode dfu
	r=$(ngctl dfu "$USBDEV" /data/A.img -1 2>&1)
	unplug
	board /tmp/10.flash
	wait_mode dfu
	check "interrupted before the manifestation ($r): the board comes back in DFU mode" [ "$(mode_of)" = dfu ]
	dfu_retry "after the missing manifestation"
	# images the board must refuse; it stays in DFU mode and takes a good one
	for bad in Bflip:"a flipped bit" Btrunc:"a truncated image"; do
		dfu-util -d 234b:0001 -e >/tmp/du.txt 2>&1
		wait_mode dfu
		dfu-util -d 234b:0001 -D "/data/${bad%%:*}.dfu" -R >/tmp/du.txt 2>&1; r=$?
		sleep 1
		wait_mode dfu
		check "dfu-util with ${bad#*:}: refused (dfu-util status $r: $(grep -io 'err[A-Z]*\|status.*' /tmp/du.txt | tail -1)), the board stays in DFU mode" \
			[ "$(mode_of)" = dfu ]
		dfu_retry "after ${bad#*:}"
	done
	# another board's image (intact): the loader compares the trailer's
	# board with its own, whatever tool sends it
	dfu-util -d 234b:0001 -e >/tmp/du.txt 2>&1
	wait_mode dfu
	dfu-util -d 234b:0001 -D /data/fst01.dfu -R >/tmp/du.txt 2>&1; r=$?
	wait_mode dfu && neug info >/tmp/i.txt 2>&1
	check "dfu-util with an FST-01 image: refused (status $r: $(grep -o 'status(1) = [A-Za-z ]*' /tmp/du.txt | tail -1)), DFU mode, neug info: loader 1.1, no valid image" \
		sh -c "grep -q 'status(1) = File is not targeted' /tmp/du.txt && grep -q '^mode  *DFU' /tmp/i.txt &&
			grep -q 'none valid' /tmp/i.txt && grep -q '^loader  *version 1.1' /tmp/i.txt"
	dfu_retry "after another board's image"
	# the version floor: the board has started 0.1.1; 0.1.0 is refused,
	# unless its trailer allows the downgrade
	neug info >/tmp/i.txt 2>&1
	check "neug info: floor 0.1.1 (the newest the board started)" info_has /tmp/i.txt "^floor  *version 0.1.1"
	dfu-util -d 234b:0001 -e >/tmp/du.txt 2>&1
	wait_mode dfu
	dfu-util -d 234b:0001 -D /data/A.dfu -R >/tmp/du.txt 2>&1; r=$?
	wait_mode dfu; m=$(mode_of)
	check "dfu-util with 0.1.0 below the floor: refused (status $r: $(grep -o 'status(2) = [A-Za-z -]*' /tmp/du.txt | tail -1)), DFU mode" \
		sh -c "[ $m = dfu ] && grep -q 'status(2) = File is for this device but fails' /tmp/du.txt"
	dfu-util -d 234b:0001 -D /data/Adown.dfu -R >/tmp/du.txt 2>&1; r=$?
	wait_mode app && neug info >/tmp/i.txt 2>&1
	check "dfu-util with 0.1.0 carrying the downgrade flag: taken (status $r), runs 0.1.0; the floor stays 0.1.1" \
		info_has /tmp/i.txt "^revision  *0.1.0" "SHA-256 $DA" "^floor  *version 0.1.1"
	unplug
	# an owner key: an image signed by another key is refused
	rm -f /tmp/10k.flash
	board /tmp/10k.flash --owner-key=/data/owner.pub
	wait_mode dfu
	dfu-util -d 234b:0001 -D /data/Bother.dfu -R >/tmp/du.txt 2>&1; r=$?
	sleep 1
	wait_mode dfu
	check "dfu-util, owner key held, image signed by another key: refused (status $r), the board stays in DFU mode" \
		[ "$(mode_of)" = dfu ]
	dfu-util -d 234b:0001 -D /data/Bsigned.dfu -R >/tmp/du.txt 2>&1; r=$?
	wait_mode app && neug info >/tmp/i.txt 2>&1
	check "dfu-util, owner key held, image signed by it: accepted, runs, neug info says signed by its fingerprint" \
		info_has /tmp/i.txt "^signed  *yes" "fingerprint $(sha256sum /data/owner.pub | cut -d' ' -f1)"
	unplug
}

check11() {
	big_input
	udevd_start
	DA=$(digest_of /data/A.img) DB=$(digest_of /data/B.img)
	local rc
	rm -f /tmp/11.flash
	board /tmp/11.flash --program=/data/A.img
	wait_mode app || { fail "neug upgrade: the board runs A.img"; unplug; return; }
	neug upgrade /data/B.dfu >/tmp/u.txt 2>&1; rc=$?
	sed 's/^/# neug upgrade: /' /tmp/u.txt >&3
	check "neug upgrade B.dfu: status 0, detached, downloaded with a line per quarter, confirmed 0.1.1 and B's SHA-256" \
		sh -c "[ $rc = 0 ] && grep -q '^detaching' /tmp/u.txt && [ \$(grep -c '^downloaded .* bytes (' /tmp/u.txt) = 5 ] &&
			grep -q 'downloaded 12200 of 12200 bytes (100%)' /tmp/u.txt && grep -q \"^done: the board runs version 0.1.1, SHA-256 $DB\" /tmp/u.txt"
	wait_mode app
	neug info --verify=/data/B.img >/tmp/v.txt 2>/tmp/v.err; rc=$?
	sed 's/^/# verify: /' /tmp/v.txt >&3
	check "neug info --verify=B.img: match, status 0 ($rc)" sh -c "[ $rc = 0 ] && grep -q '^verify: match' /tmp/v.txt"
	wait_mode app
	neug info --verify=/data/A.img >/tmp/v.txt 2>/tmp/v.err; rc=$?
	check "neug info --verify=A.img: MISMATCH, status 1 ($rc)" sh -c "[ $rc = 1 ] && grep -q '^verify: MISMATCH' /tmp/v.txt"
	wait_mode app
	check "after the questions the board runs its application again" [ "$(mode_of)" = app ]
	neug upgrade /data/Bflip.img >/tmp/u.txt 2>&1; rc=$?
	check "neug upgrade of a flipped image: status 5, nothing sent ($(tail -1 /tmp/u.txt))" \
		sh -c "[ $rc = 5 ] && grep -q 'SHA-256' /tmp/u.txt && ! grep -q detaching /tmp/u.txt"
	neug upgrade /data/fst01.dfu >/tmp/u.txt 2>&1; rc=$?
	check "neug upgrade of an FST-01 image: status 5, the boards named ($(tail -1 /tmp/u.txt))" \
		sh -c "[ $rc = 5 ] && grep -q \"for board 'fst-01', this board is 'emulate'\" /tmp/u.txt"
	check "the board still runs B after the refusals" [ "$(mode_of)" = app ]
	# what the loader would refuse is refused here first: exit 5, the
	# field named, nothing sent (no detach), the board still running B
	refused() { # what image field [options]: neug upgrade refuses IMAGE naming FIELD
		local what=$1 img=$2 field=$3; shift 3
		neug upgrade "$@" "/data/$img" >/tmp/u.txt 2>&1; rc=$?
		check "neug upgrade $* $img ($what): status 5, '$field' named, nothing sent ($(tail -1 /tmp/u.txt | head -c 150))" \
			sh -c "[ $rc = 5 ] && grep -q 'neug upgrade: $field' /tmp/u.txt && ! grep -q detaching /tmp/u.txt"
	}
	refused "below the floor 0.1.1" A.dfu "version: 0.1.0 is below the board.s version floor 0.1.1"
	refused "the downgrade flag without --allow-downgrade" Adown.dfu "version: .*confirm it with --allow-downgrade"
	refused "linked for 0x08002000" Aaddr.dfu "load address: the image is linked for 0x08002000"
	check "the board still runs B after the refusals, B's SHA-256" sh -c "neug info 2>&1 | grep -q 'SHA-256 $DB'"
	neug upgrade --allow-downgrade /data/Adown.dfu >/tmp/u.txt 2>&1; rc=$?
	check "neug upgrade --allow-downgrade Adown.dfu: status 0, runs 0.1.0" \
		sh -c "[ $rc = 0 ] && grep -q '^done: the board runs version 0.1.0' /tmp/u.txt"
	wait_mode app
	# unplugged in the middle of neug upgrade's download: the board loses
	# power once 20 of the image's 48 blocks are in its flash (neug emulate
	# --unplug-after), however the scheduler runs the programs
	unplug
	board /tmp/11.flash --unplug-after=20
	wait_mode app
	neug upgrade /data/C.dfu >/tmp/u.txt 2>&1; rc=$?
	unplug
	check "neug upgrade unplugged after 20 of 48 blocks: status 6, says so ($(tail -1 /tmp/u.txt | head -c 160))" \
		sh -c "[ $rc = 6 ] && grep -q 'broke off at block 19 .*stays in DFU mode' /tmp/u.txt"
	board /tmp/11.flash
	wait_mode dfu
	check "after it the board comes back in DFU mode" [ "$(mode_of)" = dfu ]
	neug upgrade /data/fst01.dfu >/tmp/u.txt 2>&1; rc=$?
	check "in DFU mode, neug upgrade of an FST-01 image: status 5, the loader's board named ($(tail -1 /tmp/u.txt | head -c 160))" \
		sh -c "[ $rc = 5 ] && grep -q \"board: the image is for board 'fst-01', this board's loader takes only 'emulate'\" /tmp/u.txt"
	neug upgrade /data/C.dfu >/tmp/u.txt 2>&1; rc=$?
	check "neug upgrade again: finds the board in DFU mode, status 0, runs 0.1.2" \
		sh -c "[ $rc = 0 ] && grep -q 'in DFU mode (the boot loader)' /tmp/u.txt && grep -q '^done: the board runs version 0.1.2' /tmp/u.txt"
	unplug
	# owner key: unsigned images and another key's are refused before
	# anything is sent; the board refuses another key's itself (dfu-util,
	# check 10)
	rm -f /tmp/11k.flash
	board /tmp/11k.flash --program=/data/Bsigned.img --owner-key=/data/owner.pub
	wait_mode app
	refused "signed by another key" Bother.dfu "key id: the image is signed by key id"
	refused "unsigned, the board holds an owner key" B.dfu "signed: the image is unsigned"
	check "the board still runs its application" [ "$(mode_of)" = app ]
	neug upgrade /data/Bsigned.dfu >/tmp/u.txt 2>&1; rc=$?
	check "neug upgrade of the owner's image: status 0" [ $rc = 0 ]
	unplug
}

# bench (bench/bench-guest.sh): byte rates through the kernel ---------------
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null; }
bench_one() { # label source parity-stty bytes
	local label=$1 src=$2 par=$3 bytes=$4 t0 t1 c0 c1 n
	emu_start --source="$src" --uid=$UID3 || return
	attach || { detach; return; }
	stty -F /dev/ttyACM0 raw -echo $par
	c0=$(cpu_ticks $EMU)
	t0=$(cut -d' ' -f1 /proc/uptime)
	timeout 120 dd if=/dev/ttyACM0 of=/tmp/b.bin bs=4096 count=$((bytes / 4096)) iflag=fullblock 2>/dev/null
	t1=$(cut -d' ' -f1 /proc/uptime)
	c1=$(cpu_ticks $EMU)
	n=$(wc -c </tmp/b.bin)
	say "# bench: $label $(awk -v a=$t0 -v b=$t1 -v n=$n -v c0=$c0 -v c1=$c1 'BEGIN{d = b - a; if (d <= 0) d = 0.01; printf "%d bytes in %.2f s rate=%.1f kB/s device_cpu=%.0f%%", n, d, n / d / 1000, (c1 - c0) / d}')"
	detach
}
checkbench() {
	big_input
	bench_one "file conditioned" file:/tmp/big.bin -parenb 131072
	bench_one "file crc32" file:/tmp/big.bin "parenb parodd" 524288
	bench_one "jitter conditioned" jitter -parenb 65536
	bench_one "jitter crc32" jitter "parenb parodd" 262144
	# the same pipeline without USB: neug generate inside the guest
	for m in conditioned crc32; do
		t0=$(cut -d' ' -f1 /proc/uptime)
		n=$(neug generate --source=file:/tmp/big.bin --uid=$UID3 --mode=$m -n 128K 2>/dev/null | wc -c)
		t1=$(cut -d' ' -f1 /proc/uptime)
		say "# bench: generate file $m (no USB) $n bytes $(awk -v a=$t0 -v b=$t1 -v n=$n 'BEGIN{d = b - a; if (d <= 0) d = 0.01; printf "rate=%.1f kB/s", n / d / 1000}')"
	done
	pass "bench ran"
}

# 12. signals while the board is gone ---------------------------------------
# generate and feed read the board; it is detached (usbip detach) or its
# emulator killed (-9), and the command waits for it to come back; then
# SIGTERM, SIGINT or SIGHUP ends it within 1 s with 128 + the signal, and
# generate -o leaves no file (host/base/loop.h: the one signal path).
wait_log() { # file pattern: 0 once the pattern is in the file (10 s at most)
	local i=0
	while [ $i -lt 100 ]; do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; i=$((i + 1)); done
	return 1
}
sig_end() { # pid signal status label
	local pid=$1 sig=$2 want=$3 label=$4 t0 t1 rc i=0
	t0=$(cut -d' ' -f1 /proc/uptime)
	kill -"$sig" "$pid"
	while [ $i -lt 50 ] && kill -0 "$pid" 2>/dev/null; do sleep 0.05; i=$((i + 1)); done
	t1=$(cut -d' ' -f1 /proc/uptime)
	kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
	wait "$pid"; rc=$?
	check "$label: SIG$sig ends it in $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b - a}') s, status $rc (want $want)" \
		sh -c "[ $rc = $want ] && awk -v a=$t0 -v b=$t1 'BEGIN{exit !(b - a <= 1.0)}'"
}
tty_ready() { # the tty is there and delivers (after an attach it may re-enumerate once)
	local i=0
	while [ $i -lt 100 ]; do
		[ -c /dev/ttyACM0 ] && ngctl read /dev/ttyACM0 64 2000 >/dev/null 2>&1 && [ -c /dev/ttyACM0 ] && return 0
		sleep 0.1; i=$((i + 1))
	done
	say "# /dev/ttyACM0 did not deliver: $(ls /dev/ttyACM* 2>&1 | tr '\n' ' ')"
}
check12() {
	local pid way sig want
	big_input
	for way in detach kill; do
		case $way in detach) sig=TERM want=143 ;; *) sig=INT want=130 ;; esac
		emu_start --source=file:/tmp/big.bin --uid=$UID3 || return
		attach || { detach; return; }
		tty_ready
		rm -f /tmp/g.bin /tmp/g.err
		neug generate --source=device:/dev/ttyACM0 -n 100M -o /tmp/g.bin 2>/tmp/g.err &
		pid=$!
		sleep 1
		if [ $way = detach ]; then
			usbip detach -p 0 >/dev/null 2>&1
		else
			kill -9 "$EMU"; wait "$EMU" 2>/dev/null; EMU=
		fi
		if wait_log /tmp/g.err 'waiting for'; then
			sig_end $pid $sig $want "generate, board gone ($way), waiting for it"
			check "generate, board gone ($way), SIG$sig: no output file ($(ls /tmp | grep '^g\.bin' | tr '\n' ' '))" \
				sh -c '! ls /tmp | grep -q "^g\.bin"'
		else
			fail "generate, board gone ($way): it says it waits ($(tail -2 /tmp/g.err | tr '\n' ' '))"
			say "# $(ls /dev/ttyACM* 2>&1 | tr '\n' ' ')"; dmesg | tail -25 | sed 's/^/# dmesg: /' >&3
			kill -9 $pid; wait $pid
		fi
		detach
	done
	emu_start --source=file:/tmp/big.bin --uid=$UID3 || return
	attach || { detach; return; }
	tty_ready
	: >/tmp/pool
	neug feed --foreground --source=device:/dev/ttyACM0 --pool=/tmp/pool --max-rate=0 2>/tmp/f.err &
	pid=$!
	sleep 1
	usbip detach -p 0 >/dev/null 2>&1
	if wait_log /tmp/f.err 'waiting for'; then
		sig_end $pid HUP 129 "feed, board gone (detach), waiting for it"
	else
		fail "feed, board gone: it says it waits ($(tail -2 /tmp/f.err | tr '\n' ' '))"
		kill -9 $pid; wait $pid
	fi
	detach
}

for c in ${NG_CHECKS:-1 2 3 4 5 6 7 8 9 10 11 12}; do
	say "# check $c at $(cut -d' ' -f1 /proc/uptime) s"
	check$c
done
if grep -q . /tmp/emu.log 2>/dev/null; then
	grep -iE 'drop|error|fail' /tmp/emu.log | head -10 | sed 's/^/# emulate: /' >&3
fi
say "# guest finished at $(cut -d' ' -f1 /proc/uptime) s uptime"
