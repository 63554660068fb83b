/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hardened usercopy: the entry point the uaccess routines call.
 *
 * Added by usercopy-backports to trees that predate Linux 4.8, where this
 * interface lives in <linux/thread_info.h>.  Names and semantics follow
 * upstream so that code and configs written for 4.8+ carry over.
 */
#ifndef _LINUX_USERCOPY_CHECK_H
#define _LINUX_USERCOPY_CHECK_H

#include <linux/types.h>
#include <linux/compiler.h>

struct page;

/* What the stack checks found out about an object. */
enum {
	BAD_STACK = -1,		/* on the stack, but not where it may be */
	NOT_STACK = 0,		/* not on the stack, or the arch cannot tell */
	GOOD_FRAME,		/* inside one live stack frame */
	GOOD_STACK,		/* inside the stack (no frame information) */
};

#ifdef CONFIG_HAVE_ARCH_WITHIN_STACK_FRAMES
#include <asm/stack_frames.h>
#else
/* Without a frame walker the arch cannot say more than "on the stack". */
static inline int arch_within_stack_frames(const void * const stack,
					   const void * const stackend,
					   const void *obj, unsigned long len)
{
	return NOT_STACK;
}
#endif

#ifdef CONFIG_HAVE_HARDENED_USERCOPY_ALLOCATOR
/* Implemented by SLAB and SLUB: NULL if [ptr, ptr + n) fits one object. */
const char *__check_heap_object(const void *ptr, unsigned long n,
				struct page *page);
#else
static inline const char *__check_heap_object(const void *ptr,
					      unsigned long n,
					      struct page *page)
{
	return NULL;
}
#endif

#ifdef CONFIG_HARDENED_USERCOPY
void __check_object_size(const void *ptr, unsigned long n, bool to_user);

/*
 * Sizes known at compile time are left to the compiler's own object size
 * checks; only run-time sizes reach the checker.
 */
static __always_inline void check_object_size(const void *ptr,
					       unsigned long n, bool to_user)
{
	if (!__builtin_constant_p(n))
		__check_object_size(ptr, n, to_user);
}
#else
static inline void check_object_size(const void *ptr, unsigned long n,
				     bool to_user)
{
}
#endif /* CONFIG_HARDENED_USERCOPY */

#endif /* _LINUX_USERCOPY_CHECK_H */
