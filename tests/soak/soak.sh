#!/bin/bash
# The soak's workload, run in the guest by /sbin/uc-soak-init (the image's
# stub, ci/rootfs.sh) from the payload disk mounted on /uc (ci/soak.sh).
#
# Phases, each announced in the kernel log (uc-soak: ...) so the host can
# tell which kernel lines came from which:
#   stress   stress-ng, every stressor of the classes in /uc/params, in
#            batches, each stressor with a fixed op count (and a timeout)
#   programs real programs: apt-get, git, tar+gzip, gcc, python3, ip/ss,
#            namespaces, /proc/kcore and /dev/mem read as a debugger
#            reads them, 32-bit compat binaries where there are any
#   live     one deliberate violation through uc_selftest.ko: the proof
#            that the check was live all along
# Results go to /uc/out: report (one line a stressor, a program, the live
# check; the host reads it with debugfs after power-off), the stress-ng
# logs and YAML, programs.log, dmesg.  The host decides pass or fail.
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8
out=/uc/out
mkdir -p "$out"
report=$out/report
: >"$report"
# shellcheck source=/dev/null
. /uc/params

kmsg() { echo "uc-soak: $*" >/dev/kmsg; }
say() { echo "uc-soak: $*" >/dev/console; }
rep() { echo "$*" >>"$report"; }

# A kernel oops must kill the task, not the run.
echo 0 >/proc/sys/kernel/panic_on_oops 2>/dev/null
ip link set lo up
# ICMP sockets for every group (ping-sock, and ping without privileges).
echo "0 2147483647" >/proc/sys/net/ipv4/ping_group_range 2>/dev/null
echo "kernel $(uname -r) $(uname -m)" >>"$report"
say "kernel $(uname -r), $(nproc) CPUs, $(awk '/MemTotal/ {print $2}' /proc/meminfo) kB"
start=$(date +%s)

# --- stress-ng ----------------------------------------------------------------
# Every stressor of every class, once (a stressor in two classes runs
# with the first), SOAK_BATCH at a time.  A stressor stress-ng skips (no
# such device or facility in this kernel or VM) is reported as skipped
# with stress-ng's reason; one that ran reports its bogo ops; one that
# stress-ng says failed is failed; one that ran its time without error
# but counted no op (too slow under TCG, or a facility it does not check
# for) is idle, with its metrics line.
# run_batch TAG STRESSOR...: one stress-ng run (as nobody for a TAG that
# says so), its log and YAML under $out, its exit status in rcs[TAG].
run_batch() {
	local tag=$1 b args=() as=() bad
	shift
	case "$tag" in
	*-nobody) as=(setpriv --reuid=65534 --regid=65534 --clear-groups) ;;
	esac
	for b in "$@"; do
		args+=("--$b" 1)
		[ -n "${no_ops[$b]:-}" ] || args+=("--$b-ops" "$SOAK_OPS")
	done
	# Line-buffered, so that a batch killed for running too long (its
	# stressors' cleanup under TCG, say) still leaves its log.
	timeout -k 30 "$((SOAK_TIMEOUT + 270))" ${as[@]+"${as[@]}"} stdbuf -oL -eL stress-ng "${args[@]}" \
		--timeout "$SOAK_TIMEOUT" --metrics-brief --temp-path "$stress_dir" \
		--yaml "/tmp/stress-$tag.yaml" >"/tmp/stress-$tag.log" 2>&1
	rcs[$tag]=$?
	[ "${rcs[$tag]}" != 124 ] && [ "${rcs[$tag]}" != 137 ] ||
		echo "uc-soak: killed after $((SOAK_TIMEOUT + 270)) s" >>"/tmp/stress-$tag.log"
	# Some stressors have no --NAME-ops in this stress-ng build: run the
	# batch again without it (they stop at the timeout).
	bad=$(sed -n "s/^stress-ng: unrecognized option '--\(.*\)-ops'$/\1/p" "/tmp/stress-$tag.log")
	if [ -n "$bad" ] && [ -z "${no_ops[$bad]:-}" ]; then
		no_ops[$bad]=1
		run_batch "$tag" "$@"
		return
	fi
	mv "/tmp/stress-$tag.yaml" "/tmp/stress-$tag.log" "$out/" 2>/dev/null
}
# ops_of TAG STRESSOR: its bogo ops in that run's YAML (empty: none).
ops_of() {
	awk -v s="$2" '$1 == "-" && $2 == "stressor:" { cur = $3 }
		$1 == "bogo-ops:" && cur == s { print $2; exit }' \
		"$out/stress-$1.yaml" 2>/dev/null
}
# stress-ng's messages spell some names with "_" (bad_ioctl).
pattern() { echo "${1//-/[-_]}"; }

