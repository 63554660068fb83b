/// Make check_object_size() and friends visible wherever <linux/thread_info.h>
/// is, as upstream 4.8 does by declaring them in that header.  Every arch's
/// <asm/uaccess.h> includes it, so the wired copy routines can call the check.
///
/// The declarations themselves live in the new <linux/usercopy_check.h>;
/// this only adds the include, after <asm/thread_info.h>.
///
// Confidence: High
// Options: --no-includes --include-headers --smpl-spacing
// Targets: include/linux/thread_info.h

virtual patch
virtual report

@has_include@
position p;
@@
#include <linux/usercopy_check.h>@p

@depends on patch && !has_include@
@@
#include <asm/thread_info.h>
+#include <linux/usercopy_check.h>

@script:python depends on report && has_include@
p << has_include.p;
@@
print("audit: wired %s:%s #include <linux/usercopy_check.h>" % (p[0].file, p[0].line))

@script:python depends on report && !has_include@
@@
print("audit: UNWIRED include/linux/thread_info.h #include <linux/usercopy_check.h>")
