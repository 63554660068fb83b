/* Test input: a tree that carries upstream's kcore bounce buffer. */
#include <linux/mm.h>

static ssize_t
read_kcore(struct file *file, char __user *buffer, size_t buflen, loff_t *fpos)
{
	char *buf = kzalloc(PAGE_SIZE, GFP_KERNEL);

	if (kern_addr_valid(start)) {
		if (probe_kernel_read(buf, (void *)start, tsz)) {
			if (clear_user(buffer, tsz))
				return -EFAULT;
		} else {
			if (copy_to_user(buffer, buf, tsz))
				return -EFAULT;
		}
	}
	kfree(buf);
	return 0;
}
