#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# A fake device on a pty, for tests/scripts/fail-closed.sh: LINK points at
# the pty's slave (like /dev/neug). It writes nothing until the reader has
# set the tty up (ECHO cleared: cfmakeraw), then streams PATTERN until it is
# killed, the reader goes away (EIO) or 60 s pass:
#   zeros            zero bytes
#   good             bytes from os.urandom
#   good-then-zero   GOOD bytes from os.urandom (argument 3), then zeros
# The good bytes it wrote are appended to SENT (argument 4), so a test can
# check that what came out was sent before the failure.
# It prints "ready" once LINK exists. No sleep decides anything: the wait for
# the reader is a poll of the tty's flags, with a deadline.
import os, pty, sys, termios, time

pattern, link = sys.argv[1], sys.argv[2]
good = int(sys.argv[3]) if len(sys.argv) > 3 else 0
sent_path = sys.argv[4] if len(sys.argv) > 4 else None
m, s = pty.openpty()
name = os.ttyname(s)
os.close(s)  # the slave stays available while the master is open
try:
    os.unlink(link)
except FileNotFoundError:
    pass
os.symlink(name, link)
print("ready", flush=True)
deadline = time.monotonic() + 60
while time.monotonic() < deadline:
    if not termios.tcgetattr(m)[3] & termios.ECHO:
        break
    time.sleep(0.01)
sent = open(sent_path, "ab") if sent_path else None
n = 0
try:
    while time.monotonic() < deadline:
        if pattern == "zeros" or (pattern == "good-then-zero" and n >= good):
            b = bytes(4096)
        else:
            k = 4096 if pattern == "good" else min(4096, good - n)
            b = os.urandom(k)
            if sent:
                sent.write(b)
                sent.flush()
        off = 0
        while off < len(b):
            off += os.write(m, b[off:])
        n += len(b)
except OSError:
    pass
