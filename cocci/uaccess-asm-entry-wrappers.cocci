/// Put an inline wrapper in front of the assembly copy routines, so that
/// check_object_size() can run before them.
///
/// Mirrors Linux 4.8's arm64 wiring (the assembly became
/// __arch_copy_{from,to}_user() behind checked inline wrappers) and Linux
/// 4.3's arm uaccess rework (the assembly became arm_copy_{from,to}_user()).  Before those, both arches
/// declare __copy_{from,to}_user() as the assembly routines themselves,
/// and __copy_{from,to}_user_inatomic() are aliases of them: lib/iov_iter.c
/// copies through exactly these, so read(), write(), pipes, splice and
/// every socket message went unchecked.
///
/// The prototype is renamed (the assembly entry point and its export are
/// renamed by the series' "rename" steps) and an inline
/// __copy_{from,to}_user() forwarding to it takes the old name;
/// uaccess-check-object-size.cocci then puts the check in that wrapper.
/// A tree that has the wrappers already (arm from 4.3) is left alone.
///
// Confidence: High
// Options: --no-includes --include-headers
// Targets: ?arch/arm/include/asm/uaccess.h ?arch/arm64/include/asm/uaccess.h

virtual patch
virtual report

@initialize:python@
@@
# arch -> the name the assembly routine __copy_X_user gets: PREFIX + "_copy_X_user"
PREFIX = {"arm": "arm", "arm64": "__arch"}
seen = set()		# arches whose header this run read
protos = {}		# (arch, new name) -> line of its prototype
wrappers = {}		# (arch, routine) -> line of an inline one calling the new name
unwrapped = {}		# (arch, routine) -> line of a bare assembly prototype

def arch_of(p):
	return p[0].file.split("/")[1]

def new_name(p, f):
	return PREFIX[arch_of(p)] + f[1:]

@any_fn@
identifier f;
position p;
@@
f@p(...) { ... }

@script:python@
p << any_fn.p;
@@
seen.add(arch_of(p))

// The assembly routine, still under its old name.
@proto@
identifier f =~ "^__copy_(from|to)_user$";
type T, T1, T2, T3;
identifier a, b, c;
position p;
@@
T f@p(T1 a, T2 b, T3 c);

@script:python mk@
f << proto.f;
p << proto.p;
af;
@@
unwrapped[(arch_of(p), f)] = p[0].line
coccinelle.af = cocci.make_ident(new_name(p, f))

@wrap depends on patch@
attribute name __always_inline;
identifier proto.f, mk.af;
type proto.T, proto.T1, proto.T2, proto.T3;
identifier proto.a, proto.b, proto.c;
@@
 T
- f
+ af
  (T1 a, T2 b, T3 c);
+
+ static __always_inline T f(T1 a, T2 b, T3 c)
+ {
+	return af(a, b, c);
+ }
+

// ---- report mode ----

@renamed depends on report@
identifier g =~ "^(arm|__arch)_copy_(from|to)_user$";
type T, T1, T2, T3;
identifier a, b, c;
position p;
@@
T g@p(T1 a, T2 b, T3 c);

@script:python depends on renamed@
g << renamed.g;
p << renamed.p;
@@
protos[(arch_of(p), g)] = p[0].line

// A call of the renamed routine, and the function it sits in (a plain
// call match sees through #ifdef branches in the body, as on arm 4.3+).
@calls depends on report@
identifier g =~ "^(arm|__arch)_copy_(from|to)_user$";
position c;
@@
g@c(...)

@script:python depends on calls@
g << calls.g;
c << calls.c;
@@
f = c[0].current_element
if f.startswith("__copy_") and g == new_name(c, f):
	wrappers[(arch_of(c), f)] = c[0].line

@finalize:python depends on report@
@@
for arch in sorted(PREFIX):
	if arch not in seen:
		print("audit: n/a %s assembly wrappers (no arch/%s/include/asm/"
		      "uaccess.h in this tree)" % (arch, arch))
		continue
	for f in ("__copy_from_user", "__copy_to_user"):
		g = PREFIX[arch] + f[1:]
		if (arch, f) in unwrapped:
			print("audit: UNWRAPPED %s %s (assembly, line %s)"
			      % (arch, f, unwrapped[(arch, f)]))
		elif (arch, f) in wrappers and (arch, g) in protos:
			print("audit: wrapped arch/%s/include/asm/uaccess.h:%s %s "
			      "-> %s" % (arch, wrappers[(arch, f)], f, g))
		else:
			print("audit: MISSING %s %s (neither an assembly prototype "
			      "nor an inline wrapper calling %s)" % (arch, f, g))