declare -A seen=() rcs=() no_ops=()
# The stressors' files go to the ext4 root (the image's snapshot), where
# the filesystem stressors meet a real filesystem, not tmpfs.
stress_dir=/var/tmp/uc-stress
mkdir -p "$stress_dir"
chmod 1777 "$stress_dir"
cd "$stress_dir" || exit 1
kmsg "phase stress"
for class in $SOAK_CLASSES; do
	names=$(stress-ng --class "$class?" 2>&1 | sed -n 's/^class .* stressors: //p')
	batch=()
	n=0
	for s in $names ""; do
		if [ -n "$s" ]; then
			[ -z "${seen[$s]:-}" ] || continue
			seen[$s]=1
			batch+=("$s")
			[ "${#batch[@]}" -lt "$SOAK_BATCH" ] && continue
		fi
		[ "${#batch[@]}" -gt 0 ] || continue
		n=$((n + 1))
		tag="$class-$n"
		args=()
		for b in "${batch[@]}"; do
			args+=("--$b" 1 "--$b-ops" "$SOAK_OPS")
		done
		say "stress $tag: ${batch[*]}"
		run_batch "$tag" "${batch[@]}"
		# Stressors stress-ng will not run as root run again as nobody.
		unprivileged=()
		for b in "${batch[@]}"; do
			if [ -z "$(ops_of "$tag" "$b")" ] &&
				grep -qiE "^stress-ng: [a-z]+: +\[[0-9]+\] $(pattern "$b")[: ].*(without root|not run as root)" \
					"$out/stress-$tag.log"; then
				unprivileged+=("$b")
			fi
		done
		if [ "${#unprivileged[@]}" -gt 0 ]; then
			say "stress $tag-nobody: ${unprivileged[*]}"
			run_batch "$tag-nobody" "${unprivileged[@]}"
		fi
		for b in "${batch[@]}"; do
			t=$tag
			case " ${unprivileged[*]} " in *" $b "*) t=$tag-nobody ;; esac
			ops=$(ops_of "$t" "$b")
			rc=${rcs[$t]}
			why=$(grep -m1 -iE "^stress-ng: [a-z]+: +\[[0-9]+\] ($(pattern "$b")[: ].*(skip|not (implemented|supported|available)|unavailable|cannot|no permission)|disabled '$b')" \
				"$out/stress-$t.log" | sed 's/^stress-ng: [a-z]*: *\[[0-9]*\] //')
			if [ -n "$why" ] && [ "${ops:-0}" = 0 ]; then
				rep "stressor $class $b skipped rc=$rc # $why"
			elif [ "${ops:-0}" -gt 0 ] 2>/dev/null; then
				rep "stressor $class $b ops=$ops rc=$rc${t#"$tag"}"
			elif grep -qE "^stress-ng: (fail|error): +\[[0-9]+\] .*($(pattern "$b")[: ]|\($(pattern "$b")\) terminated)" \
				"$out/stress-$t.log"; then
				rep "stressor $class $b failed rc=$rc # $(grep -m1 -E "^stress-ng: (fail|error): .*$(pattern "$b")" "$out/stress-$t.log" | sed 's/^stress-ng: [a-z]*: *\[[0-9]*\] //')"
			else
				# Ran its time without error but counted no op.
				rep "stressor $class $b idle rc=$rc # $(grep -m1 -E "\] $(pattern "$b")[: ]" "$out/stress-$t.log" | sed 's/^stress-ng: [a-z]*: *\[[0-9]*\] //')"
			fi
		done
		batch=()
	done
done
cd / || exit 1
rm -rf "$stress_dir"

# --- real programs ------------------------------------------------------------
# prog NAME COMMAND...: one program, its output in programs.log.
prog() {
	local name=$1 t0 rc
	shift
	say "program $name"
	t0=$(date +%s)
	echo "=== $name" >>"$out/programs.log"
	"$@" >>"$out/programs.log" 2>&1
	rc=$?
	rep "program $name rc=$rc s=$(($(date +%s) - t0))"
}

