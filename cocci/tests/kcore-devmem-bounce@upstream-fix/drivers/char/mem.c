/* Test input: a tree that carries upstream's /dev/mem bounce buffer. */
#include <linux/mm.h>

static ssize_t read_mem(struct file *file, char __user *buf,
			size_t count, loff_t *ppos)
{
	char *bounce = kmalloc(PAGE_SIZE, GFP_KERNEL);
	void *ptr;
	int probe;

	ptr = xlate_dev_mem_ptr(p);
	probe = probe_kernel_read(bounce, ptr, sz);
	unxlate_dev_mem_ptr(p, ptr);
	if (probe)
		return -EFAULT;
	remaining = copy_to_user(buf, bounce, sz);
	kfree(bounce);
	return remaining ? -EFAULT : sz;
}
