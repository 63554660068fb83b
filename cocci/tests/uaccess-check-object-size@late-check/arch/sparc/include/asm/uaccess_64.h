/* What the first sparc64 wiring produced on 3.2-4.1: the check after the
 * declaration that already copied.  The audit must call it UNWIRED. */
unsigned long __must_check ___copy_to_user(void __user *to,
					   const void *from,
					   unsigned long size);
static __always_inline unsigned long __must_check
copy_to_user(void __user *to, const void *from, unsigned long size)
{
	unsigned long ret = ___copy_to_user(to, from, size);

	check_object_size(from, size, true);

	return ret;
}
