// SPDX-License-Identifier: GPL-2.0
/*
 * uc_selftest: exercise hardened usercopy (CONFIG_HARDENED_USERCOPY) from a
 * misc device.  Each ioctl runs one case: either a copy that the hardening
 * must refuse (it then BUG()s and the calling process dies) or a legitimate
 * copy that must go through untouched.  Built unchanged against 4.4 and 6.1.
 *
 * Every copy length is hidden from the compiler (uc_hide()) so that the
 * run-time check is compiled in, and so are the kernel pointers, so that
 * __builtin_object_size() does not let newer kernels catch the overflow at
 * compile time (or with copy_overflow()) before hardened usercopy sees it.
 * The one exception is const_size_to_user, whose point is a constant size.
 *
 * Violations are written to be harmless on a kernel without the hardening:
 * they read, or write back bytes that were there already, or write into a
 * stack region that is dead.  They ignore the copy's result (a fault is as
 * good as a copy for them); legitimate cases must copy every byte.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/version.h>
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/string.h>
#include <linux/ctype.h>
#include <linux/sched.h>
#if LINUX_VERSION_CODE >= KERNEL_VERSION(4, 11, 0)
#include <linux/sched/task_stack.h>
#endif
#include <linux/uaccess.h>
#include <asm/sections.h>

#include "uc_selftest.h"

/* Size of the object the slab cases allocate, and how far they overrun. */
#define UC_SLAB_SIZE		64
#define UC_SLAB_OVERRUN		16
/* Bytes moved by the stack, text, null and wrap cases. */
#define UC_COPY_SIZE		64
/* Size of the frame left behind by uc_dead_frame(). */
#define UC_DEAD_FRAME_SIZE	1024

struct uc_ctx {
	void __user *ubuf;
	unsigned long ulen;
};

/* Return v unchanged, but as a value the compiler cannot know. */
static inline unsigned long uc_hide(unsigned long v)
{
	asm volatile("" : "+r" (v));
	return v;
}

#define uc_size(n)	((unsigned long)uc_hide(n))
#define uc_ptr(p)	((void *)uc_hide((unsigned long)(p)))
/*
 * The code of a function: on ELFv1 (big-endian ppc64) a function's
 * address is its descriptor in .opd, which is data, not text.
 */
#define uc_text(fn)	uc_ptr(dereference_function_descriptor((void *)(fn)))

/* Module .data: initialised, so it is not placed in .bss. */
static char uc_module_data[256] = "uc_selftest module data";

/*
 * Violations pass the copy's result through this: they only care whether
 * the hardening stops them, so a partial copy (a fault) is not an error.
 */
static int uc_ignore(unsigned long left)
{
	if (left)
		pr_info("copy stopped short by %lu bytes (no hardening)\n",
			left);
	return 0;
}

/* Legitimate copies must move every byte. */
static int uc_check(unsigned long left)
{
	return left ? -EFAULT : 0;
}

/*
 * The overrun is measured from the object's real size: kmalloc(64) comes
 * from a 128-byte cache where the minimum alignment is 128 (arm64), and 80
 * bytes would still fit.
 */
static unsigned long uc_overrun_len(const void *obj)
{
	return uc_size(ksize(obj) + UC_SLAB_OVERRUN);
}

static int uc_slab_overflow_to_user(struct uc_ctx *c)
{
	char *obj = uc_ptr(kmalloc(UC_SLAB_SIZE, GFP_KERNEL));
	unsigned long n;
	int ret;

	if (!obj)
		return -ENOMEM;
	n = uc_overrun_len(obj);
	memset(obj, 'A', UC_SLAB_SIZE);
	ret = uc_ignore(copy_to_user(c->ubuf, obj, n));
	kfree(obj);
	return ret;
}

/*
 * The overwrite must leave the neighbour intact without the hardening:
 * snapshot the bytes that are there, hand them to the user buffer, and
 * copy that same buffer back over them.
 */
static int uc_slab_overflow_from_user(struct uc_ctx *c)
{
	char *obj = uc_ptr(kmalloc(UC_SLAB_SIZE, GFP_KERNEL));
	char *snap = NULL;
	unsigned long n;
	int ret = -ENOMEM;

	if (!obj)
		goto out;
	n = uc_overrun_len(obj);
	snap = kmalloc(n, GFP_KERNEL);
	if (!snap)
		goto out;
	memcpy(snap, obj, n);
	ret = -EFAULT;
	if (copy_to_user(c->ubuf, snap, n))
		goto out;
	ret = uc_ignore(copy_from_user(obj, c->ubuf, n));
out:
	kfree(snap);
	kfree(obj);
	return ret;
}

