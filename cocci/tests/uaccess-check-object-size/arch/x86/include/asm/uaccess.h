/* Test input: the shape of copy_{from,to}_user() in 4.x <asm/uaccess.h>. */
#ifndef _ASM_X86_UACCESS_H
#define _ASM_X86_UACCESS_H

static inline unsigned long __must_check
copy_from_user(void *to, const void __user *from, unsigned long n)
{
	int sz = __compiletime_object_size(to);

	might_fault();
	if (likely(sz < 0 || sz >= n))
		n = _copy_from_user(to, from, n);
	else
		copy_from_user_overflow();
	return n;
}

static inline unsigned long __must_check
copy_to_user(void __user *to, const void *from, unsigned long n)
{
	int sz = __compiletime_object_size(from);

	might_fault();
	if (likely(sz < 0 || sz >= n))
		n = _copy_to_user(to, from, n);
	else
		copy_to_user_overflow();
	return n;
}

/* Both sides are user memory: never wired. */
static inline unsigned long
copy_in_user(void __user *to, const void __user *from, unsigned long n)
{
	return __copy_in_user(to, from, n);
}

#endif
