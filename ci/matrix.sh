#!/bin/bash
# The support matrix, from real runs: every boot-test cell leaves a
# cell.txt (key=value words) in the results directory; this prints the
# newest result per kernel/arch/allocator/hardening as one Markdown table.
#
#   ci/matrix.sh [RESULTS_DIR]
set -eu

cache=${XDG_CACHE_HOME:-$HOME/.cache}/usercopy-backports
results=${1:-${RESULTS:-$cache/results}}

echo "| kernel | how | arch | allocator | HARDENED_USERCOPY | suite | build s | boot+suite s | date |"
echo "|---|---|---|---|---|---|---|---|---|"
for f in "$results"/*/cell.txt; do
	[ -f "$f" ] || continue
	grep -oE '[a-z_]+=[^ ]+' "$f" | awk -v t="$(stat -c %Y "$f")" -F= '
		{ v[$1] = $2 }
		END {
			h = v["hardened"] == "y" ? "y" : "n (control)"
			printf "%s|%s|%s|%s|%s\t| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
				v["kernel"], v["arch"], v["alloc"], v["hardened"], t,
				v["kernel"], v["state"], v["arch"], v["alloc"], h,
				v["result"], v["build_s"], v["boot_s"], v["date"]
		}'
done | sort -t'|' -k1,1V -k2,4 -k5,5nr | awk -F'\t' '
	{ split($1, k, "|"); key = k[1] "|" k[2] "|" k[3] "|" k[4] }
	!seen[key]++ { print $2 }'
