#!/bin/bash
# The support matrix, from real runs: every boot-test cell leaves a
# cell.txt (key=value words, and a "reason:" line when it failed) in the
# results directory of the machine that ran it; kernels/matrix.tsv keeps
# the records in the project, so a new machine (an empty cache) still knows
# what was measured, and when.  Prints two Markdown tables from the newest
# record per kernel/arch/allocator/hardening (a local result of the same
# day beats a committed one): kernel x arch (which cells passed), then
# every cell with its stages and times.
#
#   ci/matrix.sh [--record] [RESULTS_DIR]
#   ci/matrix.sh --code
#   ci/matrix.sh --current [RESULTS_DIR]
#
# --record writes the merged newest records back to kernels/matrix.tsv
# and the tables into README.md (make matrix-record), then prints them.
#
# Each record also says which code it tested: the project's commit, with
# "+" when the cell inputs below had uncommitted changes ("?" for records
# made before cells said so, or outside a git checkout).  --code prints
# that id for this checkout (ci/boot-test.sh records it).  A record is
# current when none of the cell inputs changed between its commit and
# HEAD: the matrix says how many are, so "a fresh run" is checkable.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=ci/lib.sh
. "$top/ci/lib.sh"
# What decides a cell's outcome: the series and what it applies, the
# build (configs, arch table, kbuild), the guest suite and its
# expectations, and the boot.  Not the orchestration (boot-test.sh, this
# file, tests/run.sh), the docs or the records.
inputs=(ci/lib.sh ci/boot.sh ci/kbuild.sh ci/kconfig-check.sh ci/configs
	uckit tests/guest patches cocci series ':!cocci/tests')

code_id() {
	local head
	head=$(git -C "$top" rev-parse --short=12 HEAD 2>/dev/null) || { echo "?"; return; }
	if [ -n "$(git -C "$top" status --porcelain -- "${inputs[@]}" 2>/dev/null)" ]; then
		echo "$head+"
	else
		echo "$head"
	fi
}
# current ID: the cell inputs are the same at ID as in this checkout.
current() {
	case "$1" in '?'|*+) return 1 ;; esac
	git -C "$top" diff --quiet "$1" HEAD -- "${inputs[@]}" 2>/dev/null &&
		[ -z "$(git -C "$top" status --porcelain -- "${inputs[@]}" 2>/dev/null)" ]
}

record=0
list_current=0
case "${1:-}" in
--record) record=1; shift ;;
--code) code_id; exit 0 ;;
--current) list_current=1; shift ;;
esac
results=${1:-${RESULTS:-$cache/results}}
records=${UC_MATRIX_RECORDS:-$top/kernels/matrix.tsv}
arches=$UC_ARCHES

cells() {
	for f in "$results"/*/cell.txt; do
		[ -f "$f" ] || continue
		awk -v t="$(stat -c %Y "$f")" '
			# Records older than the stage words have none: "?".
			function st(x) { return x == "" ? "?" : x }
			/^reason: / { reason = substr($0, 9); next }
			{
				for (i = 1; i <= NF; i++) {
					k = $i; sub(/=.*/, "", k)
					val = $i; sub(/^[^=]*=/, "", val)
					v[k] = val
				}
			}
			END {
				printf "%s|%s|%s|%s|%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
					v["kernel"], v["arch"], v["alloc"], v["hardened"], t,
					v["state"], v["result"], v["build_s"], v["boot_s"],
					v["date"], reason, st(v["applied"]), st(v["built"]),
					st(v["booted"]), st(v["suite"]), st(v["code"])
			}' "$f"
	done
	# Committed records: the same fields, dated at the start of their day.
	if [ -f "$records" ]; then
		# Files written before the code column have none: "?".
		local coded=no
		while IFS=$'\t' read -r kern arch alloc hard state result build boot date applied built booted suite code reason; do
			case "$kern" in
			kernel) [ "$code" = code ] && coded=yes; continue ;;
			''|'#'*) continue ;;
			esac
			if [ "$coded" = no ]; then
				reason=$code${reason:+	$reason}
				code="?"
			fi
			printf '%s|%s|%s|%s|%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
				"$kern" "$arch" "$alloc" "$hard" "$(date -u -d "$date" +%s)" \
				"$state" "$result" "$build" "$boot" "$date" "${reason:-}" \
				"$applied" "$built" "$booted" "$suite" "${code:-?}"
		done <"$records"
	fi
}

# The newest record per cell.
newest() {
	cells | sort -t'|' -k1,1V -k2,4 -k5,5nr | awk -F'\t' '
		{ split($1, k, "|"); key = k[1] "|" k[2] "|" k[3] "|" k[4] }
		!seen[key]++ { sub(/\|[0-9]+$/, "", $1); print }' OFS='\t'
}

newest > "${TMPDIR:-/tmp}/uc-matrix.$$"
trap 'rm -f "${TMPDIR:-/tmp}/uc-matrix.$$"' EXIT

# --current: "KERNEL ARCH ALLOC HARDENED" of each cell whose newest
# record ran the cell inputs of this checkout (make boot-stale skips them).
if [ "$list_current" = 1 ]; then
	declare -A checked=()
	while IFS=$'\t' read -r key code; do
		if [ -z "${checked[$code]:-}" ]; then
			checked[$code]=no
			current "$code" && checked[$code]=yes
		fi
		[ "${checked[$code]}" = yes ] && tr '|' ' ' <<<"$key"
	done < <(cut -f1,12 "${TMPDIR:-/tmp}/uc-matrix.$$")
	exit 0
fi