/*
 * Leave a large frame behind and return the address of its lowest bytes.
 * Once this returns, that address lies about UC_DEAD_FRAME_SIZE below the
 * caller's stack pointer: dead stack, deep enough that the copy routines
 * the caller runs next do not reach it.
 */
static noinline void *uc_dead_frame(void)
{
	char frame[UC_DEAD_FRAME_SIZE];
	unsigned long addr = (unsigned long)frame;

	/* The asm sees the address, so the array is really allocated. */
	asm volatile("" : "+r" (addr) : : "memory");
	return (void *)addr;
}

static noinline int uc_stack_frame(struct uc_ctx *c, bool to_user)
{
	char *dead = uc_dead_frame();
	unsigned long n = uc_size(UC_COPY_SIZE);

	if (to_user)
		return uc_ignore(copy_to_user(c->ubuf, dead, n));
	return uc_ignore(copy_from_user(dead, c->ubuf, n));
}

/* A local buffer, copied with a length that runs off the top of the stack. */
static noinline int uc_stack_past_end_to_user(struct uc_ctx *c)
{
	char buf[32];
	char *p = uc_ptr(buf);
	char *end = (char *)task_stack_page(current) + THREAD_SIZE;
	unsigned long n;

	memset(p, 'S', sizeof(buf));
	n = uc_size(end - p + UC_COPY_SIZE);
	if (n > c->ulen)
		return -ENOSPC;
	return uc_ignore(copy_to_user(c->ubuf, p, n));
}

static int uc_kernel_text_to_user(struct uc_ctx *c)
{
	const void *text = uc_text(schedule);

	return uc_ignore(copy_to_user(c->ubuf, text, uc_size(UC_COPY_SIZE)));
}

static int uc_bogus_to_user(struct uc_ctx *c, unsigned long addr)
{
	const void *p = uc_ptr(addr);

	return uc_ignore(copy_to_user(c->ubuf, p, uc_size(UC_COPY_SIZE)));
}

static int uc_slab_inbounds_to_user(struct uc_ctx *c)
{
	char *obj = uc_ptr(kmalloc(UC_SLAB_SIZE, GFP_KERNEL));
	int ret;

	if (!obj)
		return -ENOMEM;
	memset(obj, 'B', UC_SLAB_SIZE);
	/* All of the object but its first and last bytes. */
	ret = uc_check(copy_to_user(c->ubuf, obj + uc_size(1),
				    uc_size(UC_SLAB_SIZE - 2)));
	kfree(obj);
	return ret;
}

static int uc_slab_inbounds_from_user(struct uc_ctx *c)
{
	char *obj = uc_ptr(kmalloc(UC_SLAB_SIZE, GFP_KERNEL));
	int ret;

	if (!obj)
		return -ENOMEM;
	ret = uc_check(copy_from_user(obj, c->ubuf, uc_size(UC_SLAB_SIZE)));
	kfree(obj);
	return ret;
}

/* The buffer lives in the frame of the function that does the copy. */
static noinline int uc_stack_in_frame_to_user(struct uc_ctx *c)
{
	char buf[UC_COPY_SIZE];
	char *p = uc_ptr(buf);

	memset(p, 'F', sizeof(buf));
	return uc_check(copy_to_user(c->ubuf, p, uc_size(sizeof(buf))));
}

static noinline int uc_stack_in_frame_from_user(struct uc_ctx *c)
{
	char buf[UC_COPY_SIZE];
	char *p = uc_ptr(buf);
	int ret;

	ret = uc_check(copy_from_user(p, c->ubuf, uc_size(sizeof(buf))));
	/* Use what was copied, so the buffer is live across the copy. */
	asm volatile("" : : "r" (p) : "memory");
	return ret;
}

static int uc_vmalloc_to_user(struct uc_ctx *c)
{
	char *area = vmalloc(2 * PAGE_SIZE);
	int ret;

	if (!area)
		return -ENOMEM;
	memset(area, 'V', 2 * PAGE_SIZE);
	/* Crosses the page boundary, ends inside the area. */
	ret = uc_check(copy_to_user(c->ubuf, uc_ptr(area + 100),
				    uc_size(PAGE_SIZE)));
	vfree(area);
	return ret;
}

