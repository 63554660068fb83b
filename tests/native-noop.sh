#!/bin/bash
# A tree that already has hardened usercopy (a native 4.9+ tree, or one
# carrying its own backport): apply must say so and copy it unchanged,
# export must refuse, and the tree is never written to.
#
#   tests/native-noop.sh TREE
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=ci/lib.sh
. "$top/ci/lib.sh"
tree=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

uckit apply --kernel "$tree" --out "$work/out" > "$work/log" 2>&1
cat "$work/log"
grep -q "already has hardened usercopy" "$work/log"
diff -r -q "$tree" "$work/out"
if uckit export --kernel "$tree" --out "$work/series" 2> "$work/err"; then
	echo "export of a hardened tree should fail" >&2
	exit 1
fi
grep -q "already hardened" "$work/err"
