/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86 frame walker for hardened usercopy (CONFIG_HAVE_ARCH_WITHIN_STACK_FRAMES).
 *
 * Added by usercopy-backports; upstream keeps this in <asm/thread_info.h>.
 */
#ifndef _ASM_X86_STACK_FRAMES_H
#define _ASM_X86_STACK_FRAMES_H

/*
 * With frame pointers, every frame starts with the caller's saved frame
 * pointer, followed (upwards) by the return address into the caller, and the
 * caller's locals and arguments run from there up to the caller's own saved
 * frame pointer:
 *
 *   low                                                          high
 *   [saved bp][return ip][locals, args of the caller ...][saved bp]...
 *   ^ lower              ^ may be copied                 ^ upper
 *
 * A copy may cover locals and arguments of one frame, never a saved frame
 * pointer or return address, and never stack below the live frames.
 *
 * Must be inlined into mm/usercopy.c's check_stack_object(), which is
 * noinline and called by __check_object_size(): frame 1 is then
 * __check_object_size()'s own and frame 2 the function asking for the copy.
 */
static __always_inline int arch_within_stack_frames(const void * const stack,
						    const void * const stackend,
						    const void *obj,
						    unsigned long len)
{
#ifdef CONFIG_FRAME_POINTER
	const void *lower = __builtin_frame_address(1);
	const void *upper = lower ? __builtin_frame_address(2) : NULL;

	while (upper >= stack && upper < stackend) {
		if (obj + len <= upper) {
			if (obj >= lower + 2 * sizeof(void *))
				return GOOD_FRAME;
			return BAD_STACK;
		}
		lower = upper;
		upper = *(const void * const *)upper;
	}
	return BAD_STACK;
#else
	return NOT_STACK;
#endif
}

#endif /* _ASM_X86_STACK_FRAMES_H */
