#!/bin/bash
# `make run`: the whole path on one kernel, with a summary that fits a
# screen: resolve, apply (or detect native support), audit, export, then
# boot-test hardened (SLUB and SLAB) and the unhardened control in QEMU.
#
#   ci/run.sh [KERNEL] [ARCH]      (default: debian x86_64)
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=ci/lib.sh
. "$top/ci/lib.sh"
kernel=${1:-debian}
arch=${2:-x86_64}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rows=()
status=0

step() { echo; echo "== $*"; }

step "kernel: $kernel"
info=$(uckit info --kernel "$kernel") || exit 1
echo "$info"
version=$(sed -n 's/^version=//p' <<<"$info")
state=$(sed -n 's/^state=//p' <<<"$info")

step "apply"
if uckit apply --kernel "$kernel" --out "$work/tree"; then
	rows+=("apply|ok|$([ "$state" = none ] && echo "series applied, audit clean" || echo "already hardened ($state): unchanged")")
else
	rows+=("apply|FAIL|see above"); status=1
fi

if [ "$state" = none ] && [ -d "$work/tree" ]; then
	step "audit"
	uckit audit --kernel "$work/tree" | tail -n 20
	step "export"
	if uckit export --kernel "$kernel" --out "$work/series"; then
		rows+=("export|ok|$(grep -vc '^#' "$work/series/series") patches, quilt series")
	else
		rows+=("export|FAIL|see above"); status=1
	fi
	cells=("slub y" "slab y" "slub n")
else
	cells=("slub y" "slub n")
fi
rm -rf "$work/tree"

for cell in "${cells[@]}"; do
	read -r alloc hardened <<<"$cell"
	step "boot-test $version $arch $alloc hardened=$hardened"
	if bash "$top/ci/boot-test.sh" "$kernel" "$arch" "$alloc" "$hardened" | tee "$work/boot.log"; then
		res=ok
	else
		res=FAIL; status=1
	fi
	rows+=("boot $arch $alloc h=$hardened|$res|$(grep -o 'build [0-9]* s, boot+suite [0-9]* s' "$work/boot.log" | tail -n1)")
done

echo
echo "== summary: Linux $version ($([ "$state" = none ] && echo backport || echo "$state")) on $arch"
printf '%-26s %-5s %s\n' "step" "" "detail"
for r in "${rows[@]}"; do
	IFS='|' read -r a b c <<<"$r"
	printf '%-26s %-5s %s\n' "$a" "$b" "$c"
done
exit "$status"
