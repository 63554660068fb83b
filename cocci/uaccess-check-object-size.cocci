/// Wire hardened usercopy into every architecture's uaccess routines: call
/// check_object_size() on the kernel-side pointer before any data moves.
///
/// Mirrors upstream 5b710f34e194 ("x86/uaccess: Enable hardened usercopy",
/// Linux 4.8) and the matching arm, arm64, powerpc, sparc, s390 and ia64
/// commits of the same series: the routines they wired are in the table
/// ARCHES below.
///
/// Routines declared plain "inline" become "__always_inline" (upstream did
/// the same for x86's copy_{from,to}_user in 4.8), so constant sizes stay
/// constant at the check and the x86 frame walker counts frames from the
/// function that owns the buffer.
///
/// In patch mode every listed routine that is defined gets the call (after
/// its declarations; a declaration whose initializer already copies is split
/// so the check comes first); in report mode each is printed as "wired" or
/// "UNWIRED" (no check, or a check after the copy), a routine defined in
/// none of its headers as "MISSING", and an
/// architecture the tree does not have as "n/a".  apply fails on anything
/// but wired and n/a, so a tree where a routine moved fails loudly.
///
/// ia64's copy_to_user() is a macro, out of reach of this rule: see
/// patches/hardening/ia64-copy-to-user-check.patch.
///
// Confidence: High
// Options: --no-includes --include-headers --smpl-spacing
// Targets: arch/x86/include/asm/uaccess.h arch/x86/include/asm/uaccess_64.h arch/x86/include/asm/uaccess_32.h ?arch/arm/include/asm/uaccess.h ?arch/arm64/include/asm/uaccess.h ?arch/powerpc/include/asm/uaccess.h ?arch/sparc/include/asm/uaccess_32.h ?arch/sparc/include/asm/uaccess_64.h ?arch/s390/lib/uaccess.c ?arch/s390/include/asm/uaccess.h ?arch/ia64/include/asm/uaccess.h

virtual patch
virtual report

@initialize:python@
@@
# arch -> routine -> (the argument that is the kernel buffer, the files the
# routine may be defined in).  "to" is the destination of a copy from user
# space (an overwrite if wrong), "from" the source of a copy to user space
# (an exposure).  Every definition found is wired; each routine must be
# defined in at least one of its files.
#
# x86: 3.x defines copy_from_user() in uaccess_64.h and uaccess_32.h, 4.x
# in uaccess.h; i386's copy_to_user() is out of line and reaches the wired
# __copy_to_user_inatomic().
# x86 _nocache: TCP sendmsg with NOCACHE_COPY and the page cache write
# path copy through __copy_from_user_nocache() and its _inatomic variant;
# i386 has its own __copy_from_user_inatomic() body.
# arm, arm64: __copy_{from,to}_user() are inline wrappers in front of the
# assembly (upstream's since 4.3 on arm; before that, and on arm64 before
# 4.8, uaccess-asm-entry-wrappers.cocci and the series' rename steps put
# them there).  They are wired; __copy_{from,to}_user_inatomic() are
# #define aliases of them, and copy_{from,to}_user() reach the assembly
# only through them (VIA: audited, not given a second check).
# s390: from 3.15 the routines are out of line, in arch/s390/lib/uaccess.c;
# before, __copy_{from,to}_user() are inline in asm/uaccess.h and dispatch
# through a table of function pointers (uaccess.copy_from_user(), one
# implementation per CPU facility), so the check goes into the inline
# routine, ahead of the dispatch, and every implementation is covered.
# A third element is either VIA, followed by the wired routine the body
# must call (checked there, once), or a note on a routine that is a macro.
# Not listed, by decision (docs/checker.md): copy_in_user() (both sides are
# user memory), strncpy_from_user() and the checksum copies (upstream
# never checked them), copy_from_user_nmi() (perf's stack walk, no kernel
# object), get_user()/put_user() (constant sizes).
VIA = "via"
MACRO = "a macro in this tree: see patches/hardening/ia64-copy-from-user-macro-check.patch"
def hdr(arch, name):
	return "arch/%s/include/asm/%s" % (arch, name)

S390 = ["arch/s390/lib/uaccess.c", hdr("s390", "uaccess.h")]
X86 = [hdr("x86", "uaccess.h"), hdr("x86", "uaccess_64.h"),
       hdr("x86", "uaccess_32.h")]
