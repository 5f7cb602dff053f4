#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The one signal path (host/base/loop.h): SIGTERM, SIGINT and SIGHUP end
# generate, feed, egd and emulate within 1 s with 128 + the signal, in every
# state where they wait: on a silent device (a pty that sends nothing), on a
# device that went away (the pty closed: "waiting for ... to come back"), on
# a stalled FIFO as the source (a writer that writes nothing), and on a full
# output (a pipe or FIFO nobody reads; for egd, clients that do not read);
# and feed busy, writing into a file as fast as it can (a signal between a
# read and its write).
# generate -o leaves no file. Each run first waits for the state (a log
# line, an open fd, the bytes written), with a deadline, then signals.
# The guest (tests/guest/init.sh, check 12) does the same with the real
# kernel and a detached board.
set -u
. "$(dirname "$0")/../lib.sh"
ng_test_init signals
N=$PWD/build/neug
command -v python3 >/dev/null || { echo "SKIP: signals (python3 for the pty device)"; exit 0; }
now() { date +%s.%N; }

# A pty that plays a device, reachable as $1: silent (sends nothing) or
# gone (sends random bytes for a moment, then closes: the tty hangs up).
pty_dev() { # link silent|gone
	python3 - "$1" "$2" <<'PY' &
import os, pty, sys, time, signal
m, s = pty.openpty()
os.symlink(os.ttyname(s), sys.argv[1])
os.set_blocking(m, False)
if sys.argv[2] == "gone":
    # once the command has the tty open: 4 KiB, then the hang-up
    end = time.time() + 30
    while time.time() < end and not os.path.exists(sys.argv[1] + ".go"):
        time.sleep(0.02)
    time.sleep(0.1)
    try:
        os.write(m, os.urandom(4096))
    except BlockingIOError:
        pass
    time.sleep(0.1)
    os.close(m)
    os.close(s)
    time.sleep(60)
else:
    signal.pause()
PY
	pids+=($!)
	local i=0
	while [ $i -lt 100 ] && [ ! -L "$1" ]; do sleep 0.05; i=$((i + 1)); done
}

