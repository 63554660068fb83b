/* Test input: the shape of <linux/thread_info.h> in 3.x/4.x trees. */
#ifndef _LINUX_THREAD_INFO_H
#define _LINUX_THREAD_INFO_H

#include <linux/types.h>
#include <linux/bug.h>

struct timespec;

#include <linux/bitops.h>
#include <asm/thread_info.h>

#ifdef __KERNEL__
static inline void set_ti_thread_flag(struct thread_info *ti, int flag)
{
	set_bit(flag, (unsigned long *)&ti->flags);
}
#endif

#endif /* _LINUX_THREAD_INFO_H */
