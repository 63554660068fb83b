#!/bin/bash
# checkpatch.pl --no-tree -f on one file, with the script taken from
# Debian's linux-source-6.1 (extracted once into the cache).
#
#   tests/checkpatch.sh FILE      check FILE (warnings count as failures)
#   tests/checkpatch.sh --where   print the checkpatch.pl path, or fail
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=ci/lib.sh
. "$top/ci/lib.sh"
dir="$cache/checkpatch"
script="$dir/scripts/checkpatch.pl"

if [ ! -f "$script" ]; then
	tarball=/usr/src/linux-source-6.1.tar.xz
	if [ ! -f "$tarball" ]; then
		echo "checkpatch.pl needs Debian's kernel source: apt-get install linux-source-6.1" >&2
		exit 1
	fi
	mkdir -p "$dir"
	tar -xJf "$tarball" -C "$dir" --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch'
fi
if [ "${1:-}" = --where ]; then
	echo "$script"
	exit 0
fi
# UC_CHECKPATCH_IGNORE: message types a caller waives for this file.
out=$(perl "$script" --no-tree --show-types ${UC_CHECKPATCH_IGNORE:+--ignore "$UC_CHECKPATCH_IGNORE"} -f "$1" 2>&1) || true
echo "$out"
grep -q '^total: 0 errors, 0 warnings' <<<"$out"
