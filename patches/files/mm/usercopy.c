// SPDX-License-Identifier: GPL-2.0
/*
 * Hardened usercopy: check the kernel side of copy_{to,from}_user().
 *
 * A copy whose length comes from a bug elsewhere would leak or overwrite
 * kernel memory.  Before any data moves, the kernel range is checked against
 * what it claims to be: a heap object, a stack frame, or at least not NULL,
 * not wrapping and not kernel text.  A violation is reported and the offending
 * process is killed with BUG().
 *
 * Written for usercopy-backports from the behaviour of Linux 4.8's
 * mm/usercopy.c (itself derived from PaX USERCOPY); the checks, their order
 * and the report format follow upstream so that logs and configs carry over.
 * One later check is here too: the bound of a compound page (6.0).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/export.h>
#include <linux/init.h>
#include <linux/mm.h>
#include <linux/ratelimit.h>
#include <linux/slab.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/usercopy_check.h>
#include <asm/sections.h>

#include "usercopy_compat.h"

static bool overlaps(const void *ptr, unsigned long n,
		     unsigned long low, unsigned long high)
{
	unsigned long start = (unsigned long)ptr;

	return start < high && start + n > low;
}

/* NULL, ZERO_SIZE_PTR and ranges that wrap are never valid. */
static const char *check_bogus_address(const void *ptr, unsigned long n)
{
	if ((unsigned long)ptr + (n - 1) < (unsigned long)ptr)
		return "<wrapped address>";
	if (ZERO_OR_NULL_PTR(ptr))
		return "<null>";
	return NULL;
}

/*
 * Does [obj, obj + len) touch the task's stack at all?  Inline: most copies
 * do not, and they should not pay for a call to find that out.
 */
static __always_inline bool touches_stack(const void *obj, unsigned long len)
{
	unsigned long stack = (unsigned long)task_stack_page(current);
	unsigned long last = (unsigned long)obj + len - 1;

	/*
	 * last >= stack && obj < stack + THREAD_SIZE, as one compare: for a
	 * range below the stack last - stack wraps past the bound.  Needs
	 * len > 0 and a range that does not wrap, checked before.
	 */
	return last - stack < THREAD_SIZE + len - 1;
}

static noinline void report_usercopy(const void *ptr, unsigned long len,
				     bool to_user, const char *type);

/*
 * For a range that touches the stack: it must lie inside it, and inside one
 * frame where the arch can tell.  Noinline on purpose and called straight
 * from __check_object_size(): the arch frame walker counts frames from here
 * (see arch_within_stack_frames()).
 */
static noinline void check_stack_object(const void *obj, unsigned long len,
					bool to_user)
{
	const void * const stack = task_stack_page(current);
	const void * const stackend = stack + THREAD_SIZE;

	/* Starts on the stack but runs off it, or the other way round. */
	if (obj < stack || obj + len > stackend ||
	    arch_within_stack_frames(stack, stackend, obj, len) == BAD_STACK)
		report_usercopy(obj, len, to_user, "<process stack>");
}

/*
 * Outside slab, a copy may not run from one page allocation into another
 * (off by default: the kernel still has too many legitimate multi-page
 * copies from memory that is not one compound page).
 */
static const char *check_page_span(const void *ptr, unsigned long n,
				   struct page *page, bool to_user)
{
#ifdef CONFIG_HARDENED_USERCOPY_PAGESPAN
	const void *end = ptr + n - 1;
	struct page *endpage;
	bool is_reserved, is_cma;

	/* The kernel image's rodata may be read, never written. */
	if (ptr >= (const void *)__start_rodata &&
	    end < (const void *)__end_rodata)
		return to_user ? NULL : "<rodata>";

	/* The kernel image's data and bss are one allocation each. */
	if (ptr >= (const void *)_sdata && end < (const void *)_edata)
		return NULL;
	if (ptr >= (const void *)__bss_start && end < (const void *)__bss_stop)
		return NULL;

	if (((unsigned long)ptr & PAGE_MASK) == ((unsigned long)end & PAGE_MASK))
		return NULL;

	/* One compound page: one allocation. */
	endpage = virt_to_head_page(end);
	if (likely(endpage == page))
		return NULL;

	/* Reserved or CMA ranges are fine if every page is of that kind. */
	is_reserved = PageReserved(page);
	is_cma = is_migrate_cma_page(page);
	if (!is_reserved && !is_cma)
		return "<spans multiple pages>";

	for (ptr += PAGE_SIZE; ptr <= end; ptr += PAGE_SIZE) {
		page = virt_to_head_page(ptr);
		if (is_reserved && !PageReserved(page))
			return "<spans Reserved and non-Reserved pages>";
		if (is_cma && !is_migrate_cma_page(page))
			return "<spans CMA and non-CMA pages>";
	}
#endif
	return NULL;
}

/*
 * A compound page is one allocation (a large kmalloc() on SLUB, a
 * __GFP_COMP page allocation): a copy that starts in it must end in it.
 * Mainline checks this from 6.0 ("page alloc"); PAGE_SIZE << order is
 * what was allocated, so a copy past it reads or writes its neighbour.
 * PAGE is the head page.
 */
