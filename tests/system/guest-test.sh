#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs inside the Debian guest of tests/system/check.sh (systemd, udev, the
# Debian package, installed here first). Results: PASS:/FAIL:/SKIP:/# lines
# on /dev/ttyS1, ending with "# done". EGD: the host runs `neug egd`, QEMU's
# rng-egd backs this guest's virtio-rng; the package's socket-activated
# neug-egd runs here too. USB: `neug emulate` here, attached with usbip.
# Last, the package is removed and purged: nothing of it may be left.
set -u
exec 3>/dev/ttyS1
say() { echo "$*" >&3; echo "$*"; }
pass() { say "PASS: $*"; }
fail() { say "FAIL: $*"; }
skip() { say "SKIP: $*"; }
finish() { say "# done"; sync; }
trap finish EXIT
wait_for() { # seconds command...
	local n=$(( $1 * 10 )); shift
	while [ $n -gt 0 ]; do "$@" && return 0; sleep 0.1; n=$((n - 1)); done
	return 1
}
T=/usr/lib/neug-systest
say "# guest up at $(cut -d' ' -f1 /proc/uptime) s; kernel $(uname -r); $(systemctl is-system-running 2>&1)"
[ "$(cat /proc/1/comm)" = systemd ] && pass "booted with systemd as PID 1" || fail "PID 1 is $(cat /proc/1/comm)"

deb=$(ls $T/deb/neug_*.deb | head -1)
attach() {
	wait_for 60 sh -c 'usbip list -r 127.0.0.1 2>/dev/null | grep -q 1-1' || return 1
	usbip attach -r 127.0.0.1 -b 1-1
}
board_tty() { # the tty of the board attached over USB/IP (234b:0001)
	local d
	for d in /sys/class/tty/ttyACM*; do
		[ "$(cat "$d/device/../idVendor" 2>/dev/null)" = 234b ] && { basename "$d"; return 0; }
	done
	return 1
}

# --- a board plugged in before the package is installed ---
# The emulated board (neug emulate, from the package's binary unpacked
# aside: nothing is installed yet) attached over USB/IP: a tty without
# /dev/neug and without a feed, until the postinst's udevadm trigger.
modprobe vhci-hcd && pass "modprobe vhci-hcd" || fail "modprobe vhci-hcd"
ip link set lo up
ent0=$(cat /proc/sys/kernel/random/entropy_avail)
# The board's feed writes a metrics file (doc/system.md, "Metrics"): a
# runtime drop-in sets NEUG_FEED_METRICS, into the instance's RuntimeDirectory.
mkdir -p /run/systemd/system/neug-feed@.service.d
printf '[Service]\nEnvironment="NEUG_FEED_METRICS=--metrics=/run/neug-feed/%%i/neug.prom --metrics-interval=1"\n' \
	>/run/systemd/system/neug-feed@.service.d/metrics.conf
systemctl daemon-reload
mkdir -p /tmp/unpacked
dpkg-deb --fsys-tarfile "$deb" | tar -x -C /tmp/unpacked ./usr/bin/neug
/tmp/unpacked/usr/bin/neug emulate --source="${NG_EMU_SOURCE:-jitter}" >/tmp/emulate.log 2>&1 &
emu=$!
if attach; then pass "usbip attach -r 127.0.0.1 -b 1-1"; else
	fail "usbip attach (the rest needs the board): $(tail -3 /tmp/emulate.log | tr '\n' ' ')"
	exit 0
fi
if wait_for 30 board_tty >/dev/null; then
	pre_tty=$(board_tty)
	udevadm settle -t 30
	[ ! -e /dev/neug ] && ! systemctl -q is-active "neug-feed@$pre_tty.service" &&
		pass "before the install: the board is $pre_tty, no /dev/neug, no feed (no rule yet)" ||
		fail "before the install: /dev/neug $(ls -l /dev/neug 2>&1), neug-feed@$pre_tty $(systemctl is-active "neug-feed@$pre_tty.service")"
else
	fail "no ttyACM for the board after attach (the rest needs it)"
	exit 0
fi

# --- the package ---
if apt-get install -y "$deb" >/tmp/apt.log 2>&1 ||
	{ say "# apt-get install failed ($(tail -2 /tmp/apt.log | tr '\n' ' ')), dpkg -i"; dpkg -i "$deb" >>/tmp/apt.log 2>&1; }; then
	ver=$(dpkg-query -W -f '${Version}' neug)
	pass "apt-get install $(basename "$deb"): neug $ver ($(dpkg -L neug | grep -c .) paths)"
else
	fail "installing $(basename "$deb"): $(tail -3 /tmp/apt.log | tr '\n' ' ') (the rest needs it)"
	exit 0
