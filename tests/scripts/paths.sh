#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Every repository path named in the docs (README.md, doc/*.md, every
# README.md below) and in the sources' comments and text (*.c, *.h, *.S,
# *.sh, *.mk, Makefile, linker scripts) exists. A path is a word that starts
# with one of the top directories (core/, boot/, usb/, ..., debian/) and
# is not part of a longer path (/usr/share/doc/neug/..., $(B)/firmware/...).
# Not checked: patterns (followed by *, %, $, <, {), placeholders (a
# component or its last word in capitals, tests/NAME/check.sh,
# tests/unit/test_X.c, when no such file exists), and
# a module named without its extension (usb/neug_device: some
# usb/neug_device.* exists). tests/data/ is data, not scanned.
set -u
cd "$(dirname "$0")/../.."
command -v python3 >/dev/null || { echo "SKIP: paths: python3 missing (scripts/deps.sh check)"; exit 77; }
command -v git >/dev/null && git rev-parse --git-dir >/dev/null 2>&1 ||
	{ echo "SKIP: paths: not a git checkout (the file list is git's)"; exit 77; }
python3 - <<'PY'
import glob, os, re, subprocess
top = 'core|boot|usb|host|cli|assess|firmware|tests|doc|packaging|scripts|bench|tools|debian'
rx = re.compile(r'(?<![A-Za-z0-9_./$-])(?:' + top + r')/[A-Za-z0-9_.+/-]*')
files = subprocess.check_output(['git', 'ls-files'], text=True).split('\n')
scan = [f for f in files if f and not f.startswith('tests/data/') and os.path.isfile(f) and
        (re.search(r'(^|/)README\.md$', f) or (f.startswith('doc/') and f.endswith('.md')) or
         re.search(r'\.(c|h|S|sh|mk|ld|ld\.in)$|(^|/)Makefile$', f))]
bad, seen = [], 0
for f in scan:
    for i, line in enumerate(open(f, encoding='utf-8', errors='replace'), 1):
        for m in rx.finditer(line):
            nxt = line[m.end():m.end() + 1]
            if nxt and nxt in '*%$<{':
                continue                       # a pattern
            p = m.group(0).rstrip('.,:;-')
            seen += 1
            q = p.rstrip('/')
            if os.path.exists(q):
                continue
            if any(re.search(r'(^|[_-])[A-Z]{1,5}(\.\w+)?$', c) for c in q.split('/')[1:]):
                continue                       # a placeholder
            if glob.glob(glob.escape(q) + '.*'):
                continue                       # a module named without its extension
            bad.append(f'{f}:{i}: {p}')
for b in bad:
    print(f'FAIL: paths: {b} does not exist (fix the name, or the text)')
if not bad:
    print(f'PASS: paths: all {seen} repository paths named in {len(scan)} docs and sources exist')
PY