if [ "$record" = 1 ]; then
	{
		printf '# Boot-test cell records (ci/matrix.sh --record): the newest per cell, from real runs.\n'
		printf 'kernel\tarch\talloc\thardened\tstate\tresult\tbuild_s\tboot_s\tdate\tapplied\tbuilt\tbooted\tsuite\tcode\treason\n'
		awk -F'\t' -v OFS='\t' '{
			split($1, k, "|")
			print k[1], k[2], k[3], k[4], $2, $3, $4, $5, $6, $8, $9, $10, $11, $12, $7
		}' "${TMPDIR:-/tmp}/uc-matrix.$$"
	} >"$records.new"
	mv "$records.new" "$records"
	echo "matrix: $(grep -vc -e '^#' -e '^kernel' "$records") cell records in ${records#"$top"/}" >&2
fi

# The tables: the kernel x arch grid, every cell, and how fresh they are.
tables() {
	echo "Kernel x arch: the cells that passed (slub, slab; -n = the HARDENED=n"
	echo "control, which must let every violation through); FAIL/build failed"
	echo "name the first reason; n/a: the tree has no such arch; a blank cell"
	echo "was not run."
	echo
	printf '| kernel | how |'
	for a in $arches; do printf ' %s |' "$a"; done
	echo
	printf '|---|---|'
	for a in $arches; do printf -- '---|'; done
	echo
	awk -F'\t' -v arches="$arches" '
		{
			split($1, k, "|")
			kern = k[1]; arch = k[2]
			if (!(kern in how)) { order[++n] = kern; how[kern] = $2 }
			name = k[3] (k[4] == "n" ? "-n" : "")
			if ($3 == "pass")
				ok[kern, arch] = ok[kern, arch] (ok[kern, arch] == "" ? "" : ", ") name
			else if ($3 == "n/a")
				nocell[kern, arch] = "n/a: " $7
			else {
				# Short reasons: the linker message without its paths.
				r = $7
				sub(/^[^ ]*ld: [^ ]*: /, "", r)
				sub(/^not ok [0-9]+ guest_suite_completed # no UC-SUITE-DONE marker /, "suite never ended ", r)
				sub(/; .*$/, "", r)
				if (length(r) > 80)
					r = substr(r, 1, 77) "..."
				bad[kern, arch] = bad[kern, arch] (bad[kern, arch] == "" ? "" : "; ") \
					name ": " ($3 == "build-failed" ? "build failed" : $3) \
					(r == "" ? "" : " (" r ")")
			}
		}
		END {
			na = split(arches, a, " ")
			for (i = 1; i <= n; i++) {
				kern = order[i]
				printf "| %s | %s |", kern, how[kern]
				for (j = 1; j <= na; j++) {
					c = ok[kern, a[j]]
					if (c == "" && nocell[kern, a[j]] != "")
						c = nocell[kern, a[j]]
					if (bad[kern, a[j]] != "")
						c = c (c == "" ? "" : "; ") "**" bad[kern, a[j]] "**"
					printf " %s |", c
				}
				printf "\n"
			}
		}' "${TMPDIR:-/tmp}/uc-matrix.$$"

	echo
	echo "Every cell: how far it got (applied: the series and its wiring audit,"
	echo "or native; built; booted: the guest's init ran and reported; suite:"
	echo "verdicts that matched, of all), then the result."
	echo
	echo "| kernel | how | arch | allocator | HARDENED_USERCOPY | applied | built | booted | suite | result | build s | boot+suite s | date | code |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	awk -F'\t' '{
		split($1, k, "|")
		h = k[4] == "y" ? "y" : "n (control)"
		printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			k[1], $2, k[2], k[3], h, $8, $9, $10, $11, $3, $4, $5, $6, $12
	}' "${TMPDIR:-/tmp}/uc-matrix.$$"

	# How fresh: the records whose code is the cell inputs of this checkout.
	declare -A is_current=()
	total=0 fresh=0 unknown=0
	while IFS=$'\t' read -r code; do
		total=$((total + 1))
		if [ "$code" = "?" ]; then
			unknown=$((unknown + 1))
			continue
		fi
		if [ -z "${is_current[$code]:-}" ]; then
			is_current[$code]=no
			current "$code" && is_current[$code]=yes
		fi
		[ "${is_current[$code]}" = yes ] && fresh=$((fresh + 1))
	done < <(cut -f12 "${TMPDIR:-/tmp}/uc-matrix.$$")
	echo
	echo "Code: $fresh of $total records ran the cell inputs of this checkout"
	echo "(series, patches, semantic patches, configs, build and boot scripts,"
	echo "guest suite); $((total - fresh - unknown)) ran older ones; $unknown predate the code column."
}

# --record also rewrites the README's copy of the tables (from the line
# that starts the grid to the next section), so the README is always
# make matrix of the committed records; not for a records file of
# one's own (UC_MATRIX_RECORDS).
readme=$top/README.md
if [ "$record" = 1 ] && [ -z "${UC_MATRIX_RECORDS:-}" ] &&
	grep -q '^Kernel x arch: the cells that passed' "$readme" &&
	grep -q '^### Architectures' "$readme"; then
	tables >"${TMPDIR:-/tmp}/uc-matrix.$$.md"
	awk -v f="${TMPDIR:-/tmp}/uc-matrix.$$.md" '
		/^Kernel x arch: the cells that passed/ {
			while ((getline l < f) > 0)
				print l
			print ""
			skip = 1
			next
		}
		/^### Architectures/ { skip = 0 }
		!skip' "$readme" >"$readme.new"
	mv "$readme.new" "$readme"
	cat "${TMPDIR:-/tmp}/uc-matrix.$$.md"
	rm -f "${TMPDIR:-/tmp}/uc-matrix.$$.md"
	echo "matrix: README.md's tables rewritten" >&2
else
	tables
fi
