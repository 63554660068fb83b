/* Test input: /dev/mem's reader, 3.2-4.4 shape. */
#include <linux/mm.h>
#include <linux/usercopy_bounce.h>
#include <linux/miscdevice.h>

static ssize_t read_mem(struct file *file, char __user *buf,
			size_t count, loff_t *ppos)
{
	phys_addr_t p = *ppos;
	ssize_t read = 0, sz;
	void *ptr;

	while (count > 0) {
		unsigned long remaining;

		sz = size_inside_page(p, count);
		ptr = xlate_dev_mem_ptr(p);
		if (!ptr)
			return -EFAULT;

		remaining = copy_to_user_bounced(buf, ptr, sz);
		unxlate_dev_mem_ptr(p, ptr);
		if (remaining)
			return -EFAULT;
		buf += sz;
		p += sz;
		count -= sz;
		read += sz;
	}
	*ppos += read;
	return read;
}

static ssize_t read_kmem(struct file *file, char __user *buf,
			 size_t count, loff_t *ppos)
{
	char *kbuf = (char *)(unsigned long)*ppos;

	if (copy_to_user(buf, kbuf, count))
		return -EFAULT;
	return count;
}