ARCHES = {
	"x86": {
		"copy_from_user": ("to", X86),
		"copy_to_user": ("from", X86[:2]),
		"__copy_from_user_nocheck": ("to", [hdr("x86", "uaccess_64.h")]),
		"__copy_to_user_nocheck": ("from", [hdr("x86", "uaccess_64.h")]),
		"__copy_from_user": ("to", [hdr("x86", "uaccess_32.h")]),
		"__copy_from_user_inatomic": ("to", [hdr("x86", "uaccess_32.h")]),
		"__copy_to_user_inatomic": ("from", [hdr("x86", "uaccess_32.h")]),
		"__copy_from_user_nocache": ("to", X86[1:]),
		"__copy_from_user_inatomic_nocache": ("to", X86[1:]),
	},
	"arm": {
		"__copy_from_user": ("to", [hdr("arm", "uaccess.h")]),
		"__copy_to_user": ("from", [hdr("arm", "uaccess.h")]),
		"copy_from_user": ("to", [hdr("arm", "uaccess.h")], VIA,
				   "__copy_from_user"),
		"copy_to_user": ("from", [hdr("arm", "uaccess.h")], VIA,
				 "__copy_to_user"),
	},
	"arm64": {
		"__copy_from_user": ("to", [hdr("arm64", "uaccess.h")]),
		"__copy_to_user": ("from", [hdr("arm64", "uaccess.h")]),
		"copy_from_user": ("to", [hdr("arm64", "uaccess.h")], VIA,
				   "__copy_from_user"),
		"copy_to_user": ("from", [hdr("arm64", "uaccess.h")], VIA,
				 "__copy_to_user"),
	},
	"powerpc": {
		"copy_from_user": ("to", [hdr("powerpc", "uaccess.h")]),
		"copy_to_user": ("from", [hdr("powerpc", "uaccess.h")]),
		"__copy_from_user_inatomic": ("to", [hdr("powerpc", "uaccess.h")]),
		"__copy_to_user_inatomic": ("from", [hdr("powerpc", "uaccess.h")]),
	},
	"sparc": {
		"copy_from_user": ("to", [hdr("sparc", "uaccess_32.h"),
					  hdr("sparc", "uaccess_64.h")]),
		"copy_to_user": ("from", [hdr("sparc", "uaccess_32.h"),
					  hdr("sparc", "uaccess_64.h")]),
		"__copy_from_user": ("to", [hdr("sparc", "uaccess_32.h")]),
		"__copy_to_user": ("from", [hdr("sparc", "uaccess_32.h")]),
	},
	"s390": {
		"__copy_from_user": ("to", S390),
		"__copy_to_user": ("from", S390),
	},
	"ia64": {
		"__copy_from_user": ("to", [hdr("ia64", "uaccess.h")]),
		"__copy_to_user": ("from", [hdr("ia64", "uaccess.h")]),
		"copy_from_user": ("to", [hdr("ia64", "uaccess.h")], MACRO),
	},
}
# Before 3.13 x86_64 has no __copy_{from,to}_user_nocheck(): the copy
# bodies are __copy_{from,to}_user() and __copy_{from,to}_user_inatomic()
# themselves.  Where a file does not define the _nocheck helper, those are
# wired in its place (the probe rule "nocheck" finds the helper).
INSTEAD = {
	("x86", "__copy_from_user_nocheck"): ["__copy_from_user",
					      "__copy_from_user_inatomic"],
	("x86", "__copy_to_user_nocheck"): ["__copy_to_user",
					    "__copy_to_user_inatomic"],
}
has_nocheck = set()	# (file, helper) for every _nocheck helper defined
seen_files = set()
wired = {}	# (file, function) -> line of its check_object_size() call
late_checks = set()	# (file, function) whose check comes after a copy
defined = {}	# (file, routine) -> line, for every listed routine found
calls = {}	# (file, function) -> the listed routines its body calls

def is_via(p, f):
	for table in ARCHES.values():
		w = table.get(f)
		if w is not None and len(w) > 3 and w[2] == VIA and \
		   p[0].file in w[1]:
			return True
	return False

def wanted(p, f, side):
	seen_files.add(p[0].file)
	for table in ARCHES.values():
		w = table.get(f)
		if w is not None and w[0] == side and p[0].file in w[1] and \
		   not (len(w) > 3 and w[2] == VIA):
			return True
	for (arch, helper), subs in INSTEAD.items():
		w = ARCHES[arch][helper]
		if f in subs and w[0] == side and p[0].file in w[1] and \
		   (p[0].file, helper) not in has_nocheck:
			return True
	return False

// The x86_64 _nocheck helpers, where a tree has them.
@nocheck@
identifier f =~ "^__copy_(from|to)_user_nocheck$";
position p;
@@
f@p(...) { ... }

@script:python depends on nocheck@
f << nocheck.f;
p << nocheck.p;
@@
has_nocheck.add((p[0].file, f))

// Calls already there (upstream's own, an earlier run's, a vendor's): a
// routine that has one is left alone, and counts as wired in the audit.
// A plain call match, unlike a match on the whole body, also sees through
// an #ifdef at the top of the body (arm's __copy_to_user()).
@existing@
position c;
@@
check_object_size@c(...)

