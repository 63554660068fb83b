/// /proc/kcore and /dev/mem: copy the kernel memory a reader names by
/// address through a bounce buffer (copy_to_user_bounced(), in the new
/// <linux/usercopy_bounce.h>).
///
/// read_kcore() copied kernel text and the direct map to user space with
/// copy_to_user() straight from the address asked for, and read_mem() did
/// the same from the linear map of any physical page (without
/// STRICT_DEVMEM, as x86_64's defconfig).  The hardened check refuses
/// kernel text and ranges that cross slab objects: measured, 4.4.220
/// x86_64 with the series killed every reader of /proc/kcore's text
/// segment ("<kernel text>", 4096 bytes), as gdb, crash and perf read it.
/// Upstream changed both readers to a bounce buffer after the 4.8 merge
/// ("fs/proc/kcore.c: Add bounce buffer for ktext data", 4.11; "/dev/mem:
/// Add bounce buffer for copy-out", 4.16); this does it for the backports.
///
/// Report mode, per reader: "wired" where the copy goes through
/// copy_to_user_bounced() (its file including the header) or the tree
/// reads with probe_kernel_read() into a buffer of its own (upstream's
/// fix, carried), "UNWIRED" where copy_to_user() still copies from the
/// address asked for or the header is missing.
///
// Confidence: High
// Options: --no-includes --include-headers
// Targets: fs/proc/kcore.c drivers/char/mem.c

virtual patch
virtual report

@initialize:python@
@@
found = {}	# (reader, kind) -> (file, line) of the first call
included = set()	# files with #include <linux/usercopy_bounce.h>

@kcore depends on patch@
expression to, start, len;
@@
read_kcore(...)
{
<+...
- copy_to_user(to, (char *)start, len)
+ copy_to_user_bounced(to, (char *)start, len)
...+>
}

@devmem depends on patch@
identifier ptr;
expression p, to, len;
@@
read_mem(...)
{
<+...
  ptr = xlate_dev_mem_ptr(p);
  ...
- copy_to_user(to, ptr, len)
+ copy_to_user_bounced(to, ptr, len)
...+>
}

@has_include@
@@
#include <linux/usercopy_bounce.h>

@depends on patch && (kcore || devmem) && !has_include@
@@
#include <linux/mm.h>
+#include <linux/usercopy_bounce.h>

// The calls in the two readers, by kind.
@calls depends on report@
identifier g = {copy_to_user, copy_to_user_bounced, probe_kernel_read};
identifier fn = {read_kcore, read_mem};
position c;
@@
fn(...)
{
<...
g@c(...)
...>
}

@script:python depends on calls@
g << calls.g;
fn << calls.fn;
c << calls.c;
@@
found.setdefault((fn, g), (c[0].file, c[0].line))

// The files that include the helper's header.
@inc depends on report@
position p;
@@
#include <linux/usercopy_bounce.h>@p

@script:python depends on inc@
p << inc.p;
@@
included.add(p[0].file)

// A direct copy from the address asked for: the one the check refuses.
@raw_kcore depends on report@
expression to, start, len;
position c;
@@
read_kcore(...)
{
<...
  copy_to_user@c(to, (char *)start, len)
...>
}

@script:python depends on raw_kcore@
c << raw_kcore.c;
@@
found.setdefault(("read_kcore", "raw"), (c[0].file, c[0].line))

@raw_mem depends on report@
identifier ptr;
expression p, to, len;
position c;
@@
read_mem(...)
{
<...
  ptr = xlate_dev_mem_ptr(p);
  ...
  copy_to_user@c(to, ptr, len)
...>
}

@script:python depends on raw_mem@
c << raw_mem.c;
@@
found.setdefault(("read_mem", "raw"), (c[0].file, c[0].line))

@finalize:python depends on report@
@@
for fn, what in (("read_kcore", "/proc/kcore"), ("read_mem", "/dev/mem")):
	if (fn, "raw") in found:
		print("audit: UNWIRED %s:%s %s (copy_to_user() from the address "
		      "asked for: the check kills readers of %s)"
		      % (found[(fn, "raw")] + (fn, what)))
	elif (fn, "copy_to_user_bounced") in found and \
			found[(fn, "copy_to_user_bounced")][0] not in included:
		print("audit: UNWIRED %s:%s %s (copy_to_user_bounced() without "
		      "#include <linux/usercopy_bounce.h>)"
		      % (found[(fn, "copy_to_user_bounced")] + (fn,)))
	elif (fn, "copy_to_user_bounced") in found:
		print("audit: wired %s:%s %s (copy_to_user_bounced())"
		      % (found[(fn, "copy_to_user_bounced")] + (fn,)))
	elif (fn, "probe_kernel_read") in found:
		print("audit: wired %s:%s %s (a bounce buffer of its own, "
		      "upstream's fix)" % (found[(fn, "probe_kernel_read")] + (fn,)))
	else:
		print("audit: MISSING %s (no %s in fs/proc/kcore.c or "
		      "drivers/char/mem.c)" % (fn, fn))
