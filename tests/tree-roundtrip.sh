#!/bin/bash
# Real-tree test: apply, audit, re-apply (a no-op), export as a quilt
# series and prove `quilt push -a` on the pristine tree gives exactly the
# apply result.  The pristine tree is never written to.
#
#   tests/tree-roundtrip.sh PRISTINE_TREE
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=ci/lib.sh
. "$top/ci/lib.sh"
tree=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

uckit apply --kernel "$tree" --out "$work/applied"
uckit audit --kernel "$work/applied"

# Re-applying to the result must say so and change nothing.
uckit apply --kernel "$work/applied" --out "$work/again" 2>&1 | tee "$work/again.log"
grep -q "already has hardened usercopy" "$work/again.log"
diff -r -q "$work/applied" "$work/again"

# The exported series, pushed with plain quilt, reproduces apply exactly.
uckit export --kernel "$tree" --out "$work/series"
cp -a "$tree" "$work/quilt"
(cd "$work/quilt" && QUILT_PATCHES="$work/series" quilt push -a -q)
rm -rf "$work/quilt/.pc"
diff -r -q "$work/applied" "$work/quilt"
# Every exported patch carries a real header.
grep -v '^#' "$work/series/series" | while read -r p; do
	grep -q '^Subject: ' "$work/series/$p"
	grep -q '^Origin: ' "$work/series/$p"
done
echo "roundtrip ok: $(grep -vc '^#' "$work/series/series") patches"
