# shellcheck shell=bash
# One check for every script that builds a config from fragments: each
# symbol a fragment sets (the last setting wins, as merge_config does) and
# the tree's Kconfig defines for this arch must come out as asked.  A
# symbol Kconfig drops silently is an error.
#
# kconfig_check SRC SRCARCH FRAGMENTS DOTCONFIG
#   SRC        the (patched) source tree
#   SRCARCH    its arch/ directory name (x86 for x86_64 and i386)
#   FRAGMENTS  the concatenated fragments
#   DOTCONFIG  the resolved .config
# Prints each mismatch on stderr; returns 1 if there was one.

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