static int uc_module_data_to_user(struct uc_ctx *c)
{
	return uc_check(copy_to_user(c->ubuf, uc_ptr(uc_module_data),
				     uc_size(sizeof(uc_module_data))));
}

/* _ctype is exported core-kernel .rodata in 4.4 and 6.1 alike. */
static int uc_rodata_to_user(struct uc_ctx *c)
{
	return uc_check(copy_to_user(c->ubuf, uc_ptr(_ctype),
				     uc_size(UC_COPY_SIZE)));
}

/* A compile-time constant size is not checked at run time. */
static int uc_const_size_to_user(struct uc_ctx *c)
{
	return uc_check(copy_to_user(c->ubuf, uc_text(schedule), 16));
}

static int uc_run(unsigned int test, struct uc_ctx *c)
{
	switch (test) {
	case UC_SLAB_OVERFLOW_TO_USER:
		return uc_slab_overflow_to_user(c);
	case UC_SLAB_OVERFLOW_FROM_USER:
		return uc_slab_overflow_from_user(c);
	case UC_STACK_FRAME_TO_USER:
		return uc_stack_frame(c, true);
	case UC_STACK_FRAME_FROM_USER:
		return uc_stack_frame(c, false);
	case UC_STACK_PAST_END_TO_USER:
		return uc_stack_past_end_to_user(c);
	case UC_KERNEL_TEXT_TO_USER:
		return uc_kernel_text_to_user(c);
	case UC_NULL_TO_USER:
		return uc_bogus_to_user(c, 0);
	case UC_ZERO_SIZE_PTR_TO_USER:
		return uc_bogus_to_user(c, (unsigned long)ZERO_SIZE_PTR);
	case UC_WRAP_TO_USER:
		return uc_bogus_to_user(c, -(unsigned long)(UC_COPY_SIZE / 2));
	case UC_SLAB_INBOUNDS_TO_USER:
		return uc_slab_inbounds_to_user(c);
	case UC_SLAB_INBOUNDS_FROM_USER:
		return uc_slab_inbounds_from_user(c);
	case UC_STACK_IN_FRAME_TO_USER:
		return uc_stack_in_frame_to_user(c);
	case UC_STACK_IN_FRAME_FROM_USER:
		return uc_stack_in_frame_from_user(c);
	case UC_VMALLOC_TO_USER:
		return uc_vmalloc_to_user(c);
	case UC_MODULE_DATA_TO_USER:
		return uc_module_data_to_user(c);
	case UC_RODATA_TO_USER:
		return uc_rodata_to_user(c);
	case UC_CONST_SIZE_TO_USER:
		return uc_const_size_to_user(c);
	}
	return -EINVAL;
}

#define UC_SELFTEST_NAME(id, name, violation)	[id] = #name,
static const char * const uc_names[UC_NR_CASES] = {
	UC_SELFTEST_CASES(UC_SELFTEST_NAME)
};
#undef UC_SELFTEST_NAME

/* Holds no lock: a case may end in BUG(), which kills the caller here. */
static long uc_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct uc_selftest_req req;
	struct uc_ctx c;
	int ret;

	if (cmd != UC_SELFTEST_IOC_RUN)
		return -ENOTTY;
	if (copy_from_user(&req, (void __user *)arg, sizeof(req)))
		return -EFAULT;
	if (req.flags || req.test >= UC_NR_CASES)
		return -EINVAL;
	if (req.len < UC_SELFTEST_BUF_SIZE)
		return -ENOSPC;

	c.ubuf = (void __user *)(unsigned long)req.buf;
	c.ulen = req.len;
	pr_info("case %s\n", uc_names[req.test]);
	ret = uc_run(req.test, &c);
	pr_info("case %s returned %d\n", uc_names[req.test], ret);
	return ret;
}

static const struct file_operations uc_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= uc_ioctl,
};

static struct miscdevice uc_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "uc_selftest",
	.fops	= &uc_fops,
	.mode	= 0600,
};

static int __init uc_init(void)
{
	return misc_register(&uc_misc);
}

static void __exit uc_exit(void)
{
	misc_deregister(&uc_misc);
}

module_init(uc_init);
module_exit(uc_exit);

MODULE_DESCRIPTION("Hardened usercopy self-test cases");
MODULE_LICENSE("GPL");
