/* Rule test input: s390 before 3.15, where the copy routines are inline
 * and dispatch through a table of per-facility implementations.
 */
#ifndef __TEST_S390_UACCESS_H
#define __TEST_S390_UACCESS_H

struct uaccess_ops {
	size_t (*copy_from_user)(size_t, const void __user *, void *);
	size_t (*copy_to_user)(size_t, void __user *, const void *);
};

extern struct uaccess_ops uaccess;

static inline unsigned long __must_check
__copy_to_user(void __user *to, const void *from, unsigned long n)
{
	return uaccess.copy_to_user(n, to, from);
}

#define __copy_to_user_inatomic __copy_to_user
#define __copy_from_user_inatomic __copy_from_user

static inline unsigned long __must_check
copy_to_user(void __user *to, const void *from, unsigned long n)
{
	might_fault();
	return __copy_to_user(to, from, n);
}

static inline unsigned long __must_check
__copy_from_user(void *to, const void __user *from, unsigned long n)
{
	if (__builtin_constant_p(n) && n <= 256)
		return uaccess.copy_from_user(n, from, to);
	return uaccess.copy_from_user(n, from, to);
}

static inline unsigned long __must_check
copy_from_user(void *to, const void __user *from, unsigned long n)
{
	might_fault();
	return __copy_from_user(to, from, n);
}

#endif
