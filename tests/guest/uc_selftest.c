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
#include <linux/uio.h>
#include <linux/mm.h>
#include <linux/highmem.h>
#include <asm/sections.h>

#include "uc_selftest.h"

/* Size of the object the slab cases allocate, and how far they overrun. */
#define UC_SLAB_SIZE		64
#define UC_SLAB_OVERRUN		16
/* Bytes moved by the stack, text, null and wrap cases. */
#define UC_COPY_SIZE		64
/* Size of the frame left behind by uc_dead_frame(). */
#define UC_DEAD_FRAME_SIZE	1024
/*
 * The per-path cases use lkdtm's USERCOPY geometry: a 1024-byte kmalloc
 * object (multi-page slabs, tail pages) and a copy that starts 16 bytes in.
 */
#define UC_BIG_SIZE		1024
#define UC_BIG_OFFSET		16

/* The copy routines the per-path cases go through. */
enum uc_path {
	UC_PATH_RAW,			/* __copy_{to,from}_user() */
	UC_PATH_INATOMIC,		/* __copy_{to,from}_user_inatomic() */
	UC_PATH_NOCACHE,		/* __copy_from_user_nocache() */
	UC_PATH_INATOMIC_NOCACHE,	/* __copy_from_user_inatomic_nocache() */
	UC_PATH_ITER,			/* copy_{to,from}_iter(), user iovec */
};

/*
 * copy_{to,from}_iter() arrived in 3.19; __copy_from_user_nocache() left
 * in 4.12 (its only users moved to the _inatomic variant).
 */
#define UC_HAVE_ITER	(LINUX_VERSION_CODE >= KERNEL_VERSION(3, 19, 0))
#define UC_HAVE_NOCACHE	(LINUX_VERSION_CODE < KERNEL_VERSION(4, 12, 0))

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

/*
 * kmalloc(size) for a case that copies up to overrun bytes past the end of
 * the object: an object whose overrun stays off the current task's stack.
 * The stack is checked before the slab, so an overrun into a stack that
 * happens to follow the slab page (an 8 KiB arm stack after the last
 * kmalloc-1024 object of a page, say) is refused as a stack violation,
 * and the verdict would depend on where the allocator put the object.
 * Objects that touch the stack are held while the next one is taken.
 */
static void *uc_kmalloc_off_stack(size_t size, size_t overrun)
{
	const char *stack = task_stack_page(current);
	char *held[4];
	char *obj;
	int n = 0;

	for (;;) {
		obj = kmalloc(size, GFP_KERNEL);
		if (!obj || n == ARRAY_SIZE(held))
			break;
		if (obj + ksize(obj) + overrun <= stack ||
		    obj >= stack + THREAD_SIZE)
			break;
		held[n++] = obj;
	}
	while (n--)
		kfree(held[n]);
	return obj;
}

