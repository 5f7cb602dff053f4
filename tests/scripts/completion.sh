#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# packaging/bash-completion/neug, run as bash runs it (bash-completion's
# _init_completion, COMP_WORDS/COMP_CWORD, the _neug function): it offers
# every command `neug --help` lists, and for each command every option its
# `--help` prints (each --long word anywhere in the text, and the short
# options that begin an option line), so that a new option cannot be left
# out of it; and a few values (--mode=, --source=, the ttys of info).
set -u
cd "$(dirname "$0")/../.."
bc=/usr/share/bash-completion/bash_completion
[ -r "$bc" ] || { echo "SKIP: completion: bash-completion not installed"; exit 0; }
[ -x build/neug ] || { echo "FAIL: completion: build/neug missing (make)"; exit 1; }
exec bash --norc --noprofile -c '
set -u
source '"$bc"' >/dev/null 2>&1
source packaging/bash-completion/neug
complete -p neug >/dev/null || { echo "FAIL: completion: the file does not register _neug for neug"; exit 1; }
# prints the words offered for the command line "$@" (the last word: the one completed)
offer() {
	COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
	COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_neug neug "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}" 2>/dev/null
	printf "%s\n" "${COMPREPLY[@]}"
}
cmds=$(build/neug --help | sed -n "s/^  \([a-z][a-z]*\)  .*/\1/p")
[ -n "$cmds" ] || { echo "FAIL: completion: no command in neug --help"; exit 1; }
top=$(offer neug "")
missing=$(for c in $cmds --help --version; do grep -qx -- "$c" <<<"$top" || echo "$c"; done)
[ -z "$missing" ] && echo "PASS: completion: neug TAB offers the $(echo $cmds | wc -w) commands of neug --help and --help, --version" ||
	echo "FAIL: completion: neug TAB lacks: $missing"
for c in $cmds; do
	help=$(build/neug "$c" --help 2>&1)
	want=$( { grep -oE -- "--[a-z][a-z0-9-]*" <<<"$help"; grep -oE -- "^ +-[a-zA-Z]\b" <<<"$help" | tr -d " "; } | sort -u)
	got=$(offer neug "$c" - | sed "s/=$//" | sort -u)
	missing=$(comm -23 <(echo "$want") <(echo "$got") | tr "\n" " ")
	if [ -z "$want" ]; then
		echo "FAIL: completion: no option found in neug $c --help"
	elif [ -z "$missing" ]; then
		echo "PASS: completion: neug $c - TAB offers all $(echo "$want" | wc -l) options of neug $c --help"
	else
		echo "FAIL: completion: neug $c - TAB lacks: $missing(add them to packaging/bash-completion/neug)"
	fi
done
v=$(offer neug generate --mode=c | tr "\n" " ")
[ "$v" = "conditioned crc32 " ] && echo "PASS: completion: --mode=c TAB offers conditioned crc32" ||
	echo "FAIL: completion: --mode=c offers \"$v\""
v=$(offer neug feed --source= | tr "\n" " ")
[ "$v" = "jitter file: device device: " ] && echo "PASS: completion: --source= TAB offers jitter file: device device:" ||
	echo "FAIL: completion: --source= offers \"$v\""
d=$(mktemp -d); touch "$d/samples.bin"
v=$(offer neug assess "$d/sam")
[ "$v" = "$d/samples.bin" ] && echo "PASS: completion: neug assess completes a file name" ||
	echo "FAIL: completion: neug assess $d/sam offers \"$v\""
v=$(offer neug assess --source=file:"$d/sam")
[ "$v" = "$d/samples.bin" ] && echo "PASS: completion: --source=file:PATH completes the path (after the colon)" ||
	echo "FAIL: completion: --source=file:$d/sam offers \"$v\""
v=$(offer neug feed --metrics="$d/sam")
[ "$v" = "$d/samples.bin" ] && echo "PASS: completion: feed --metrics=PATH completes the path" ||
	echo "FAIL: completion: feed --metrics=$d/sam offers \"$v\""
rm -rf "$d"
'
