#!/bin/bash
# Rule tests for cocci/*.cocci on small inputs written for this project.
#
# cocci/tests/RULE[@variant]/ holds input files at the paths the rule
# targets, with the expected result beside each changed file as FILE.res
# (no .res: the file must come out unchanged), and optionally
# audit.expected: the exact report-mode output on the patched result.
# Every case also checks that patch mode is idempotent (a second run
# changes nothing).  Prints one KTAP line per case.
#
#   tests/cocci-rules.sh [--bless]   (--bless rewrites .res and audit files)
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
bless=n
[ "${1:-}" = --bless ] && bless=y

cases=("$top"/cocci/tests/*/)
echo "KTAP version 1"
echo "1..${#cases[@]}"
n=0 failed=0
for dir in "${cases[@]}"; do
	n=$((n + 1))
	name=$(basename "$dir")
	rule="$top/cocci/${name%%@*}.cocci"
	work=$(mktemp -d)
	why=""
	(cd "$dir" && find . -type f ! -name '*.res' ! -name audit.expected \
		-print0 | cpio -0pdm --quiet "$work")
	opts=$(sed -n 's|^// Options:||p' "$rule")
	mapfile -t files < <(cd "$work" && find . -type f | sed 's|^\./||' | sort)
	# Patch mode file by file, as ci/uckit.py runs it (spatch shares
	# inherited bindings between the files of one invocation).
	# shellcheck disable=SC2086
	if ! (cd "$work" && for f in "${files[@]}"; do spatch --very-quiet \
		--sp-file "$rule" -D patch $opts "$f" || exit 1; done \
		> "$work.diff" 2> "$work.err"); then
		why="spatch failed: $(head -n3 "$work.err")"
	elif [ -s "$work.diff" ] && ! (cd "$work" && patch -p0 -s --no-backup-if-mismatch < "$work.diff"); then
		why="spatch output does not apply"
	fi
	if [ -z "$why" ]; then
		for f in "${files[@]}"; do
			if [ "$bless" = y ]; then
				if cmp -s "$dir/$f" "$work/$f"; then
					rm -f "$dir/$f.res"
				else
					cp "$work/$f" "$dir/$f.res"
				fi
				continue
			fi
			want="$dir/$f"
			[ -f "$dir/$f.res" ] && want="$dir/$f.res"
			if ! diff -u "$want" "$work/$f" > "$work.cmp"; then
				why="$f differs from expected"
				sed 's/^/# /' "$work.cmp"
				break
			fi
		done
	fi
	if [ -z "$why" ]; then
		# shellcheck disable=SC2086
		(cd "$work" && for f in "${files[@]}"; do spatch --very-quiet \
			--sp-file "$rule" -D patch $opts "$f"; done \
			> "$work.again" 2>/dev/null) || true
		[ -s "$work.again" ] && why="not idempotent: a second run changes the result"
	fi
	if [ -z "$why" ]; then
		# shellcheck disable=SC2086
		(cd "$work" && spatch --very-quiet --sp-file "$rule" -D report \
			$opts "${files[@]}" > "$work.audit" 2>/dev/null) || true
		if [ "$bless" = y ]; then
			cp "$work.audit" "$dir/audit.expected"
		elif [ -f "$dir/audit.expected" ] && ! diff -u "$dir/audit.expected" "$work.audit" > "$work.cmp"; then
			why="report-mode audit differs from audit.expected"
			sed 's/^/# /' "$work.cmp"
		fi
	fi
	rm -rf "$work" "$work.diff" "$work.err" "$work.again" "$work.audit" "$work.cmp"
	if [ -z "$why" ]; then
		echo "ok $n cocci:$name"
	else
		echo "not ok $n cocci:$name # $why"
		failed=$((failed + 1))
	fi
done
[ "$failed" = 0 ]
