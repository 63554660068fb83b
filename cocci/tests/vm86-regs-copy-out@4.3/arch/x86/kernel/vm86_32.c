/* Test input: i386 vm86 from 4.3 copies out field by field: n/a. */
static void save_v86_state(struct kernel_vm86_regs *regs, int retval)
{
	struct vm86plus_struct __user *user = current->thread.vm86->user_vm86;

	put_user_try {
		put_user_ex(regs->pt.bx, &user->regs.ebx);
	} put_user_catch(err);
}
