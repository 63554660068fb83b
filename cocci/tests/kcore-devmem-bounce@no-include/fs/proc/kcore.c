/* Test input: a reader switched to the helper without its header. */
#include <linux/slab.h>

static ssize_t
read_kcore(struct file *file, char __user *buffer, size_t buflen, loff_t *fpos)
{
	size_t tsz;
	unsigned long start;

	if (*fpos < elf_buflen) {
		char *elf_buf = kzalloc(elf_buflen, GFP_ATOMIC);

		if (copy_to_user(buffer, elf_buf + *fpos, tsz)) {
			kfree(elf_buf);
			return -EFAULT;
		}
		kfree(elf_buf);
	}
	while (buflen) {
		if (is_vmalloc_or_module_addr((void *)start)) {
			char *elf_buf = kzalloc(tsz, GFP_KERNEL);

			vread(elf_buf, (char *)start, tsz);
			if (copy_to_user(buffer, elf_buf, tsz)) {
				kfree(elf_buf);
				return -EFAULT;
			}
			kfree(elf_buf);
		} else {
			if (kern_addr_valid(start)) {
				unsigned long n;

				n = copy_to_user_bounced(buffer,
							 (char *)start, tsz);
				if (n) {
					if (clear_user(buffer + tsz - n, n))
						return -EFAULT;
				}
			} else {
				if (clear_user(buffer, tsz))
					return -EFAULT;
			}
		}
		buflen -= tsz;
	}
	return 0;
}
