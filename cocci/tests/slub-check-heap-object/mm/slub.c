/* Test input: the part of mm/slub.c the rule anchors on (no left red zone). */
#include <linux/slab.h>

size_t ksize(const void *object)
{
	size_t size = __ksize(object);

	kasan_krealloc(object, size);
	return size;
}
EXPORT_SYMBOL(ksize);

void kfree(const void *x)
{
	struct page *page;

	if (unlikely(ZERO_OR_NULL_PTR(x)))
		return;
	page = virt_to_head_page(x);
	slab_free(page->slab_cache, page, (void *)x, _RET_IP_);
}
EXPORT_SYMBOL(kfree);
