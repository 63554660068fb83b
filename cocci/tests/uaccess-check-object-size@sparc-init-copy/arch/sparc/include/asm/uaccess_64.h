/* A sparc64 uaccess header shaped like 3.2-4.1: the copy is the
 * initializer of the routine's only declaration. */
unsigned long __must_check ___copy_from_user(void *to,
					     const void __user *from,
					     unsigned long size);
unsigned long copy_from_user_fixup(void *to, const void __user *from,
				   unsigned long size);
static inline unsigned long __must_check
copy_from_user(void *to, const void __user *from, unsigned long size)
{
	unsigned long ret = ___copy_from_user(to, from, size);

	if (unlikely(ret))
		ret = copy_from_user_fixup(to, from, size);

	return ret;
}
#define __copy_from_user copy_from_user

unsigned long __must_check ___copy_to_user(void __user *to,
					   const void *from,
					   unsigned long size);
unsigned long copy_to_user_fixup(void __user *to, const void *from,
				 unsigned long size);
static inline unsigned long __must_check
copy_to_user(void __user *to, const void *from, unsigned long size)
{
	unsigned long ret = ___copy_to_user(to, from, size);

	if (unlikely(ret))
		ret = copy_to_user_fixup(to, from, size);
	return ret;
}
#define __copy_to_user copy_to_user