static const char *check_page_alloc(const void *ptr, unsigned long n,
				    struct page *page)
{
	unsigned long offset = ptr - page_address(page);

	if (n > (PAGE_SIZE << compound_order(page)) - offset)
		return "<page alloc>";
	return NULL;
}

static const char *check_heap_object(const void *ptr, unsigned long n,
				     bool to_user)
{
	struct page *page;

	/* vmalloc and module memory are not checked here. */
	if (is_vmalloc_or_module_addr(ptr))
		return NULL;

	if (!virt_addr_valid(ptr))
		return NULL;

	page = virt_to_head_page(ptr);
	if (PageSlab(page))
		return __check_heap_object(ptr, n, page);
	if (PageHead(page))
		return check_page_alloc(ptr, n, page);

	return check_page_span(ptr, n, page, to_user);
}

/*
 * Kernel text, and its alias in the linear map where it has one.  Some
 * arches (arm64 before 4.5) put .rodata before _etext: text then ends
 * where rodata starts, or every copy of a constant string would be refused.
 * The bounds never change: computed on the first check, not on every one
 * (__pa() and __va() of the image cost some 20 instructions a copy).
 *
 * lm_low and lm_high bound what of the text the linear map of low memory
 * holds, for the fast path in __check_object_size(): the alias where the
 * image has one outside that map, the text itself where the image is part
 * of it, both where the arch has both in it.  Until the bounds are known
 * they cover everything, so every copy takes the full check (which finds
 * them); a reader that sees one bound old and one new sees a range that
 * still holds the text, so no barrier is needed there.
 */
static unsigned long text_low __read_mostly, text_high __read_mostly;
static unsigned long alias_low __read_mostly, alias_high __read_mostly;
static unsigned long lm_low __read_mostly;
static unsigned long lm_high __read_mostly = ULONG_MAX;
static bool text_known __read_mostly;

static bool in_lowmem(unsigned long low, unsigned long high)
{
	return low < (unsigned long)high_memory && high > PAGE_OFFSET;
}

static noinline void find_kernel_text(void)
{
	unsigned long low = (unsigned long)_stext;
	unsigned long high = (unsigned long)_etext;
	unsigned long rodata = (unsigned long)__start_rodata;
	unsigned long lo, hi;

	if (rodata > low && rodata < high)
		high = rodata;
	text_low = low;
	text_high = high;
	alias_low = (unsigned long)usercopy_lm_alias(low);
	alias_high = (unsigned long)usercopy_lm_alias(high - 1) + 1;
	if (alias_low == low)
		alias_low = alias_high = 0;	/* no alias: an empty range */

	/* The part of [text] and [alias] the fast path can meet. */
	lo = ULONG_MAX;
	hi = 0;
	if (in_lowmem(text_low, text_high)) {
		lo = text_low;
		hi = text_high;
	}
	if (alias_high && in_lowmem(alias_low, alias_high)) {
		lo = min(lo, alias_low);
		hi = max(hi, alias_high);
	}
	if (lo >= hi)
		lo = hi = 0;		/* none: an empty range */
	/*
	 * Before the arch has set high_memory nothing is low memory yet:
	 * leave the fast path's range covering everything and look again
	 * on the next check.
	 */
	if (!high_memory)
		return;
	smp_wmb();	/* the bounds before the flag: see the read below */
	text_known = true;
	WRITE_ONCE(lm_low, lo);
	WRITE_ONCE(lm_high, hi);
}

static const char *check_kernel_text_object(const void *ptr, unsigned long n)
{
	if (unlikely(!text_known))
		find_kernel_text();
	else
		smp_rmb();	/* pairs with find_kernel_text()'s smp_wmb() */

	if (overlaps(ptr, n, text_low, text_high))
		return "<kernel text>";
	if (overlaps(ptr, n, alias_low, alias_high))
		return "<linear kernel text>";

	return NULL;
}

/*
 * hardened_usercopy= on the kernel command line: "on" (the default; also
 * 1, y), "off" (0, n: no check at all), or "warn": report a violation,
 * rate-limited, and let the copy go on, for a staged rollout.  Upstream
 * (4.17) has on and off; warn is usercopy-backports'.
 */
enum { USERCOPY_ON, USERCOPY_OFF, USERCOPY_WARN };
static int usercopy_mode __read_mostly = USERCOPY_ON;
static usercopy_define_off_key(usercopy_off);

static int __init parse_hardened_usercopy(char *str)
{
	if (!strcmp(str, "on") || !strcmp(str, "1") || !strcmp(str, "y"))
		usercopy_mode = USERCOPY_ON;
	else if (!strcmp(str, "off") || !strcmp(str, "0") || !strcmp(str, "n"))
		usercopy_mode = USERCOPY_OFF;
	else if (!strcmp(str, "warn"))
		usercopy_mode = USERCOPY_WARN;
	else
		pr_warn("hardened_usercopy=%s: use on, off or warn; staying %s\n",
			str, usercopy_mode == USERCOPY_OFF ? "off" :
			usercopy_mode == USERCOPY_WARN ? "warn" : "on");
	return 1;
}
__setup("hardened_usercopy=", parse_hardened_usercopy);

