/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hardened usercopy: copies out of kernel memory that a reader names by
 * address.
 *
 * Added by usercopy-backports.  /proc/kcore and /dev/mem hand root any
 * kernel address it asks for, kernel text and its linear-map alias
 * included, and copied it with copy_to_user() straight from that address.
 * The hardened usercopy check refuses such a copy (kernel text, or a range
 * that crosses slab objects), so `gdb vmlinux /proc/kcore`, crash, drgn and
 * perf were killed.  Upstream met the same and reads through a bounce
 * buffer since "fs/proc/kcore.c: Add bounce buffer for ktext data" (4.11)
 * and "/dev/mem: Add bounce buffer for copy-out" (4.16); so do these
 * backports (cocci/kcore-devmem-bounce.cocci calls this).  Every other
 * copy keeps the check: the bounce buffer is an ordinary page.
 */
#ifndef _LINUX_USERCOPY_BOUNCE_H
#define _LINUX_USERCOPY_BOUNCE_H

#include <linux/gfp.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/uaccess.h>

/**
 * copy_to_user_bounced - copy kernel memory named by address to user space
 * @to: destination in user space
 * @from: kernel address the reader asked for
 * @n: bytes to copy
 *
 * @from is read with probe_kernel_read() a page at a time into a page of
 * its own, which copy_to_user() then copies out: a hole in the kernel
 * mapping ends the copy instead of faulting, as a fault on the source of
 * copy_to_user() did.
 *
 * Return: the number of bytes not copied, as copy_to_user().
 */
static inline unsigned long copy_to_user_bounced(void __user *to,
						 const void *from,
						 unsigned long n)
{
	unsigned long done = 0, chunk, left;
	void *bounce;

	if (!n)
		return 0;
	bounce = (void *)__get_free_page(GFP_KERNEL);
	if (!bounce)
		return n;
	while (done < n) {
		chunk = min_t(unsigned long, n - done, PAGE_SIZE);
		if (probe_kernel_read(bounce, (const char *)from + done, chunk))
			break;
		left = copy_to_user((char __user *)to + done, bounce, chunk);
		done += chunk - left;
		if (left)
			break;
	}
	free_page((unsigned long)bounce);
	return n - done;
}

#endif /* _LINUX_USERCOPY_BOUNCE_H */