@script:python depends on existing@
c << existing.c;
@@
wired[(c[0].file, c[0].current_element)] = c[0].line

// Calls of listed routines, by the function they sit in: a VIA routine
// must reach the copy through its wired routine.
@listed_call@
identifier g =~ "^__copy_(from|to)_user$";
position c;
@@
g@c(...)

@script:python depends on listed_call@
g << listed_call.g;
c << listed_call.c;
@@
calls.setdefault((c[0].file, c[0].current_element), set()).add(g)

// VIA routines are inlined like the wired ones (a constant size stays
// constant at the check in the routine they call).
@via_cand@
identifier f;
position p;
@@
f@p(...) { ... }

@script:python depends on via_cand@
f << via_cand.f;
p << via_cand.p;
@@
seen_files.add(p[0].file)
if is_via(p, f):
	defined[(p[0].file, f)] = p[0].line
else:
	cocci.include_match(False)

@via_inline depends on patch@
identifier via_cand.f;
@@
- inline
+ __always_inline
  f(...) { ... }

// A check that follows a declaration which already copied (an earlier
// version of this rule did that on sparc64) or opened user access (arm
// 4.3/4.4, before this rule split such declarations) is too late: the
// audit says UNWIRED.
@late@
identifier f, ret;
identifier g =~ "copy|uaccess";
type T;
expression list es;
position p;
@@
f@p(...)
{
... when any
T ret = g(es);
... when any
check_object_size(...);
...
}

@script:python depends on late@
f << late.f;
p << late.p;
@@
late_checks.add((p[0].file, f))

// ---- copies from user space: the first argument is the kernel buffer ----

@from_cand@
identifier f, dst, src, n;
type T1, T2, T3;
position p;
@@
f@p(T1 dst, T2 src, T3 n) { ... }

@script:python depends on from_cand@
f << from_cand.f;
p << from_cand.p;
@@
if not wanted(p, f, "to"):
	cocci.include_match(False)
else:
	defined[(p[0].file, f)] = p[0].line
	if (p[0].file, f) in wired:
		cocci.include_match(False)

// Wired routines must be inlined into their callers, as upstream made
// them in 4.8: a compile-time constant size then stays constant at
// check_object_size() (and is skipped), and the frame walker counts frames
// from the function that owns the buffer.
@from_inline depends on patch@
identifier from_cand.f;
@@
- inline
+ __always_inline
  f(...) { ... }

// A declaration that already copies (sparc64 before 4.4: "unsigned long
// ret = ___copy_from_user(...);") or opens user access (arm 4.3+:
// "unsigned int __ua_flags = uaccess_save_and_enable();") is split, so
// the check comes before any data moves, with the user domain still
// closed; the rules below then find the check in place.
// The same for a call with no arguments (an empty expression list
// would print as "g(  )").
@from_initcall depends on patch@
identifier from_cand.f, from_cand.dst, from_cand.src, from_cand.n;
type T1, T2, T3, T;
identifier ret;
identifier g =~ "copy|uaccess";
statement S;
symbol false, true;
@@
f(T1 dst, T2 src, T3 n)
{
... when any
    when != S
  T ret
- = g()
  ;
+
+	check_object_size(dst, n, false);
+	ret = g();
S
...
}

@from_initcopy depends on patch && !from_initcall@
identifier from_cand.f, from_cand.dst, from_cand.src, from_cand.n;
type T1, T2, T3, T;
identifier ret;
identifier g =~ "copy|uaccess";
expression list es;
statement S;
symbol false, true;
@@
f(T1 dst, T2 src, T3 n)
{
... when any
    when != S
  T ret
- = g(es)
  ;
+
+	check_object_size(dst, n, false);
+	ret = g(es);
S
...
}

// The call goes after the declarations, else first thing in the body.
@from_decls depends on patch && !from_initcall && !from_initcopy@
identifier from_cand.f, from_cand.dst, from_cand.src, from_cand.n;
type T1, T2, T3;
statement S;
declaration D;
symbol false, true;
@@
f(T1 dst, T2 src, T3 n)
{
... when any
    when != S
D
+
+	check_object_size(dst, n, false);
S
...
}

@from_nodecls depends on patch@
identifier from_cand.f, from_cand.dst, from_cand.src, from_cand.n;
type T1, T2, T3;
statement S;
symbol false, true;
@@
f(T1 dst, T2 src, T3 n)
{
+	check_object_size(dst, n, false);
S
...
}

// Bodies neither form fits (an #ifdef first): the call goes first.
@from_first depends on patch@
identifier from_cand.f, from_cand.dst, from_cand.src, from_cand.n;
type T1, T2, T3;
symbol false, true;
@@
f(T1 dst, T2 src, T3 n)
{
+	check_object_size(dst, n, false);
... when != check_object_size(dst, n, false)
}

