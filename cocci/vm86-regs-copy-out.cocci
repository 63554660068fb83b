/// i386 vm86 (3.2-4.2): copy the vm86 registers out with constant-size
/// inline copies, after one access_ok().
///
/// On every return from vm86 mode save_v86_state() copies the trap frame
/// out to the caller's vm86 struct with copy_to_user() and compile-time
/// constant sizes.  i386's copy_to_user() is out of line, so the sizes
/// are no longer constant at check_object_size(), and the trap frame sits
/// where vm86 entry put the kernel stack pointer: in the frame of
/// do_sys_vm86(), which never returns, above every live C frame.  The
/// frame walker rejects it: measured, 3.2.71 i386 with CONFIG_VM86 killed
/// every vm86 program on its first return ("<process stack>", 44 bytes).
/// Upstream never met this: Linux 4.3 rewrote the copy-out as put_user()
/// of each field.  Here the two copies become __copy_to_user(), inlined
/// with their constant sizes (which hardened usercopy does not check, as
/// upstream), behind the access_ok() copy_to_user() did.
///
/// Report mode: "wired" where the copies are inline behind access_ok(),
/// "UNWIRED" where copy_to_user() is still used, "n/a" where the tree
/// has no copy_vm86_regs_to_user() (4.3 and later).
///
// Confidence: High
// Options: --no-includes --include-headers
// Targets: ?arch/x86/kernel/vm86_32.c

virtual patch
virtual report

@initialize:python@
@@
found = {}	# call name -> (file, line) of its first call in the function

@fix depends on patch@
identifier user, ret;
type T;
@@
copy_vm86_regs_to_user(T user, ...)
{
  int ret = 0;
+
+	if (!access_ok(VERIFY_WRITE, user, sizeof(*user)))
+		return -EFAULT;
<+...
- copy_to_user
+ __copy_to_user
  (...)
...+>
}

// The calls in copy_vm86_regs_to_user(), by kind (a plain call match
// finds a call inside an if condition too).
@calls depends on report@
identifier g = {copy_to_user, __copy_to_user, access_ok};
position c;
@@
g@c(...)

@script:python depends on calls@
g << calls.g;
c << calls.c;
@@
if c[0].current_element == "copy_vm86_regs_to_user":
	found.setdefault(g, (c[0].file, c[0].line))

@finalize:python depends on report@
@@
if "copy_to_user" in found:
	print("audit: UNWIRED %s copy_vm86_regs_to_user (copy_to_user() "
	      "of the trap frame: every return from vm86 mode is killed)"
	      % found["copy_to_user"][0])
elif "__copy_to_user" in found and "access_ok" in found:
	print("audit: wired %s:%s copy_vm86_regs_to_user (constant-size "
	      "__copy_to_user() behind access_ok())" % found["__copy_to_user"])
elif "__copy_to_user" in found:
	print("audit: UNWIRED %s copy_vm86_regs_to_user (__copy_to_user() "
	      "without access_ok())" % found["__copy_to_user"][0])
else:
	print("audit: n/a copy_vm86_regs_to_user (not in this tree: vm86 "
	      "copies out with put_user() from 4.3)")