fi
dpkg -L neug >/tmp/neug.files
if wait_for 30 test -e /dev/neug && wait_for 30 systemctl -q is-active "neug-feed@$pre_tty.service"; then
	pass "the board plugged in before the install: the postinst's udevadm trigger made /dev/neug -> $(basename "$(readlink -f /dev/neug)") and started neug-feed@$pre_tty"
else
	fail "the board plugged in before the install was not picked up: /dev/neug $(ls -l /dev/neug 2>&1), neug-feed@$pre_tty $(systemctl is-active "neug-feed@$pre_tty.service")"
fi
[ "$(command -v neug)" = /usr/bin/neug ] && [ "$(neug --version)" = "neug $ver" ] &&
	pass "/usr/bin/neug --version: neug $ver, the package's version" ||
	fail "neug is '$(command -v neug)', --version '$(neug --version 2>&1)', package $ver"
for f in /lib/udev/rules.d/70-neug.rules /lib/systemd/system/neug-feed@.service /lib/systemd/system/neug-egd.socket \
	/usr/share/bash-completion/completions/neug /usr/share/metainfo/org.example.neug.metainfo.xml \
	/usr/share/neug/prometheus/neug-rules.yml /etc/default/neug; do  # (no man pages: the guest excludes them)
	[ -f "$f" ] || fail "the package did not install $f"
done
[ "$(systemctl is-enabled neug-egd.socket 2>&1)" = disabled ] && [ "$(systemctl is-enabled neug-feed.service 2>&1)" = disabled ] &&
	pass "units installed and known to systemd, neug-egd.socket and neug-feed.service left disabled" ||
	fail "unit state after install: egd.socket $(systemctl is-enabled neug-egd.socket 2>&1), feed $(systemctl is-enabled neug-feed.service 2>&1)"