apt_round() {
	apt-get update &&
	apt-get install -y --no-install-recommends hello tree &&
	hello &&
	tree -d /etc | tail -n 1 &&
	apt-get remove -y --purge hello tree &&
	[ ! -e /usr/bin/hello ]
}

git_round() {
	local g=/tmp/git
	rm -rf "$g" && mkdir -p "$g" && cd "$g" || return 1
	cp -a /usr/lib/python3.* /usr/include /usr/share/doc . 2>/dev/null
	echo "files: $(find . -type f | wc -l)"
	git init -q &&
	git -c user.name=uc -c user.email=uc@localhost add -A &&
	git -c user.name=uc -c user.email=uc@localhost commit -qm initial &&
	find . -name '*.h' | head -n 200 | xargs sed -i '1i /* soak */' &&
	git status --short | wc -l &&
	git diff --stat | tail -n 1 &&
	git -c user.name=uc -c user.email=uc@localhost commit -qam second &&
	git log --oneline | wc -l &&
	git gc -q &&
	git fsck
	local rc=$?
	cd / && rm -rf "$g"
	return "$rc"
}

tar_round() {
	local t=/tmp/tar
	rm -rf "$t" && mkdir -p "$t/x" || return 1
	local py
	py=$(cd /usr && echo lib/python3.*)
	tar -C /usr -czf "$t/usr.tgz" "$py" share/doc include &&
	tar -C "$t/x" -xzf "$t/usr.tgz" &&
	diff -r --no-dereference "/usr/$py" "$t/x/$py" &&
	diff -r /usr/include "$t/x/include" &&
	ls -l "$t/usr.tgz"
	local rc=$?
	rm -rf "$t"
	return "$rc"
}

gcc_round() {
	local c=/tmp/cc i
	rm -rf "$c" && mkdir -p "$c" && cd "$c" || return 1
	for i in 1 2 3 4 5 6 7 8; do
		printf '#include <string.h>\nunsigned long f%d(const char *s)\n{\n\tunsigned long h = %d;\n\twhile (*s)\n\t\th = h * 31 + (unsigned char)*s++;\n\treturn h + strlen("x");\n}\n' "$i" "$i" >"f$i.c"
	done
	{
		echo '#include <stdio.h>'
		for i in 1 2 3 4 5 6 7 8; do echo "unsigned long f$i(const char *);"; done
		echo 'int main(void) { unsigned long h = 0;'
		for i in 1 2 3 4 5 6 7 8; do echo "h ^= f$i(\"soak\");"; done
		# shellcheck disable=SC2028 # the \n is C's
		echo 'printf("%lu\n", h); return 0; }'
	} >main.c
	# shellcheck disable=SC2016 # make's variables
	printf 'OBJS = main.o f1.o f2.o f3.o f4.o f5.o f6.o f7.o f8.o\nsoak: $(OBJS)\n\t$(CC) -o $@ $(OBJS)\n%%.o: %%.c\n\t$(CC) -O2 -g -c $<\n' >Makefile
	make -j2 && ./soak
	local rc=$?
	cd / && rm -rf "$c"
	return "$rc"
}

python_round() {
	python3 - <<'EOF'
import hashlib, json, os, socket, sqlite3, subprocess, threading, select
h = hashlib.sha256()
n = 0
for root, dirs, files in os.walk(os.path.dirname(os.__file__)):
    for f in files:
        p = os.path.join(root, f)
        try:
            with open(p, "rb") as fh:
                h.update(fh.read())
            n += 1
        except OSError:
            pass
print("hashed", n, "files", h.hexdigest()[:16])
d = {"k%d" % i: list(range(i % 50)) for i in range(2000)}
assert json.loads(json.dumps(d)) == d
db = sqlite3.connect("/tmp/soak.db")
db.execute("create table t (k integer primary key, v text)")
db.executemany("insert into t values (?, ?)", ((i, "v" * (i % 300)) for i in range(5000)))
db.commit()
assert db.execute("select count(*) from t").fetchone()[0] == 5000
db.close()
os.unlink("/tmp/soak.db")
assert subprocess.run(["uname", "-r"], capture_output=True).returncode == 0
srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", 0))
srv.listen(4)
port = srv.getsockname()[1]
def serve():
    for _ in range(20):
        c, _ = srv.accept()
        data = b""
        while len(data) < 65536:
            r, _, _ = select.select([c], [], [], 10)
            chunk = c.recv(8192)
            if not chunk:
                break
            data += chunk
        c.sendall(hashlib.sha1(data).digest())
        c.close()
t = threading.Thread(target=serve)
t.start()
for i in range(20):
    payload = os.urandom(65536)
    c = socket.create_connection(("127.0.0.1", port))
    c.sendall(payload)
    got = b""
    while len(got) < 20:
        got += c.recv(20)
    assert got == hashlib.sha1(payload).digest()
    c.close()
t.join()
u = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
u.bind(("::1", 0))
u.sendto(b"x" * 1000, u.getsockname())
assert len(u.recv(2000)) == 1000
print("python ok")
EOF
}

