/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers mm/usercopy.c needs that older trees lack.  Each fallback is
 * defined only where the tree does not provide the helper itself, so a tree
 * that carries its own backport keeps its version.
 */
#ifndef _MM_USERCOPY_COMPAT_H
#define _MM_USERCOPY_COMPAT_H

#include <linux/mm.h>
#include <linux/mmzone.h>

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

#endif /* _MM_USERCOPY_COMPAT_H */
