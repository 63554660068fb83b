/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers mm/usercopy.c needs that older trees lack.  Each fallback is
 * defined only where the tree does not provide the helper itself, so a tree
 * that carries its own backport keeps its version.
 */
#ifndef _MM_USERCOPY_COMPAT_H
#define _MM_USERCOPY_COMPAT_H

#include <linux/bug.h>
#include <linux/hardirq.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/printk.h>
#include <linux/sched.h>

/* 3.19+: READ_ONCE() and WRITE_ONCE(); ACCESS_ONCE() before. */
#ifndef READ_ONCE
#define READ_ONCE(x)		ACCESS_ONCE(x)
#define WRITE_ONCE(x, val)	(ACCESS_ONCE(x) = (val))
#endif

/* 3.5+: CMA pageblocks; a tree without CMA has none. */
#ifndef is_migrate_cma
#define is_migrate_cma(migratetype) false
#endif

/* 4.5+: is a page in a CMA pageblock? */
#ifndef is_migrate_cma_page
#define is_migrate_cma_page(page) \
	is_migrate_cma(get_pageblock_migratetype(page))
#endif

/*
 * 4.13+ spells this lm_alias(): the linear-map address of a kernel image
 * address.  On arches without a separate image mapping it is the address
 * itself.
 */
#ifdef lm_alias
#define usercopy_lm_alias(x)	((unsigned long)lm_alias(x))
#else
#define usercopy_lm_alias(x)	((unsigned long)__va(__pa(x)))
#endif

/*
 * The physical address of an address already known to lie in the linear
 * map of low memory.  x86-64's __pa() also handles kernel image addresses
 * (a compare and phys_base); in the linear map it is one subtraction.
 */
#ifdef CONFIG_X86_64
#define usercopy_lowmem_pa(addr)	((addr) - PAGE_OFFSET)
#else
#define usercopy_lowmem_pa(addr)	__pa(addr)
#endif

/*
 * A violation ends the offending task through the arch's trapping BUG():
 * the oops path prints the trace, taints, and kills the task.  Where the
 * arch has none (arm64 before 4.2), asm-generic's BUG() panics the whole
 * machine instead; there the task is ended as an oops would end it.
 * (Every such target has the two-argument add_taint() of 3.8 and later.)
 */
#if defined(CONFIG_BUG) && !defined(HAVE_ARCH_BUG)
static inline void __noreturn usercopy_bug(void)
{
	dump_stack();
	if (in_interrupt() || panic_on_oops)
		panic("usercopy: fatal exception");
	add_taint(TAINT_DIE, LOCKDEP_NOW_UNRELIABLE);
	do_exit(SIGKILL);
}
#else
#define usercopy_bug()	BUG()
#endif

/*
 * hardened_usercopy=off as a static key, so that off costs a patched
 * jump: DEFINE_STATIC_KEY_FALSE and static_branch_unlikely() from 4.3,
 * struct static_key from 3.3 (jump labels where the arch has them), a
 * plain flag before.
 */
#include <linux/jump_label.h>
#if defined(DEFINE_STATIC_KEY_FALSE)
#define usercopy_define_off_key(key)	DEFINE_STATIC_KEY_FALSE(key)
#define usercopy_off_key_enabled(key)	static_branch_unlikely(&key)
#define usercopy_enable_off_key(key)	static_branch_enable(&key)
#elif defined(STATIC_KEY_INIT_FALSE)
#define usercopy_define_off_key(key)	struct static_key key = STATIC_KEY_INIT_FALSE
#define usercopy_off_key_enabled(key)	static_key_false(&key)
#define usercopy_enable_off_key(key)	static_key_slow_inc(&key)
#else
#define usercopy_define_off_key(key)	bool key __read_mostly
#define usercopy_off_key_enabled(key)	unlikely(key)
#define usercopy_enable_off_key(key)	(key = true)
#endif

#endif /* _MM_USERCOPY_COMPAT_H */