// ---- copies to user space: the second argument is the kernel buffer ----

@to_cand@
identifier f, dst, src, n;
type T1, T2, T3;
position p;
@@
f@p(T1 dst, T2 src, T3 n) { ... }

@script:python depends on to_cand@
f << to_cand.f;
p << to_cand.p;
@@
if not wanted(p, f, "from"):
	cocci.include_match(False)
else:
	defined[(p[0].file, f)] = p[0].line
	if (p[0].file, f) in wired:
		cocci.include_match(False)

// Wired routines must be inlined into their callers, as upstream made
// them in 4.8: a compile-time constant size then stays constant at
// check_object_size() (and is skipped), and the frame walker counts frames
// from the function that owns the buffer.
@to_inline depends on patch@
identifier to_cand.f;
@@
- inline
+ __always_inline
  f(...) { ... }

// A declaration that already copies (sparc64 before 4.4: "unsigned long
// ret = ___copy_to_user(...);") or opens user access (arm 4.3+) is
// split: see from_initcopy.
// The same for a call with no arguments (an empty expression list
// would print as "g(  )").
@to_initcall depends on patch@
identifier to_cand.f, to_cand.dst, to_cand.src, to_cand.n;
type T1, T2, T3, T;
identifier ret;
identifier g =~ "copy|uaccess";
statement S;
symbol false, true;
@@
f(T1 dst, T2 src, T3 n)
{
... when any
    when != S
  T ret
- = g()
  ;
+
+	check_object_size(src, n, true);
+	ret = g();
S
...
}

@to_initcopy depends on patch && !to_initcall@
identifier to_cand.f, to_cand.dst, to_cand.src, to_cand.n;
type T1, T2, T3, T;
identifier ret;
identifier g =~ "copy|uaccess";
expression list es;
statement S;
symbol false, true;
@@
f(T1 dst, T2 src, T3 n)
{
... when any
    when != S
  T ret
- = g(es)
  ;
+
+	check_object_size(src, n, true);
+	ret = g(es);
S
...
}

// The call goes after the declarations, else first thing in the body.
@to_decls depends on patch && !to_initcall && !to_initcopy@
identifier to_cand.f, to_cand.dst, to_cand.src, to_cand.n;
type T1, T2, T3;
statement S;
declaration D;
symbol false, true;
@@
f(T1 dst, T2 src, T3 n)
{
... when any
    when != S
D
+
+	check_object_size(src, n, true);
S
...
}

@to_nodecls depends on patch@
identifier to_cand.f, to_cand.dst, to_cand.src, to_cand.n;
type T1, T2, T3;
statement S;
symbol false, true;
@@
f(T1 dst, T2 src, T3 n)
{
+	check_object_size(src, n, true);
S
...
}

// Bodies neither form fits (an #ifdef first): the call goes first.
@to_first depends on patch@
identifier to_cand.f, to_cand.dst, to_cand.src, to_cand.n;
type T1, T2, T3;
symbol false, true;
@@
f(T1 dst, T2 src, T3 n)
{
+	check_object_size(src, n, true);
... when != check_object_size(src, n, true)
}

// ---- report mode: the wiring audit ----

@finalize:python depends on report@
@@
for arch in sorted(ARCHES):
	table = ARCHES[arch]
	files = set(x for w in table.values() for x in w[1])
	if not files & seen_files:
		print("audit: n/a %s (none of %s in this tree)"
		      % (arch, " ".join(sorted(files))))
		continue
	for f in sorted(table):
		where = table[f][1]
		hits = sorted(k for k in defined if k[1] == f and k[0] in where)
		if not hits and (arch, f) in INSTEAD:
			subs = INSTEAD[(arch, f)]
			hits = sorted((k for k in defined
				       if k[1] in subs and k[0] in where),
				      key=lambda k: subs.index(k[1]))
		if not hits and len(table[f]) == 3:
			print("audit: n/a %s %s (%s; that patch is audited)"
			      % (arch, f, table[f][2]))
		elif not hits:
			print("audit: MISSING %s %s (not defined in %s)"
			      % (arch, f, " or ".join(where)))
		for key in hits:
			if len(table[f]) > 3 and table[f][2] == VIA:
				via = table[f][3]
				if via in calls.get(key, ()) and (key[0], via) in wired:
					print("audit: wired %s:%s %s (through %s)"
					      % (key[0], defined[key], f, via))
				else:
					print("audit: UNWIRED %s %s (does not copy through "
					      "the wired %s)" % (key[0], f, via))
			elif key in late_checks:
				print("audit: UNWIRED %s %s (checked after the copy or the "
				      "user-access enable)"
				      % key)
			elif key in wired:
				print("audit: wired %s:%s %s" % (key[0], wired[key], key[1]))
			else:
				print("audit: UNWIRED %s %s" % key)
