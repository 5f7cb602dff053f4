#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# neug generate's progress line: on a terminal (stderr on a pty, python3's
# pty module) it shows bytes, rate and time left, rewritten in place and
# erased at the end; with stderr not a terminal nothing is shown unless
# --progress forces it; --no-progress silences the terminal. The source is a
# FIFO fed 16 KiB at a time until the line has appeared (a deadline, no
# sleep that must be long enough), so the run lasts as long as needed.
set -u
. "$(dirname "$0")/../lib.sh"
ng_test_init generate-progress
N=$PWD/build/neug

# drive TTY(1|0) ARGS...: runs generate -n 4M raw from a FIFO with stderr on a
# pty (TTY=1) or a file (TTY=0); feeds the FIFO until a progress line shows
# (at most 20 s) or, when none is expected, for 1.5 s past the first second;
# prints the exit status, then the stderr bytes as Python's repr.
drive() {
	python3 - "$N" "$tmp" "$V/adc.bin" "$@" <<'PY'
import os, pty, subprocess, sys, time
neug, tmp, adc, tty = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
args = sys.argv[5:]
fifo = os.path.join(tmp, "src.fifo")
if os.path.exists(fifo):
    os.unlink(fifo)
os.mkfifo(fifo)
total = 4 << 20
cmd = [neug, "generate", "--source=file:" + fifo, "--mode=raw", "-n", str(total),
       "-o", os.path.join(tmp, "out.bin")] + args
if tty:
    m, s = pty.openpty()
    p = subprocess.Popen(cmd, stderr=s)
    os.close(s)
    os.set_blocking(m, False)
else:
    errf = open(os.path.join(tmp, "err.txt"), "wb")
    p = subprocess.Popen(cmd, stderr=errf)
w = open(fifo, "wb")
data = open(adc, "rb").read()
data = (data * (total // len(data) + 2))[:total]
err = b""
off = 0
t0 = time.monotonic()
want_line = "--progress" in args or (tty and "--no-progress" not in args)
def drain():
    global err
    if tty:
        try:
            while True:
                b = os.read(m, 4096)
                if not b:
                    break
                err += b
        except (BlockingIOError, OSError):
            pass
    else:
        err = open(os.path.join(tmp, "err.txt"), "rb").read()
while off < total:
    drain()
    if want_line and b"left" in err:
        break
    if not want_line and time.monotonic() - t0 > 2.5:
        break
    if time.monotonic() - t0 > 20:
        break
    w.write(data[off:off + 16384]); w.flush()
    off += 16384
    time.sleep(0.05)   # pacing only: the loop waits for the line, not for time
w.write(data[off:]); w.close()
rc = p.wait(timeout=60)
drain()
if tty:
    # read what is left until EOF (EIO once the child has gone)
    os.set_blocking(m, True)
    drain()
print(rc)
print(repr(err))
PY
}

out=$(drive 1); rc=$(head -1 <<<"$out"); err=$(tail -1 <<<"$out")
if [ "$rc" = 0 ] && grep -q '\\rneug generate: [0-9.]* [KM]iB of 4.00 MiB ([0-9]*%), [0-9.]* [KM]*i*B/s, [0-9]*:[0-9][0-9]:[0-9][0-9] left' <<<"$err" &&
	grep -q '\\r  *\\r.$' <<<"$err" && ! grep -q '\\x1b' <<<"$err"; then
	pass "stderr a terminal: bytes of the total, percent, rate and time left, rewritten in place, erased at the end"
else
	fail "progress on a terminal: rc $rc, stderr $err"
fi
cmp -s "$tmp/out.bin" <(for _ in $(seq 700); do cat "$V/adc.bin"; done | head -c $((4 << 20))) &&
	pass "the output is unchanged by the progress line (4 MiB, raw)" || fail "the output differs"

out=$(drive 1 --no-progress); rc=$(head -1 <<<"$out"); err=$(tail -1 <<<"$out")
[ "$rc" = 0 ] && [ "$err" = "b''" ] && pass "--no-progress on a terminal: nothing on stderr" ||
	fail "--no-progress: rc $rc, stderr $err"

out=$(drive 0); rc=$(head -1 <<<"$out")
[ "$rc" = 0 ] && [ ! -s "$tmp/err.txt" ] && pass "stderr not a terminal: nothing on stderr over 2.5 s of a 4 MiB run" ||
	fail "off a terminal: rc $rc, stderr $(head -c 300 "$tmp/err.txt")"

out=$(drive 0 --progress); rc=$(head -1 <<<"$out")
[ "$rc" = 0 ] && grep -q '^neug generate: .* of 4.00 MiB (.*%), .*/s, .* left$' "$tmp/err.txt" && ! grep -q $'\r' "$tmp/err.txt" &&
	pass "--progress off a terminal: one plain line per update ($(grep -c left "$tmp/err.txt") lines)" ||
	fail "--progress to a file: rc $rc, stderr $(head -c 300 "$tmp/err.txt")"
