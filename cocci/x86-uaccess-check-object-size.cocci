/// Wire hardened usercopy into the x86 uaccess routines: call
/// check_object_size() on the kernel-side pointer before any data moves.
///
/// Mirrors upstream 5b710f34e194 ("x86/uaccess: Enable hardened usercopy",
/// Linux 4.8): copy_{from,to}_user() in <asm/uaccess.h>, the _nocheck
/// helpers behind __copy_{from,to}_user{,_inatomic}() on x86_64, and
/// __copy_from_user() / __copy_to_user_inatomic() on i386.
///
/// Routines declared plain "inline" become "__always_inline" (upstream did
/// the same for copy_{from,to}_user in 4.8), so constant sizes stay
/// constant at the check.
///
/// The WIRING table below is the single list of insertion points.  In patch
/// mode every listed routine gets the call (after its declarations); in
/// report mode each listed routine is printed as "wired" or "UNWIRED" and a
/// listed routine that is not found at all is printed as "MISSING", so the
/// wiring audit fails on a tree where a routine moved or was renamed.
///
// Confidence: High
// Options: --no-includes --include-headers --smpl-spacing
// Targets: arch/x86/include/asm/uaccess.h arch/x86/include/asm/uaccess_64.h arch/x86/include/asm/uaccess_32.h

virtual patch
virtual report

@initialize:python@
@@
# Routine -> (the argument that is the kernel buffer, the headers it may be
# defined in).  "to" is the destination of a copy from user space (an
# overwrite if wrong), "from" the source of a copy to user space (an
# exposure).  Trees differ in where the routines live: 3.x defines
# copy_from_user() in uaccess_64.h and uaccess_32.h, 4.x in uaccess.h; on
# i386 3.x, copy_to_user() is out of line and reaches the wired
# __copy_to_user_inatomic().  Every definition found is wired, and each
# routine must be found in at least one of its headers.
H = "arch/x86/include/asm/"
WIRING = {
	"copy_from_user": ("to", [H + "uaccess.h", H + "uaccess_64.h",
				  H + "uaccess_32.h"]),
	"copy_to_user": ("from", [H + "uaccess.h", H + "uaccess_64.h"]),
	"__copy_from_user_nocheck": ("to", [H + "uaccess_64.h"]),
	"__copy_to_user_nocheck": ("from", [H + "uaccess_64.h"]),
	"__copy_from_user": ("to", [H + "uaccess_32.h"]),
	"__copy_to_user_inatomic": ("from", [H + "uaccess_32.h"]),
}
seen_files = set()
found = {}

def wanted(p, f, side):
	seen_files.add(p[0].file)
	w = WIRING.get(f)
	return w is not None and w[0] == side and p[0].file in w[1]

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

@from_done@
identifier from_cand.f, from_cand.dst, from_cand.src, from_cand.n;
type T1, T2, T3;
position from_cand.p;
position pd;
symbol false, true;
@@
f@p@pd(T1 dst, T2 src, T3 n)
{
<+... check_object_size(dst, n, false); ...+>
}

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

@from_decls depends on patch@
identifier from_cand.f, from_cand.dst, from_cand.src, from_cand.n;
type T1, T2, T3;
position q != from_done.pd;
symbol false, true;
statement S;
declaration D;
@@
f@q(T1 dst, T2 src, T3 n)
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
position q != from_done.pd;
symbol false, true;
statement S;
@@
f@q(T1 dst, T2 src, T3 n)
{
+	check_object_size(dst, n, false);
S
...
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

@to_done@
identifier to_cand.f, to_cand.dst, to_cand.src, to_cand.n;
type T1, T2, T3;
position to_cand.p;
position pd;
symbol false, true;
@@
f@p@pd(T1 dst, T2 src, T3 n)
{
<+... check_object_size(src, n, true); ...+>
}

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

@to_decls depends on patch@
identifier to_cand.f, to_cand.dst, to_cand.src, to_cand.n;
type T1, T2, T3;
position q != to_done.pd;
symbol false, true;
statement S;
declaration D;
@@
f@q(T1 dst, T2 src, T3 n)
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
position q != to_done.pd;
symbol false, true;
statement S;
@@
f@q(T1 dst, T2 src, T3 n)
{
+	check_object_size(src, n, true);
S
...
}

// ---- report mode: the wiring audit ----

@script:python depends on report && from_done@
f << from_cand.f;
p << from_cand.p;
@@
found[(p[0].file, f)] = p[0].line

@script:python depends on report && to_done@
f << to_cand.f;
p << to_cand.p;
@@
found[(p[0].file, f)] = p[0].line

@script:python depends on report && from_cand && !from_done@
f << from_cand.f;
p << from_cand.p;
@@
found.setdefault((p[0].file, f), None)

@script:python depends on report && to_cand && !to_done@
f << to_cand.f;
p << to_cand.p;
@@
found.setdefault((p[0].file, f), None)

@finalize:python depends on report@
@@
for f in sorted(WIRING):
	side, files = WIRING[f]
	hits = sorted(k for k in found if k[1] == f)
	if not hits:
		where = [x for x in files if x in seen_files]
		print("audit: MISSING %s (not defined in %s)"
		      % (f, " or ".join(where or files)))
	for (file, _) in hits:
		if found[(file, f)] is None:
			print("audit: UNWIRED %s %s" % (file, f))
		else:
			print("audit: wired %s:%s %s" % (file, found[(file, f)], f))