static int uc_slab_overflow_to_user(struct uc_ctx *c)
{
	char *obj = uc_ptr(uc_kmalloc_off_stack(UC_SLAB_SIZE, UC_SLAB_OVERRUN));
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
	char *obj = uc_ptr(uc_kmalloc_off_stack(UC_SLAB_SIZE, UC_SLAB_OVERRUN));
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

/* Whether this kernel has the routine; a case without it says -EOPNOTSUPP. */
static bool uc_path_exists(enum uc_path path, bool to_user)
{
	switch (path) {
	case UC_PATH_RAW:
	case UC_PATH_INATOMIC:
		return true;
	case UC_PATH_NOCACHE:
		return !to_user && UC_HAVE_NOCACHE;
	case UC_PATH_INATOMIC_NOCACHE:
		return !to_user;
	case UC_PATH_ITER:
		return UC_HAVE_ITER;
	}
	return false;
}

/* Copy n bytes at p out to the user buffer; returns the bytes not copied. */
static unsigned long uc_path_to_user(struct uc_ctx *c, enum uc_path path,
				     const void *p, unsigned long n)
{
	unsigned long left = n;
#if UC_HAVE_ITER
	struct iovec iov = { .iov_base = c->ubuf, .iov_len = n };
	struct iov_iter iter;
#endif

	switch (path) {
	case UC_PATH_RAW:
		left = __copy_to_user(c->ubuf, p, n);
		break;
	case UC_PATH_INATOMIC:
		/*
		 * Without pagefault_disable(): the user buffer is faulted in
		 * already, and 4.4's pagefault_enable() WARNs, whose
		 * __bug_table entry 4.4's arm64 module loader cannot
		 * relocate (R_AARCH64_PREL32 overflow).
		 */
		left = __copy_to_user_inatomic(c->ubuf, p, n);
		break;
	case UC_PATH_ITER:
#if UC_HAVE_ITER
		iov_iter_init(&iter, READ, &iov, 1, n);
		left = n - copy_to_iter((void *)p, n, &iter);
#endif
		break;
	default:
		break;
	}
	return left;
}

/* Copy n bytes from the user buffer to p; returns the bytes not copied. */
static unsigned long uc_path_from_user(struct uc_ctx *c, enum uc_path path,
				       void *p, unsigned long n)
{
	unsigned long left = n;
#if UC_HAVE_ITER
	struct iovec iov = { .iov_base = c->ubuf, .iov_len = n };
	struct iov_iter iter;
#endif

	switch (path) {
	case UC_PATH_RAW:
		left = __copy_from_user(p, c->ubuf, n);
		break;
	case UC_PATH_INATOMIC:
		left = __copy_from_user_inatomic(p, c->ubuf, n);
		break;
	case UC_PATH_NOCACHE:
#if UC_HAVE_NOCACHE
		left = __copy_from_user_nocache(p, c->ubuf, n);
#endif
		break;
	case UC_PATH_INATOMIC_NOCACHE:
		left = __copy_from_user_inatomic_nocache(p, c->ubuf, n);
		break;
	case UC_PATH_ITER:
#if UC_HAVE_ITER
		iov_iter_init(&iter, WRITE, &iov, 1, n);
		left = n - copy_from_iter(p, n, &iter);
#endif
		break;
	}
	return left;
}

/*
 * One routine, one direction: a copy that starts 16 bytes into a 1024-byte
 * object and either stops at its end (legitimate) or runs 16 bytes past
 * it (a violation).  An overwrite writes back the bytes that were there,
 * as uc_slab_overflow_from_user() does.
 */
static int uc_path_case(struct uc_ctx *c, enum uc_path path, bool to_user,
			bool overflow)
{
	char *obj, *at, *snap = NULL;
	unsigned long n, left;
	int ret = -ENOMEM;

	if (!uc_path_exists(path, to_user))
		return -EOPNOTSUPP;
	obj = uc_ptr(uc_kmalloc_off_stack(UC_BIG_SIZE, UC_BIG_OFFSET));
	if (!obj)
		return -ENOMEM;
	memset(obj, 'P', UC_BIG_SIZE);
	at = obj + UC_BIG_OFFSET;
	n = ksize(obj) - UC_BIG_OFFSET + (overflow ? UC_BIG_OFFSET : 0);
	n = uc_size(n);
	if (to_user) {
		left = uc_path_to_user(c, path, at, n);
	} else {
		snap = kmalloc(n, GFP_KERNEL);
		if (!snap)
			goto out;
		memcpy(snap, at, n);
		ret = -EFAULT;
		if (copy_to_user(c->ubuf, snap, n))
			goto out;
		left = uc_path_from_user(c, path, at, n);
	}
	ret = overflow ? uc_ignore(left) : uc_check(left);
out:
	kfree(snap);
	kfree(obj);
	return ret;
}

/*
 * A copy that starts 16 bytes before an object and ends inside it.  The
 * object must not be the first of its slab (the bytes before it would not
 * be slab memory): of a few allocations, take one with another below it
 * in the same slab.
 */
static int uc_slab_before_object_to_user(struct uc_ctx *c)
{
	char *objs[16] = { NULL };
	char *obj = NULL;
	int i, j, ret = -ENOMEM;

	for (i = 0; i < ARRAY_SIZE(objs); i++) {
		objs[i] = kmalloc(UC_BIG_SIZE, GFP_KERNEL);
		if (!objs[i])
			goto out;
		memset(objs[i], 'O', UC_BIG_SIZE);
	}
	for (i = 0; i < ARRAY_SIZE(objs) && !obj; i++)
		for (j = 0; j < ARRAY_SIZE(objs) && !obj; j++)
			if (objs[j] > objs[i] &&
			    virt_to_head_page(objs[j]) ==
			    virt_to_head_page(objs[i]))
				obj = objs[j];
	ret = -EAGAIN;
	if (obj)
		ret = uc_ignore(copy_to_user(c->ubuf,
					     uc_ptr(obj - UC_BIG_OFFSET),
					     uc_size(2 * UC_BIG_OFFSET)));
out:
	for (i = 0; i < ARRAY_SIZE(objs); i++)
		kfree(objs[i]);
	return ret;
}

/*
 * x86_64 maps the kernel image twice: at __START_KERNEL_map, and in the
 * linear map where __va(__pa_symbol()) finds it.  The checker must reject
 * the alias as it rejects the text itself.  Other arches: no such alias.
 */
static int uc_text_alias_to_user(struct uc_ctx *c)
{
#ifdef CONFIG_X86_64
	const void *alias = uc_ptr(__va(__pa_symbol(schedule)));

	return uc_ignore(copy_to_user(c->ubuf, alias, uc_size(UC_COPY_SIZE)));
#else
	return -EOPNOTSUPP;
#endif
}

/*
 * A legitimate stack buffer handed down: it lives in the frame of
 * uc_stack_helper(), two calls above the one that copies.  The frame
 * walker must accept it.
 */
static noinline int uc_stack_helper_copy(struct uc_ctx *c, char *buf,
					 unsigned long n, bool to_user)
{
	if (to_user)
		return uc_check(copy_to_user(c->ubuf, buf, n));
	return uc_check(copy_from_user(buf, c->ubuf, n));
}

static noinline int uc_stack_helper_pass(struct uc_ctx *c, char *buf,
					 unsigned long n, bool to_user)
{
	int ret = uc_stack_helper_copy(c, buf, n, to_user);

	/* Not a tail call: this frame stays between the two. */
	asm volatile("" : "+r" (ret) : : "memory");
	return ret;
}

static noinline int uc_stack_helper(struct uc_ctx *c, bool to_user)
{
	char buf[UC_COPY_SIZE];
	char *p = uc_ptr(buf);
	int ret;

	memset(p, 'H', sizeof(buf));
	ret = uc_stack_helper_pass(c, p, uc_size(sizeof(buf)), to_user);
	asm volatile("" : : "r" (p) : "memory");
	return ret;
}

/*
 * Two pages of one order-1 allocation that is not a compound page: as far
 * as a page-span check can tell, separately allocated pages.  Legitimate
 * by default; HARDENED_USERCOPY_PAGESPAN=y refuses the copy across them.
 */
static int uc_page_span_to_user(struct uc_ctx *c)
{
	struct page *pages = alloc_pages(GFP_KERNEL, 1);
	char *p;
	int ret;

	if (!pages)
		return -ENOMEM;
	p = page_address(pages);
	memset(p, 'G', 2 * PAGE_SIZE);
	ret = uc_check(copy_to_user(c->ubuf, uc_ptr(p + PAGE_SIZE - 32),
				    uc_size(UC_COPY_SIZE)));
	__free_pages(pages, 1);
	return ret;
}

/*
 * An order-1 compound page (__GFP_COMP, as a large kmalloc() on SLUB gets):
 * one allocation of two pages.  A copy across its inner page boundary is
 * legitimate, even with HARDENED_USERCOPY_PAGESPAN=y; one that runs 32
 * bytes past its end reads the next allocation, which the page-allocation
 * bound refuses ("page alloc", mainline 6.0; the page span check where it
 * is on).
 */
static int uc_page_alloc_to_user(struct uc_ctx *c, bool overrun)
{
	struct page *pages = alloc_pages(GFP_KERNEL | __GFP_COMP, 1);
	size_t start = overrun ? 2 * PAGE_SIZE - 32 : PAGE_SIZE - 32;
	char *p;
	int ret;

	if (!pages)
		return -ENOMEM;
	p = page_address(pages);
	memset(p, 'P', 2 * PAGE_SIZE);
	ret = uc_check(copy_to_user(c->ubuf, uc_ptr(p + start),
				    uc_size(UC_COPY_SIZE)));
	__free_pages(pages, 1);
	return overrun ? 0 : ret;
}

/*
 * A page from highmem where there is one (i386 HIGHMEM4G with more than
 * 896 MiB), mapped with kmap(): not in the linear map, not slab, legitimate.
 */
static int uc_kmap_to_user(struct uc_ctx *c)
{
	struct page *page = alloc_page(GFP_HIGHUSER);
	char *p;
	int ret;

	if (!page)
		return -ENOMEM;
	p = kmap(page);
	memset(p, 'K', PAGE_SIZE);
	ret = uc_check(copy_to_user(c->ubuf, uc_ptr(p + 16),
				    uc_size(PAGE_SIZE - 32)));
	kunmap(page);
	__free_page(page);
	return ret;
}

/* A compile-time constant size is not checked at run time. */
static int uc_const_size_to_user(struct uc_ctx *c)
{
	return uc_check(copy_to_user(c->ubuf, uc_text(schedule), 16));
}

/* The per-routine cases: which routine, which way, over the end or not. */
static const struct {
	unsigned int test;
	enum uc_path path;
	bool to_user, overflow;
} uc_path_cases[] = {
	{ UC_RAW_TO_USER_OVERFLOW, UC_PATH_RAW, true, true },
	{ UC_RAW_TO_USER_INBOUNDS, UC_PATH_RAW, true, false },
	{ UC_RAW_FROM_USER_OVERFLOW, UC_PATH_RAW, false, true },
	{ UC_RAW_FROM_USER_INBOUNDS, UC_PATH_RAW, false, false },
	{ UC_INATOMIC_TO_USER_OVERFLOW, UC_PATH_INATOMIC, true, true },
	{ UC_INATOMIC_TO_USER_INBOUNDS, UC_PATH_INATOMIC, true, false },
	{ UC_INATOMIC_FROM_USER_OVERFLOW, UC_PATH_INATOMIC, false, true },
	{ UC_INATOMIC_FROM_USER_INBOUNDS, UC_PATH_INATOMIC, false, false },
	{ UC_NOCACHE_FROM_USER_OVERFLOW, UC_PATH_NOCACHE, false, true },
	{ UC_NOCACHE_FROM_USER_INBOUNDS, UC_PATH_NOCACHE, false, false },
	{ UC_INATOMIC_NOCACHE_FROM_USER_OVERFLOW, UC_PATH_INATOMIC_NOCACHE,
	  false, true },
	{ UC_INATOMIC_NOCACHE_FROM_USER_INBOUNDS, UC_PATH_INATOMIC_NOCACHE,
	  false, false },
	{ UC_ITER_TO_USER_OVERFLOW, UC_PATH_ITER, true, true },
	{ UC_ITER_TO_USER_INBOUNDS, UC_PATH_ITER, true, false },
	{ UC_ITER_FROM_USER_OVERFLOW, UC_PATH_ITER, false, true },
	{ UC_ITER_FROM_USER_INBOUNDS, UC_PATH_ITER, false, false },
};

static int uc_run(unsigned int test, struct uc_ctx *c)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(uc_path_cases); i++)
		if (uc_path_cases[i].test == test)
			return uc_path_case(c, uc_path_cases[i].path,
					    uc_path_cases[i].to_user,
					    uc_path_cases[i].overflow);

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
	case UC_SLAB_BEFORE_OBJECT_TO_USER:
		return uc_slab_before_object_to_user(c);
	case UC_TEXT_ALIAS_TO_USER:
		return uc_text_alias_to_user(c);
	case UC_STACK_HELPER_TO_USER:
		return uc_stack_helper(c, true);
	case UC_STACK_HELPER_FROM_USER:
		return uc_stack_helper(c, false);
	case UC_PAGE_SPAN_TO_USER:
		return uc_page_span_to_user(c);
	case UC_KMAP_TO_USER:
		return uc_kmap_to_user(c);
	case UC_PAGE_ALLOC_OVERRUN_TO_USER:
		return uc_page_alloc_to_user(c, true);
	case UC_PAGE_ALLOC_INBOUNDS_TO_USER:
		return uc_page_alloc_to_user(c, false);
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