# Waits (10 s at most) for pid to be in the state: a pattern in its log,
# or an fd open on a path.
wait_log() { local i=0; while [ $i -lt 200 ]; do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.05; i=$((i + 1)); done; return 1; }
wait_fd() { # pid path
	local i=0 t
	t=$(readlink -f "$2")
	while [ $i -lt 200 ]; do
		for f in /proc/"$1"/fd/*; do [ "$(readlink "$f" 2>/dev/null)" = "$t" ] && return 0; done
		sleep 0.05; i=$((i + 1))
	done
	return 1
}
# Waits until pid has written at least n bytes and then nothing more for 0.3 s.
wait_stuck() { # pid bytes
	local i=0 a b
	while [ $i -lt 200 ]; do
		a=$(sed -n 's/^wchar: //p' /proc/"$1"/io 2>/dev/null)
		sleep 0.3
		b=$(sed -n 's/^wchar: //p' /proc/"$1"/io 2>/dev/null)
		[ -n "$a" ] && [ "$a" = "$b" ] && [ "$a" -ge "$2" ] && return 0
		i=$((i + 1))
	done
	return 1
}

# Sends sig to pid and checks it ends within 1 s with 128 + sig.
ends() { # label pid signal
	local label=$1 pid=$2 sig=$3 want t0 t1 rc i=0 ms
	case $sig in TERM) want=143 ;; INT) want=130 ;; HUP) want=129 ;; esac
	t0=$(now)
	kill -"$sig" "$pid"
	while [ $i -lt 100 ] && kill -0 "$pid" 2>/dev/null; do sleep 0.02; i=$((i + 1)); done
	t1=$(now)
	kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
	wait "$pid"
	rc=$?
	ms=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", (b - a) * 1000 }')
	if [ "$rc" = "$want" ] && [ "$ms" -le 1000 ]; then
		pass "$label: SIG$sig ends it in $ms ms with status $rc"
	else
		fail "$label: SIG$sig: status $rc (want $want) after $ms ms (at most 1000)"
	fi
}

# generate, stopped by a signal, left no output file (nor a temporary one)
no_output() { # label
	[ "$cmd" = generate ] || return 0
	local left
	left=$(ls "$tmp" | grep '^out\.bin')
	if [ -z "$left" ]; then pass "$1: no output file"; else fail "$1: left $left"; fi
}

# The commands that read a device or a file; feed and egd need an explicit
# credit for a device that does not identify itself (a pty), where that
# option exists.
credit=
"$N" feed --help 2>&1 | grep -q -- '--credit=' && credit=--credit=1
cmd_of() { # command source-spec output...
	case $1 in
	generate) echo "$N generate --source=$2 -n 100M -o $tmp/out.bin" ;;
	feed) echo "$N feed --foreground --source=$2 --pool=$tmp/pool --max-rate=0 $([ "${2%%:*}" = device ] && echo $credit)" ;;
	egd) echo "$N egd --listen=unix:$tmp/egd.sock --source=$2 $([ "${2%%:*}" = device ] && echo $credit)" ;;
	esac
}
sigs=(TERM INT HUP)

for cmd in generate feed egd; do
	for sig in "${sigs[@]}"; do
		: >"$tmp/pool"
		rm -f "$tmp/out.bin" "$tmp/egd.sock" "$tmp/dev" "$tmp/dev.go"

		# a silent device: the read waits for data
		pty_dev "$tmp/dev" silent
		$(cmd_of $cmd "device:$tmp/dev") 2>"$tmp/err" &
		pid=$!
		if wait_fd $pid "$tmp/dev"; then
			ends "$cmd, a silent device" $pid $sig
		else
			fail "$cmd, a silent device: it did not open it ($(tail -1 "$tmp/err"))"; kill -KILL $pid; wait $pid
		fi
		no_output "$cmd, a silent device, SIG$sig"
		kill "${pids[-1]}" 2>/dev/null; wait "${pids[-1]}" 2>/dev/null
		rm -f "$tmp/dev" "$tmp/dev.go" "$tmp/out.bin"

		# a device that went away: the read waits for it to come back
		pty_dev "$tmp/dev" gone
		$(cmd_of $cmd "device:$tmp/dev") 2>"$tmp/err" &
		pid=$!
		wait_fd $pid "$tmp/dev" && touch "$tmp/dev.go"
		if wait_log "$tmp/err" 'waiting for'; then
			ends "$cmd, a device gone, waiting for it to come back" $pid $sig
		else
			fail "$cmd, a device gone: no 'waiting for' ($(tail -2 "$tmp/err" | tr '\n' ' '))"; kill -KILL $pid; wait $pid
		fi
		no_output "$cmd, a device gone, SIG$sig"
		kill "${pids[-1]}" 2>/dev/null; wait "${pids[-1]}" 2>/dev/null
		rm -f "$tmp/dev" "$tmp/dev.go" "$tmp/out.bin" "$tmp/egd.sock"

		# a stalled FIFO as the source: open at both ends here, never written
		rm -f "$tmp/fifo"; mkfifo "$tmp/fifo"
		exec 7<>"$tmp/fifo"
		$(cmd_of $cmd "file:$tmp/fifo") 2>"$tmp/err" &
		pid=$!
		if wait_fd $pid "$tmp/fifo"; then
			ends "$cmd, a stalled FIFO as the source" $pid $sig
		else
			fail "$cmd, a stalled FIFO: it did not open it ($(tail -1 "$tmp/err"))"; kill -KILL $pid; wait $pid
		fi
		exec 7>&-
		no_output "$cmd, a stalled FIFO, SIG$sig"
		rm -f "$tmp/egd.sock"
	done
done

# Busy: feed writing into a file as fast as it can, so a signal lands
# between a read and its write (the write then never starts).
for sig in "${sigs[@]}"; do
	: >"$tmp/pool"
	"$N" feed --foreground --source=jitter --pool="$tmp/pool" --max-rate=0 2>"$tmp/err" &
	pid=$!
	i=0
	while [ $i -lt 200 ] && [ "$(stat -c %s "$tmp/pool")" -lt 65536 ]; do sleep 0.05; i=$((i + 1)); done
	if [ "$(stat -c %s "$tmp/pool")" -ge 65536 ]; then
		ends "feed, writing into a file as fast as it can" $pid $sig
	else
		fail "feed, writing into a file: no 64 KiB within 10 s ($(tail -1 "$tmp/err"))"; kill -KILL $pid; wait $pid
	fi
done

# A full output: generate into a pipe, feed into a FIFO as the pool, both
# read by nobody; egd with clients that ask and never read.
for sig in "${sigs[@]}"; do
	rm -f "$tmp/ofifo"; mkfifo "$tmp/ofifo"
	exec 8<>"$tmp/ofifo"
	"$N" generate --source="file:$V/adc.bin" --mode=raw >"$tmp/ofifo" 2>"$tmp/err" &
	pid=$!
	if wait_stuck $pid 65536; then
		ends "generate, a full output pipe" $pid $sig
	else
		fail "generate, a full output pipe: not stuck ($(tail -1 "$tmp/err"))"; kill -KILL $pid; wait $pid
	fi
	exec 8>&-
	rm -f "$tmp/ofifo"; mkfifo "$tmp/ofifo"
	exec 8<>"$tmp/ofifo"
	"$N" feed --foreground --source=jitter --pool="$tmp/ofifo" --max-rate=0 2>"$tmp/err" &
	pid=$!
	if wait_stuck $pid 32768; then # 512-byte writes: POLLOUT ends a little before 64 KiB
		ends "feed, a full FIFO as the pool" $pid $sig
	else
		fail "feed, a full FIFO as the pool: not stuck ($(tail -1 "$tmp/err"))"; kill -KILL $pid; wait $pid
	fi
	exec 8>&-
	rm -f "$tmp/egd.sock"
	"$N" egd --listen="unix:$tmp/egd.sock" --source=jitter 2>"$tmp/err" &
	pid=$!
	rm -f "$tmp/clients"
	if wait_log "$tmp/err" serving; then
		python3 - "$tmp/egd.sock" "$tmp/clients" <<'PY' &
import socket, sys, time
ss = []
for i in range(8):
    s = socket.socket(socket.AF_UNIX)
    s.connect(sys.argv[1])
    s.setblocking(False)
    try:
        s.send(b"\x02\xff" * 2000)
    except BlockingIOError:
        pass
    ss.append(s)
open(sys.argv[2], "w").write("8 clients\n")
time.sleep(60)
PY
		pids+=($!)
	fi
	if wait_log "$tmp/clients" clients; then
		ends "egd, clients that ask and never read" $pid $sig
		kill "${pids[-1]}" 2>/dev/null; wait "${pids[-1]}" 2>/dev/null
	else
		fail "egd, clients that do not read: not serving ($(tail -1 "$tmp/err"))"; kill -KILL $pid; wait $pid
	fi
done

# emulate: idle, and with a stalled FIFO as the source while a USB/IP
# client asks for data.
client=build/guest/usbip-client
for sig in "${sigs[@]}"; do
	port=$((20000 + RANDOM % 20000))
	rm -f "$tmp/fifo"; mkfifo "$tmp/fifo"
	exec 7<>"$tmp/fifo"
	"$N" emulate -v --usbip=127.0.0.1:$port --source="file:$tmp/fifo" 2>"$tmp/err" &
	pid=$!
	if wait_log "$tmp/err" serving; then
		if [ -x "$client" ]; then
			"$client" 127.0.0.1:$port 0 6400 30 >/dev/null 2>&1 &
			cpid=$!
			pids+=($cpid)
			state="a client connected, the source a stalled FIFO"
			wait_log "$tmp/err" 'connected' || state="$state (the client did not connect)"
		else
			state="idle (build/guest/usbip-client not built)"
		fi
		ends "emulate, $state" $pid $sig
	else
		fail "emulate: not serving ($(tail -1 "$tmp/err"))"; kill -KILL $pid; wait $pid
	fi
	exec 7>&-
	kill "${pids[-1]}" 2>/dev/null; wait "${pids[-1]}" 2>/dev/null
done
# Failures are the FAIL lines above; the last wait returns the killed client's status.
exit 0
