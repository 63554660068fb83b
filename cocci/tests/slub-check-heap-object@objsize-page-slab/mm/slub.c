/* Test input: SLUB before 3.6/3.8, with s->objsize and page->slab. */
#include <linux/slab.h>

size_t ksize(const void *object)
{
	struct page *page;

	if (unlikely(object == ZERO_SIZE_PTR))
		return 0;
	page = virt_to_head_page(object);
	return slab_ksize(page->slab);
}
EXPORT_SYMBOL(ksize);

static size_t slab_ksize(const struct kmem_cache *s)
{
	return s->objsize;
}