/* Static keys cannot be switched while the command line is parsed. */
static int __init set_hardened_usercopy(void)
{
	if (usercopy_mode == USERCOPY_OFF)
		usercopy_enable_off_key(usercopy_off);
	pr_info("checks %s\n", usercopy_mode == USERCOPY_OFF ? "disabled" :
		usercopy_mode == USERCOPY_WARN ? "warn only" : "enabled");
	return 0;
}
late_initcall(set_hardened_usercopy);

static noinline void report_usercopy(const void *ptr, unsigned long len,
			    bool to_user, const char *type)
{
	if (usercopy_mode == USERCOPY_WARN) {
		pr_warn_ratelimited("kernel memory %s attempt detected %s %p (%s) (%lu bytes) (warn only)\n",
				    to_user ? "exposure" : "overwrite",
				    to_user ? "from" : "to", ptr,
				    type ? : "unknown", len);
		return;
	}
	pr_emerg("kernel memory %s attempt detected %s %p (%s) (%lu bytes)\n",
		 to_user ? "exposure" : "overwrite",
		 to_user ? "from" : "to", ptr, type ? : "unknown", len);
	/* BUG() runs the arch's oops path: lock breaking, kill, taint. */
	usercopy_bug();
}

static noinline void report_bogus_address(const void *ptr, unsigned long n,
					  bool to_user)
{
	report_usercopy(ptr, n, to_user, check_bogus_address(ptr, n));
}

/* The heap and text checks, for what the fast filter cannot prove. */
static noinline void check_heap_and_text(const void *ptr, unsigned long n,
					 bool to_user)
{
	const char *err;

	err = check_heap_object(ptr, n, to_user);
	if (!err)
		err = check_kernel_text_object(ptr, n);
	if (err)
		report_usercopy(ptr, n, to_user, err);
}

static noinline void check_slab_object(const void *ptr, unsigned long n,
				       bool to_user, struct page *page)
{
	const char *err = __check_heap_object(ptr, n, page);

	if (err)
		report_usercopy(ptr, n, to_user, err);
}

static noinline void check_compound_page(const void *ptr, unsigned long n,
					 bool to_user, struct page *page)
{
	const char *err = check_page_alloc(ptr, n, page);

	if (err)
		report_usercopy(ptr, n, to_user, err);
}

/*
 * Called through check_object_size() by the uaccess routines, before any
 * data moves.  Returns only if the copy is allowed (or the mode is warn).
 *
 * The checks run in upstream's order: bogus address, stack, heap, kernel
 * text.  The common copy, to or from a page or slab object, passes without
 * a call but the allocator's: the code proves inline that the range lies
 * in the linear map of low memory, [PAGE_OFFSET, high_memory), and starts
 * in a valid page, and hands anything else to the full heap and text
 * checks.  No vmalloc or module address lies in that part of the linear
 * map, and there every arch's virt_addr_valid() is pfn_valid() of the page
 * frame, so the heap check would see the very page this code sees.  A slab
 * object or a compound page that holds the range overlaps neither text nor
 * its alias; other pages are compared with the one text range that part
 * of the map can hold (lm_low, lm_high).  Every call past the tests is in
 * tail position: the fast path saves no registers.
 */
void __check_object_size(const void *ptr, unsigned long n, bool to_user)
{
	unsigned long addr = (unsigned long)ptr;
	unsigned long pfn;
	struct page *page;

	if (usercopy_off_key_enabled(usercopy_off))
		return;

	if (!n)
		return;

	if (unlikely(addr + (n - 1) < addr || ZERO_OR_NULL_PTR(ptr))) {
		report_bogus_address(ptr, n, to_user);
		return;
	}

	if (unlikely(touches_stack(ptr, n))) {
		check_stack_object(ptr, n, to_user);
		return;
	}

	if (unlikely(addr < PAGE_OFFSET ||
		     addr + n > (unsigned long)high_memory))
		goto slow;
	pfn = usercopy_lowmem_pa(addr) >> PAGE_SHIFT;
	if (unlikely(!pfn_valid(pfn)))
		goto slow;

	/* virt_to_head_page(), from the frame number already at hand. */
	page = compound_head(pfn_to_page(pfn));
	if (PageSlab(page)) {
		check_slab_object(ptr, n, to_user, page);
		return;
	}
	/* Neither text nor its alias is ever part of a compound page. */
	if (unlikely(PageHead(page))) {
		check_compound_page(ptr, n, to_user, page);
		return;
	}

	if (IS_ENABLED(CONFIG_HARDENED_USERCOPY_PAGESPAN))
		goto slow;
	if (likely(!overlaps(ptr, n, READ_ONCE(lm_low), READ_ONCE(lm_high))))
		return;
slow:
	check_heap_and_text(ptr, n, to_user);
}
EXPORT_SYMBOL(__check_object_size);