# The sandbox: systemd-analyze security's exposure of a loaded unit (at most
# MAX), and the running process (its uid, its effective capabilities).
exposure() { systemd-analyze security --no-pager "$1" 2>/dev/null | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p'; }
check_sandbox() { # unit max-exposure expected-CapEff
	local u=$1 max=$2 cap=$3 e pid uid ce
	e=$(exposure "$u")
	if [ -n "$e" ] && awk -v e="$e" -v m="$max" 'BEGIN { exit !(e <= m) }'; then
		pass "systemd-analyze security $u: exposure $e (at most $max)"
	else
		fail "systemd-analyze security $u: exposure '$e', more than $max"
	fi
	pid=$(systemctl show -p MainPID --value "$u")
	uid=$(awk '/^Uid:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
	ce=$(awk '/^CapEff:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
	if [ -n "$uid" ] && [ "$uid" != 0 ] && [ "$ce" = "$cap" ]; then
		pass "$u runs as uid $uid ($(ps -o user= -p "$pid")), effective capabilities $ce"
	else
		fail "$u (pid $pid): uid '$uid', CapEff '$ce' (want non-root, $cap)"
	fi
}

# --- EGD: virtio-rng backed by the host's neug egd ---
modprobe virtio_rng 2>/dev/null
if wait_for 10 grep -q virtio_rng /sys/class/misc/hw_random/rng_available 2>/dev/null; then
	cur=$(cat /sys/class/misc/hw_random/rng_current)
	if timeout 60 dd if=/dev/hwrng of=/tmp/hwrng.bin bs=512 count=32 iflag=fullblock 2>/dev/null &&
		[ "$(stat -c %s /tmp/hwrng.bin)" = 16384 ]; then
		distinct=$(od -An -v -tx1 /tmp/hwrng.bin | tr ' ' '\n' | grep -v '^$' | sort -u | wc -l)
		[ "$distinct" = 256 ] && pass "EGD: /dev/hwrng ($cur) gave 16384 bytes from the host's neug egd (all 256 byte values)" ||
			fail "EGD: /dev/hwrng data has only $distinct distinct byte values"
	else
		fail "EGD: reading 16384 bytes from /dev/hwrng ($cur)"
	fi
else
	fail "EGD: no virtio_rng in /sys/class/misc/hw_random/rng_available"
fi

# --- USB: the emulated board, attached over USB/IP (before the install) ---
if wait_for 30 test -e /dev/neug; then
	tty=$(basename "$(readlink -f /dev/neug)")
	pass "udev made /dev/neug -> $tty"
else
	fail "no /dev/neug after attach ($(ls /dev/ttyACM* 2>&1)) (the rest needs it)"
	exit 0
fi
udevadm info -q property -n "/dev/$tty" >/tmp/udev.txt 2>&1
grep -q '^ID_MM_DEVICE_IGNORE=1' /tmp/udev.txt && pass "udev: ID_MM_DEVICE_IGNORE=1 on $tty" ||
	fail "udev: no ID_MM_DEVICE_IGNORE on $tty"
grep -q "SYSTEMD_WANTS=.*neug-feed@$tty.service" /tmp/udev.txt && pass "udev: SYSTEMD_WANTS=neug-feed@$tty.service" ||
	fail "udev: SYSTEMD_WANTS missing: $(grep SYSTEMD /tmp/udev.txt)"
unit=neug-feed@$tty.service
if wait_for 30 systemctl -q is-active "$unit"; then pass "systemd started $unit"; else
	fail "$unit is $(systemctl is-active "$unit"): $(journalctl -b -u "$unit" --no-pager -n 5 | tr '\n' ' ')"
fi
if wait_for 60 sh -c "journalctl -b -u $unit --no-pager -o cat | grep -q 'started: source'"; then
	say "# $(journalctl -b -u "$unit" --no-pager -o cat | grep 'started: source' | head -1)"
	pass "journalctl -u $unit shows it running"
else
	fail "journalctl -u $unit: $(journalctl -b -u "$unit" --no-pager -o cat | tail -3 | tr '\n' ' ')"
fi
# The pool receives: feed's own counters (SIGUSR1 logs them).
sleep 3
systemctl kill -s USR1 "$unit"
if wait_for 20 sh -c "journalctl -b -u $unit --no-pager -o cat | grep -Eq 'status: wrote [1-9][0-9]* bytes, credited [1-9]'"; then
	line=$(journalctl -b -u "$unit" --no-pager -o cat | grep 'status: wrote' | tail -1)
	pass "the kernel pool receives entropy: $line"
else
	fail "no write counted by $unit: $(journalctl -b -u "$unit" --no-pager -o cat | tail -3 | tr '\n' ' ')"
fi
check_sandbox "$unit" 3.0 0000000000200000
# The metrics file: rewritten (another inode) every second from inside the
# sandbox, readable by others (0644), the board present with its serial and
# counters; the bytes written grow (one chunk per --interval at least).
mf=/run/neug-feed/$tty/neug.prom
if wait_for 20 test -s "$mf"; then
	i0=$(stat -c %i "$mf")
	b0=$(sed -n 's/^neug_feed_written_bytes_total{.*} //p' "$mf")
	wait_for 30 sh -c "[ \$(sed -n 's/^neug_feed_written_bytes_total{.*} //p' $mf) -gt $b0 ]"
	b1=$(sed -n 's/^neug_feed_written_bytes_total{.*} //p' "$mf")
	i1=$(stat -c %i "$mf")
	say "# $(grep -E '^neug_(info|device_present|samples_total|feed_written_bytes_total|last_output)' "$mf" | tr '\n' ' ')"
	if [ "$i1" != "$i0" ] && [ "$b1" -gt "$b0" ] && [ "$(stat -c %a "$mf")" = 644 ] &&
		grep -q "^neug_device_present{program=\"feed\",source=\"device:/dev/$tty\"} 1\$" "$mf" &&
		grep -q '^neug_info{.*serial="[^"]' "$mf" && grep -q '^neug_samples_total{' "$mf" &&
		[ "$(ls /run/neug-feed/$tty)" = neug.prom ]; then
		pass "$unit's metrics file $mf: rewritten while it runs (bytes written $b0 -> $b1), mode 0644, board present with its serial"
	else
		fail "metrics file: inode $i0 -> $i1, bytes $b0 -> $b1, mode $(stat -c %a "$mf"), dir: $(ls /run/neug-feed/$tty | tr '\n' ' ')"
	fi
else
	fail "no metrics file $mf from $unit: $(journalctl -b -u "$unit" --no-pager -o cat | tail -3 | tr '\n' ' ')"
fi
rm -r /run/systemd/system/neug-feed@.service.d
systemctl daemon-reload
prio=$(journalctl -b -u "$unit" --no-pager -o json | grep -m1 '"MESSAGE":"started' | grep -o '"PRIORITY":"[0-9]"')
[ "$prio" = '"PRIORITY":"5"' ] && pass "the journal got feed's level prefix (<5> notice: $prio)" ||
	fail "feed's start message priority: '$prio'"
say "# entropy_avail $ent0 before, $(cat /proc/sys/kernel/random/entropy_avail) now (kernel 6.x caps it at 256: not a measure here)"

# neug info on the emulated board
if neug info /dev/neug >/tmp/info.txt 2>&1; then
	grep -q 'health *healthy\|health *starting' /tmp/info.txt && pass "neug info /dev/neug: $(grep -m1 '^health' /tmp/info.txt)" ||
		fail "neug info: $(grep '^health' /tmp/info.txt)"
	sed 's/^/# /' /tmp/info.txt >&3
else
	fail "neug info /dev/neug: $(cat /tmp/info.txt)"
fi
drv=$(basename "$(readlink -f "/sys/class/tty/$tty/device/driver")")
[ "$drv" = cdc_acm ] && systemctl -q is-active "$unit" &&
	pass "after neug info: $tty still bound to cdc_acm and $unit still running (nothing claimed or detached)" ||
	fail "after neug info: driver '$drv', $unit $(systemctl is-active "$unit")"
neug info --prometheus /dev/neug >/tmp/info.prom 2>&1 && grep -q '^neug_info{program="info",source="device:/dev/neug",serial="[^"]' /tmp/info.prom &&
	grep -q '^neug_samples_total{program="info",source="device:/dev/neug"} [1-9]' /tmp/info.prom &&
	pass "neug info --prometheus /dev/neug: $(grep -c '^# TYPE' /tmp/info.prom) families, the serial, samples counted" ||
	fail "neug info --prometheus: $(head -5 /tmp/info.prom | tr '\n' ' ')"
neug info --json >/tmp/info.json 2>&1 && grep -q '"vid":"234b"' /tmp/info.json && grep -q '"extended":true' /tmp/info.json &&
	pass "neug info --json (first NeuG found): vid 234b, raw-sample state present" || fail "neug info --json: $(cat /tmp/info.json)"

# The package's EGD server, socket-activated: 64 bytes for an EGD blocking
# read (command 2), served by the sandboxed neug-egd.service.
systemctl start neug-egd.socket
if [ -S /run/neug-egd.sock ]; then
	# shut-none: the socket stays open both ways until the reply (a
	# half-close is answered too: tests/unit/test_egd.c); readbytes: done at 64
	n=$(printf '\002\100' | timeout 300 socat -t 240 - UNIX-CONNECT:/run/neug-egd.sock,shut-none,readbytes=64 | wc -c)
	[ "$n" = 64 ] && pass "neug-egd.socket: an EGD read of 64 bytes got $n bytes from neug-egd.service" ||
		fail "neug-egd: EGD read got $n bytes: $(journalctl -b -u neug-egd.service --no-pager -o cat | tail -3 | tr '\n' ' ')"
	check_sandbox neug-egd.service 2.0 0000000000000000
else
	fail "neug-egd.socket: no /run/neug-egd.sock ($(systemctl is-active neug-egd.socket))"
fi
# The host-source feed (jitter), sandboxed with only the pseudo-devices.
systemctl start neug-feed.service
if wait_for 120 sh -c "journalctl -b -u neug-feed.service --no-pager -o cat | grep -q 'started: source'"; then
	sleep 2
	systemctl kill -s USR1 neug-feed.service
	if wait_for 30 sh -c "journalctl -b -u neug-feed.service --no-pager -o cat | grep -Eq 'status: wrote [1-9][0-9]* bytes, credited [1-9]'"; then
		pass "neug-feed.service (jitter): $(journalctl -b -u neug-feed.service --no-pager -o cat | grep 'status: wrote' | tail -1)"
	else
		fail "neug-feed.service wrote nothing: $(journalctl -b -u neug-feed.service --no-pager -o cat | tail -3 | tr '\n' ' ')"
	fi
	check_sandbox neug-feed.service 3.0 0000000000200000
else
	fail "neug-feed.service did not start: $(journalctl -b -u neug-feed.service --no-pager -o cat | tail -3 | tr '\n' ' ')"
fi

# Type=notify: the unit is active only after READY=1 (the self-tests and a
# first chunk in the pool), with the feed's STATUS=. The watchdog, with a
# drop-in that shortens it (WatchdogSec=4, TimeoutStopSec=3; the unit says
# 30): a feed that turns keeps it fed; one that hangs (SIGSTOP) is killed
# and restarted (Restart=on-failure).
st=$(systemctl show -p StatusText --value neug-feed.service)
[ "$(systemctl show -p Type --value neug-feed.service)" = notify ] && case $st in "crediting from jitter"*) true ;; *) false ;; esac &&
	pass "neug-feed.service is Type=notify, active, status '$st'" ||
	fail "neug-feed.service: Type $(systemctl show -p Type --value neug-feed.service), status '$st'"
mkdir -p /run/systemd/system/neug-feed.service.d
printf '[Service]\nWatchdogSec=4\nTimeoutStopSec=3\nRestartSec=1\n' >/run/systemd/system/neug-feed.service.d/wd.conf
systemctl daemon-reload
systemctl restart neug-feed.service
wait_for 60 systemctl -q is-active neug-feed.service
n0=$(systemctl show -p NRestarts --value neug-feed.service)
pid0=$(systemctl show -p MainPID --value neug-feed.service)
sleep 10 # 2.5 watchdog periods: nothing may happen to a feed that turns
n1=$(systemctl show -p NRestarts --value neug-feed.service)
pid1=$(systemctl show -p MainPID --value neug-feed.service)
[ "$n1" = "$n0" ] && [ "$pid1" = "$pid0" ] && pass "watchdog (4 s): a running feed kept it fed for 10 s (pid $pid0)" ||
	fail "watchdog: a running feed was restarted (restarts $n0 -> $n1, pid $pid0 -> $pid1)"
kill -STOP "$pid0"
if wait_for 40 sh -c "[ \$(systemctl show -p NRestarts --value neug-feed.service) -gt $n0 ] && systemctl -q is-active neug-feed.service"; then
	pass "watchdog: a hung feed (SIGSTOP) was killed and restarted: $(journalctl -b -u neug-feed.service --no-pager -o cat | grep -i 'watchdog' | tail -1)"
else
	fail "watchdog: a hung feed: restarts $(systemctl show -p NRestarts --value neug-feed.service), $(systemctl is-active neug-feed.service): $(journalctl -b -u neug-feed.service --no-pager -o cat | tail -3 | tr '\n' ' ')"
fi
rm -rf /run/systemd/system/neug-feed.service.d
systemctl daemon-reload

# The mode by line coding on the real cdc_acm: parity odd = crc32, even =
# raw, none = conditioned, as the board reports it (GET_INFO 0). The feed
# stopped first: one reader per board.
systemctl stop "$unit"
for m in "crc32 1" "raw 2" "conditioned 0"; do
	set -- $m
	if neug generate --source=device:/dev/neug --mode=$1 -n 4096 -o /tmp/mode.bin 2>/tmp/mode.log &&
		[ "$(stat -c %s /tmp/mode.bin)" = 4096 ] && neug info --json /dev/neug | grep -q "\"mode\":$2,"; then
		pass "--mode=$1 on /dev/neug: 4096 bytes, the board reports mode $2 (parity set through cdc_acm)"
	else
		fail "--mode=$1: $(tr '\n' ' ' </tmp/mode.log) info: $(neug info --json /dev/neug 2>&1 | grep -o '"mode":[0-9]*')"
	fi
done
# rngd and rngtest on /dev/neug. An ideal source fails a FIPS 140-2 block
# about once in 1,250 (the tests' false-alarm rate), so 20 blocks see one
# failure in about 1.6% of runs and two in about 0.01%: at most one may fail.
timeout 300 rngtest -c 20 </dev/neug >/tmp/rngtest.txt 2>&1
ok_blocks=$(sed -n 's/^rngtest: FIPS 140-2 successes: \([0-9]*\)$/\1/p' /tmp/rngtest.txt)
bad_blocks=$(sed -n 's/^rngtest: FIPS 140-2 failures: \([0-9]*\)$/\1/p' /tmp/rngtest.txt)
if [ -n "$ok_blocks" ] && [ -n "$bad_blocks" ] && [ $((ok_blocks + bad_blocks)) = 20 ] && [ "$bad_blocks" -le 1 ]; then
	pass "rngtest -c 20 < /dev/neug: $ok_blocks successes, $bad_blocks failures (at most 1 of 20 expected)"
else
	fail "rngtest < /dev/neug: $(grep -E 'successes|failures' /tmp/rngtest.txt | tr '\n' ' ')"
fi
rngd -f -r /dev/neug >/tmp/rngd.log 2>&1 &
rngd_pid=$!
sleep 5
if kill -0 $rngd_pid 2>/dev/null; then
	pass "rngd -f -r /dev/neug runs ($(head -2 /tmp/rngd.log | tr '\n' ' '))"
	kill $rngd_pid; wait $rngd_pid 2>/dev/null
else
	fail "rngd -r /dev/neug exited: $(tail -3 /tmp/rngd.log | tr '\n' ' ')"
fi

# Detach and re-attach: a reader through it (neug generate --source=device),
# and the feed unit stopped by systemd, then started again by udev.
systemctl start "$unit"
neug generate --source=device -n 1G >/tmp/replug.bin 2>/tmp/replug.log &
gen=$!
wait_for 60 test -s /tmp/replug.bin
usbip detach -p 0 >/dev/null 2>&1 || usbip detach -p 8 >/dev/null 2>&1
if wait_for 20 sh -c '! test -e /dev/neug'; then pass "usbip detach: /dev/neug is gone"; else fail "usbip detach: /dev/neug still there"; fi
wait_for 20 sh -c "! systemctl -q is-active $unit" && pass "$unit stopped with its device" ||
	fail "$unit still $(systemctl is-active "$unit") after detach"
sleep 1
t_re=$(date '+%Y-%m-%d %H:%M:%S')
sleep 1
if attach && wait_for 30 test -e /dev/neug; then pass "re-attached: /dev/neug is back"; else fail "re-attach"; fi
tty2=$(basename "$(readlink -f /dev/neug)")
unit2=neug-feed@$tty2.service
if wait_for 30 systemctl -q is-active "$unit2"; then
	if wait_for 60 sh -c "journalctl -b -u $unit2 --since '$t_re' --no-pager -o cat | grep -q 'started: source'"; then
		pass "udev started $unit2 again, and it logged its start"
	else
		fail "$unit2 active, but no 'started' in the journal since the re-attach"
	fi
else
	fail "$unit2 not started again after re-attach"
fi
# the reader goes on past the detach: 4096 more bytes after it is back
sz0=$(stat -c %s /tmp/replug.bin)
if wait_for 120 sh -c "[ \$(stat -c %s /tmp/replug.bin) -ge $((sz0 + 4096)) ]" &&
	grep -q 'unplugged' /tmp/replug.log && grep -q 'is back' /tmp/replug.log; then
	pass "neug generate --source=device survived the detach: $sz0 bytes before, $(stat -c %s /tmp/replug.bin) now; logged: $(grep -m1 unplugged /tmp/replug.log | cut -c1-120)"
else
	fail "generate across the detach: $sz0 -> $(stat -c %s /tmp/replug.bin) bytes, log: $(tr '\n' ' ' </tmp/replug.log | cut -c1-300)"
fi
kill $gen 2>/dev/null; wait $gen 2>/dev/null
journalctl -b -u 'neug-feed@*' --no-pager -o short-monotonic | tail -12 | sed 's/^/# journal: /' >&3

# A board whose noise source is dead (stuck.bin): it latches a persistent
# failure and sends nothing; the feed sees it through GET_INFO, logs it,
# stops crediting and exits 4 after its grace period; systemd does not
# restart it (RestartPreventExitStatus=4).
echo 'NEUG_FEED_ARGS=--grace=2' >/etc/default/neug
usbip detach -p 0 >/dev/null 2>&1 || usbip detach -p 8 >/dev/null 2>&1
wait_for 20 sh -c '! test -e /dev/neug'
kill $emu 2>/dev/null; wait $emu 2>/dev/null
neug emulate --source=file:$T/vectors/stuck.bin >/tmp/emulate2.log 2>&1 &
emu=$!
t_bad=$(date '+%Y-%m-%d %H:%M:%S')
sleep 1
if attach && wait_for 30 test -e /dev/neug; then
	tty3=$(basename "$(readlink -f /dev/neug)")
	unit3=neug-feed@$tty3.service
	if wait_for 90 sh -c "journalctl -b -u $unit3 --since '$t_bad' --no-pager -o cat | grep -q 'persistent health failure'" &&
		wait_for 30 sh -c "systemctl show -p ExecMainStatus --value $unit3 | grep -qx 4"; then
		pass "dead noise source: $unit3 logged '$(journalctl -b -u "$unit3" --since "$t_bad" --no-pager -o cat | grep -m1 'persistent health failure' | cut -c1-150)' and exited 4"
		sleep 7
		st=$(systemctl is-active "$unit3")
		[ "$st" != active ] && [ "$st" != activating ] && pass "$unit3 not restarted after status 4 ($st)" ||
			fail "$unit3 restarted after status 4 ($st)"
	else
		fail "dead noise source: $unit3 $(systemctl is-active "$unit3"), status $(systemctl show -p ExecMainStatus --value "$unit3"): $(journalctl -b -u "$unit3" --since "$t_bad" --no-pager -o cat | tail -3 | tr '\n' ' ')"
	fi
	neug info /dev/neug >/tmp/info2.txt 2>&1
	grep -q '^health *persistent failure' /tmp/info2.txt && pass "neug info on it: $(grep -m1 '^health' /tmp/info2.txt | sed 's/  */ /g')" ||
		fail "neug info on the dead board: $(grep '^health' /tmp/info2.txt)"
else
	fail "attach the board with a dead noise source"
fi
kill $emu 2>/dev/null
wait $emu 2>/dev/null

# --- remove and purge ---
# A good board attached again (its feed running), neug-feed.service and
# neug-egd.socket active: the package's scripts must stop them all.
usbip detach -p 0 >/dev/null 2>&1 || usbip detach -p 8 >/dev/null 2>&1
wait_for 20 sh -c '! test -e /dev/neug'
neug emulate --source=jitter >/tmp/emulate3.log 2>&1 &
emu=$!
if attach && wait_for 30 test -e /dev/neug && wait_for 30 sh -c "systemctl -q is-active neug-feed@\$(basename \$(readlink -f /dev/neug)).service"; then
	say "# before removal: $(systemctl list-units --no-legend --plain 'neug*' | awk '{ print $1 "=" $3 }' | tr '\n' ' ')"
else
	say "# before removal: the board's feed did not start again"
fi
leftover_units() { systemctl list-units --all --no-legend --plain 'neug*' | awk '$1 != "neug-systest.service" && ($3 == "active" || $3 == "activating" || $3 == "reloading") { print $1 }'; }
if apt-get remove -y neug >/tmp/remove.log 2>&1; then pass "apt-get remove neug"; else fail "apt-get remove neug: $(tail -3 /tmp/remove.log | tr '\n' ' ')"; fi
[ -z "$(leftover_units)" ] && pass "after remove: no neug unit active (the board's feed, neug-feed.service and neug-egd.socket stopped)" ||
	fail "after remove: units still active: $(leftover_units | tr '\n' ' ')"
# the emulated board (the test's, running the deleted binary) goes too
usbip detach -p 0 >/dev/null 2>&1 || usbip detach -p 8 >/dev/null 2>&1
kill $emu 2>/dev/null; wait $emu 2>/dev/null
[ -z "$(pgrep -x neug)" ] && pass "after remove: no neug process" || fail "after remove: processes $(pgrep -a -x neug | tr '\n' ' ')"
[ -z "$(systemctl list-unit-files --no-legend 'neug*' | grep -v neug-systest)" ] &&
	pass "after remove: systemd knows no neug unit file" || fail "after remove: $(systemctl list-unit-files --no-legend 'neug*' | tr '\n' ' ')"
left=$(grep -v '^/etc/default/neug$' /tmp/neug.files | while read -r f; do [ -e "$f" ] && [ ! -d "$f" ] && echo "$f"; done)
[ -z "$left" ] && [ -f /etc/default/neug ] && dpkg -l neug 2>/dev/null | grep -q '^rc' &&
	pass "after remove: none of the package's $(grep -c . /tmp/neug.files) paths but its conffile /etc/default/neug (state rc)" ||
	fail "after remove: left $(echo $left) ; conffile $(ls /etc/default/neug 2>&1); $(dpkg -l neug 2>&1 | tail -1)"
if apt-get purge -y neug >/tmp/purge.log 2>&1; then pass "apt-get purge neug"; else fail "apt-get purge neug: $(tail -3 /tmp/purge.log | tr '\n' ' ')"; fi
left=$(while read -r f; do [ -e "$f" ] && [ ! -d "$f" ] && echo "$f"; done </tmp/neug.files)
[ -n "$(dpkg-query -W -f '${Status}' neug 2>/dev/null | grep -v 'not-installed')" ] && left="$left dpkg:$(dpkg-query -W -f '${Status}' neug)"
# anything named after us anywhere (the test's own files aside), dpkg's and
# deb-systemd-helper's records of the package
left="$left $(find / -xdev \( -path /proc -o -path /sys -o -path /tmp -o -path $T -o -path /var/log/journal \
	-o -name 'neug-systest.service' \) -prune -o -name '*neug*' -print 2>/dev/null | tr '\n' ' ')"
left="$left $(find /run -name '*neug*' -not -path '/run/systemd/*' -not -path '/run/udev/*' 2>/dev/null | tr '\n' ' ')"
left="$left $(grep -rl neug /var/lib/systemd/deb-systemd-helper-enabled /var/lib/systemd/deb-systemd-helper-masked 2>/dev/null | tr '\n' ' ')"
left=$(echo $left)
[ -z "$left" ] && [ -z "$(leftover_units)" ] &&
	pass "after purge: no file, unit, rule, conffile or dpkg record of neug left" ||
	fail "after purge: left behind: $left $(leftover_units | tr '\n' ' ')"

# --- upgrade: the services that run keep running, on the new binary ---
# The previous package (check.sh: this package repacked as VERSION~prev, its
# neug one byte longer, so that the two binaries differ) installed, the
# board's feed, neug-feed.service and the socket-activated egd running;
# then this package over it. Every one must run again, as a new process
# whose /proc/PID/exe is the new /usr/bin/neug (not "(deleted)", the new
# file's checksum), and the egd socket must serve.
prev=$(ls $T/deb-prev/neug_*.deb 2>/dev/null | head -1)
if [ -z "$prev" ]; then
	skip "upgrade: no previous package in $T/deb-prev"
	exit 0
fi
if apt-get install -y "$prev" >/tmp/apt-prev.log 2>&1; then
	pass "upgrade: apt-get install $(basename "$prev"): neug $(dpkg-query -W -f '${Version}' neug)"
else
	fail "upgrade: installing $(basename "$prev"): $(tail -3 /tmp/apt-prev.log | tr '\n' ' ')"
	exit 0
fi
neug emulate --source=jitter >/tmp/emulate4.log 2>&1 &
emu=$!
attach >/dev/null 2>&1
if wait_for 30 test -e /dev/neug; then
	tty4=$(basename "$(readlink -f /dev/neug)")
else
	fail "upgrade: no /dev/neug for the board ($(tail -2 /tmp/emulate4.log | tr '\n' ' '))"
	exit 0
fi
systemctl start neug-feed.service neug-egd.socket
egd_read() { # bytes of an EGD blocking read (command 2) of 32 bytes on /run/neug-egd.sock
	printf '\002\040' | timeout 300 socat -t 240 - UNIX-CONNECT:/run/neug-egd.sock,shut-none,readbytes=32 2>/dev/null | wc -c
}
n0=$(egd_read)
upgrade_units="neug-feed@$tty4.service neug-feed.service neug-egd.service"
main_pid() { systemctl show -p MainPID --value "$1"; }
running() { # unit: active, with a main process
	systemctl -q is-active "$1" && [ "$(main_pid "$1")" -gt 0 ] 2>/dev/null
}
declare -A old_pid
ok=1
for u in $upgrade_units; do
	if wait_for 60 running "$u"; then old_pid[$u]=$(main_pid "$u"); else ok=0; fi
done
sum_prev=$(sha256sum /usr/bin/neug | cut -d' ' -f1)
if [ $ok = 1 ] && [ "$n0" = 32 ]; then
	pass "upgrade: before, running on $(dpkg-query -W -f '${Version}' neug): $(for u in $upgrade_units; do printf '%s (pid %s) ' "$u" "${old_pid[$u]}"; done)and egd served 32 bytes"
else
	fail "upgrade: before: $(for u in $upgrade_units; do printf '%s %s; ' "$u" "$(systemctl is-active "$u")"; done) egd read $n0 bytes"
fi
if apt-get install -y "$deb" >/tmp/apt-up.log 2>&1 && [ "$(dpkg-query -W -f '${Version}' neug)" = "$ver" ]; then
	pass "upgrade: apt-get install $(basename "$deb") over it: neug $ver"
else
	fail "upgrade: apt-get install $(basename "$deb"): $(tail -3 /tmp/apt-up.log | tr '\n' ' ')"
fi
sum_new=$(sha256sum /usr/bin/neug | cut -d' ' -f1)
[ "$sum_new" != "$sum_prev" ] || fail "upgrade: the previous package's neug is the same file as this one's (the test cannot tell them apart)"
new_binary() { # unit old-pid: a new main process running the new /usr/bin/neug
	local p
	p=$(main_pid "$1")
	[ "$p" -gt 0 ] 2>/dev/null && [ "$p" != "$2" ] && systemctl -q is-active "$1" &&
		[ "$(readlink "/proc/$p/exe")" = /usr/bin/neug ] &&
		[ "$(sha256sum "/proc/$p/exe" 2>/dev/null | cut -d' ' -f1)" = "$sum_new" ]
}
for u in "neug-feed@$tty4.service" neug-feed.service; do
	if wait_for 60 new_binary "$u" "${old_pid[$u]:-0}"; then
		p=$(main_pid "$u")
		pass "upgrade: $u restarted (pid ${old_pid[$u]} -> $p), /proc/$p/exe is the new /usr/bin/neug"
	else
		p=$(main_pid "$u")
		fail "upgrade: $u $(systemctl is-active "$u"), pid ${old_pid[$u]} -> $p, exe $(readlink "/proc/$p/exe" 2>&1)"
	fi
done
# egd: the socket listens again, a request is served, by a new process on
# the new binary (restarted, or started anew by the request).
n1=$(egd_read)
u=neug-egd.service
if systemctl -q is-active neug-egd.socket && [ "$n1" = 32 ] && wait_for 30 new_binary $u "${old_pid[$u]:-0}"; then
	p=$(main_pid $u)
	pass "upgrade: neug-egd.socket active, 32 bytes served, $u pid ${old_pid[$u]} -> $p on the new /usr/bin/neug"
else
	p=$(main_pid $u)
	fail "upgrade: neug-egd.socket $(systemctl is-active neug-egd.socket), read $n1 bytes, $u $(systemctl is-active $u) pid ${old_pid[$u]} -> $p, exe $(readlink "/proc/$p/exe" 2>&1)"
fi
old=$(for u in $upgrade_units; do kill -0 "${old_pid[$u]:-0}" 2>/dev/null && echo "${old_pid[$u]}"; done)
deleted=$(for e in /proc/[0-9]*/exe; do [ "$(readlink "$e" 2>/dev/null)" = "/usr/bin/neug (deleted)" ] && echo "${e%/exe}"; done |
	while read -r d; do [ "${d#/proc/}" != "$emu" ] && echo "${d#/proc/}"; done)
[ -z "$old" ] && [ -z "$deleted" ] && pass "upgrade: no process of the previous package left (the test's emulated board aside)" ||
	fail "upgrade: old processes still running: $old $deleted"
grep -iE 'warning|error' /tmp/apt-up.log | grep -v 'debconf' | head -3 | sed 's/^/# apt: /' >&3
usbip detach -p 0 >/dev/null 2>&1 || usbip detach -p 8 >/dev/null 2>&1
kill $emu 2>/dev/null
wait $emu 2>/dev/null
apt-get purge -y neug >/tmp/purge2.log 2>&1 || fail "upgrade: apt-get purge neug: $(tail -2 /tmp/purge2.log | tr '\n' ' ')"