net_round() {
	ip addr show lo &&
	ip route show table local | head -n 3 &&
	ping -c 3 -i 0.2 127.0.0.1 &&
	ping -c 3 -i 0.2 ::1 &&
	ss -s &&
	ss -tuan | head -n 5
}

ns_round() {
	unshare --net ip link show lo &&
	unshare --fork --pid --mount-proc ps -e &&
	unshare --uts sh -c 'hostname soak-ns && hostname' &&
	unshare --ipc true &&
	# User namespaces only where the kernel has them (not in defconfig).
	if [ -e /proc/self/ns/user ]; then
		unshare --user --map-root-user id
	fi
}

# /proc/kcore and /dev/mem as gdb, crash, drgn and perf read them: the
# first page of every PT_LOAD segment (kernel text among them), then
# "Kernel code" through /dev/mem where the config leaves it unfiltered.
kcore_round() {
	[ -r /proc/kcore ] || { echo "no /proc/kcore"; return 0; }
	python3 - <<'EOF2' || return 1
import struct
with open("/proc/kcore", "rb") as f:
    ident = f.read(16)
    assert ident[:4] == b"\x7fELF", ident
    wide = ident[4] == 2
    e = "<" if ident[5] == 1 else ">"
    f.seek(0)
    hdr = f.read(64 if wide else 52)
    if wide:
        phoff, = struct.unpack_from(e + "Q", hdr, 32)
        phentsize, phnum = struct.unpack_from(e + "HH", hdr, 54)
    else:
        phoff, = struct.unpack_from(e + "I", hdr, 28)
        phentsize, phnum = struct.unpack_from(e + "HH", hdr, 42)
    read = 0
    for i in range(phnum):
        f.seek(phoff + i * phentsize)
        ph = f.read(phentsize)
        if wide:
            ptype, _, off, vaddr = struct.unpack_from(e + "IIQQ", ph)
        else:
            ptype, off, vaddr = struct.unpack_from(e + "III", ph)
        if ptype != 1:
            continue
        f.seek(off)
        data = f.read(4096)
        print("kcore segment %x: %d bytes" % (vaddr, len(data)))
        read += 1
    assert read, "no PT_LOAD segment read"
EOF2
	local code
	code=$(sed -n 's/^ *\([0-9a-f]*\)-[0-9a-f]* : Kernel code$/\1/p' /proc/iomem | head -n 1)
	if [ -n "$code" ] && [ -e /dev/mem ]; then
		dd if=/dev/mem of=/dev/null bs=4096 count=1 skip=$((0x$code / 4096)) ||
			echo "/dev/mem refused (STRICT_DEVMEM)"
	fi
}

compat_round() {
	local b rc=0
	for b in /uc/compat/*; do
		[ -x "$b" ] || continue
		echo "--- $b"
		"$b" || rc=1
	done
	return "$rc"
}

kmsg "phase programs"
prog apt apt_round
prog git git_round
prog tar tar_round
prog gcc gcc_round
prog python python_round
prog net net_round
prog namespaces ns_round
prog kcore kcore_round
if ls /uc/compat/* >/dev/null 2>&1; then
	prog compat compat_round
fi
rep "workload s=$(($(date +%s) - start))"
kmsg "phase end"

# --- the live check -----------------------------------------------------------
# After the workload, so its kernel lines are the only usercopy: lines.
kmsg "phase live"
if insmod /uc/uc_selftest.ko; then
	for i in 1 2 3 4 5 6 7 8 9 10; do
		[ -e /dev/uc_selftest ] && break
		sleep 0.5
	done
	/uc/uc-init --case slab_overflow_to_user
	rc=$?
	rep "live case=slab_overflow_to_user rc=$rc"
else
	rep "live insmod-failed"
fi
kmsg "phase done"
dmesg >"$out/dmesg" 2>&1
say "done in $(($(date +%s) - start)) s"
rep "done s=$(($(date +%s) - start))"
sync
