# shellcheck shell=bash
# The one configure step of every script that makes a kernel config from
# fragments (ci/kbuild.sh for the boot test, ci/package.sh for the
# packages), and the one check of its result.
#
# kconfig_resolve MAKE SRC SRCARCH BUILD BASE FRAGMENT...
#   MAKE      a command (a shell function) running the tree's make with
#             -C SRC O=BUILD ARCH= and the toolchain: Kconfig runs through it
#   SRC       the (patched) source tree; never written to
#   SRCARCH   its arch/ directory name (x86 for x86_64 and i386)
#   BUILD     the build directory: BUILD/.config is the result and
#             BUILD/uc-fragments.config the fragments, concatenated
#   BASE      tinyconfig (allnoconfig in trees without that target), or
#             a full .config to start from (a distro config)
#   FRAGMENT  merged over the base in order: a fragment's line for a
#             symbol replaces the base's and any earlier fragment's
# The merge is merge_config.sh -m (no Kconfig run), or the same merge in
# awk where the tree's merge_config.sh has no -O (3.4) or there is none
# (3.2); then olddefconfig resolves the dependencies (oldnoconfig in trees
# that predate it); then kconfig_check.
# Returns 0, 1 after kconfig_check printed each mismatch, 2 when the
# config could not be made (the reason on stderr).
#
# kconfig_check SRC SRCARCH FRAGMENTS DOTCONFIG
#   Each symbol the fragments set (the last setting wins, as in the merge)
#   and the tree's Kconfig defines for this arch must come out as asked in
#   DOTCONFIG: a symbol Kconfig drops silently is an error.  Prints each
#   mismatch on stderr; returns 1 if there was one.

kconfig_resolve() {
	local make=$1 src=$2 srcarch=$3 build=$4 base=$5 f start
	shift 5
	for f in "$@"; do
		[ -f "$f" ] || { echo "kconfig: config fragment $f is missing" >&2; return 2; }
	done
	mkdir -p "$build"
	if [ "$base" != tinyconfig ]; then
		[ -f "$base" ] || { echo "kconfig: base config $base is not a file" >&2; return 2; }
		cp "$base" "$build/.config"
	else
		start=allnoconfig
		if grep -q '^tinyconfig:' "$src/scripts/kconfig/Makefile"; then
			start=tinyconfig
		fi
		"$make" "$start" >/dev/null ||
			{ echo "kconfig: make $start failed in $src" >&2; return 2; }
	fi
	cat "$@" >"$build/uc-fragments.config"
	if grep -q -- '"-O")' "$src/scripts/kconfig/merge_config.sh" 2>/dev/null; then
		(cd "$build" && "$src/scripts/kconfig/merge_config.sh" -m -O "$build" \
			"$build/.config" "$build/uc-fragments.config" >/dev/null) ||
			{ echo "kconfig: merge_config.sh failed in $build" >&2; return 2; }
	else
		if ! { awk 'function sym(l) { sub(/^# /, "", l); sub(/[= ].*/, "", l); return l }
			FNR == NR { if ($0 ~ /^(# )?CONFIG_/) set[sym($0)] = 1; next }
			!(sym($0) in set)' "$build/uc-fragments.config" "$build/.config" &&
			cat "$build/uc-fragments.config"; } >"$build/.config.uc-merged"; then
			echo "kconfig: merging the fragments failed in $build" >&2
			return 2
		fi
		mv "$build/.config.uc-merged" "$build/.config"
	fi
	start=oldnoconfig
	if grep -q 'olddefconfig' "$src/scripts/kconfig/Makefile"; then
		start=olddefconfig
	fi
	"$make" "$start" >/dev/null ||
		{ echo "kconfig: make $start failed in $src" >&2; return 2; }
	kconfig_check "$src" "$srcarch" "$build/uc-fragments.config" "$build/.config"
}

# The CONFIG_ lines of FILE, each symbol's last setting only.
kconfig_last_settings() {
	tac "$1" | awk '
		/^CONFIG_[A-Za-z0-9_]+=/ { s = substr($0, 1, index($0, "=") - 1) }
		/^# CONFIG_[A-Za-z0-9_]+ is not set/ { s = $2 }
		!/^CONFIG_[A-Za-z0-9_]+=/ && !/^# CONFIG_[A-Za-z0-9_]+ is not set/ { next }
		!(s in seen) { seen[s] = 1; print }' | tac
}

kconfig_check() {
	local src=$1 srcarch=$2 frags=$3 dotconfig=$4 defined line sym want got bad=0
	# Symbols this arch can have: the Kconfig files outside arch/ and
	# those of arch/SRCARCH (EARLY_PRINTK of x86 is not arm64's); quilt's
	# .pc/ holds unpatched copies, not the tree's.
	defined=$({ find "$src" \( -path "$src/arch" -o -path "$src/.pc" \
		-o -path "$src/debian" \) -prune -o -name 'Kconfig*' -print
		find "$src/arch/Kconfig" "$src/arch/$srcarch" -name 'Kconfig*'; } |
		xargs grep -hoE '^[[:space:]]*(menu)?config [A-Za-z0-9_]+' |
		awk '{print $2}' | sort -u)
	while read -r line; do
		case "$line" in
		CONFIG_*=*) sym=${line%%=*} want=${line#*=} ;;
		"# CONFIG_"*" is not set") sym=${line#\# } sym=${sym%% *} want=n ;;
		*) continue ;;
		esac
		grep -qx "${sym#CONFIG_}" <<<"$defined" || continue
		got=$(grep -E "^$sym=|^# $sym is not set" "$dotconfig" | head -n1)
		case "$got" in
		"$sym=$want") ;;
		"# $sym is not set" | "")
			[ "$want" = n ] || [ "$want" = '""' ] || {
				echo "kconfig: $sym=$want requested, Kconfig dropped it (dependencies unmet?)" >&2
				bad=1
			} ;;
		*) echo "kconfig: $sym: requested $want, got ${got#*=}" >&2; bad=1 ;;
		esac
	done < <(kconfig_last_settings "$frags")
	return "$bad"
}
