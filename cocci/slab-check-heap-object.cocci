/// SLAB's side of hardened usercopy: __check_heap_object() tells whether a
/// range lies inside one object of a SLAB cache, and names the cache if not.
///
/// Mirrors upstream 04385fc5e8ff ("mm: SLAB hardened usercopy support",
/// Linux 4.8).  SLAB finds the object with its own obj_to_index() and
/// index_to_obj(); obj_offset() skips the debug red zone and caller word in
/// front of the object when SLAB debugging is on.
///
/// Before 3.13 SLAB kept a separate struct slab (page->slab_page) and its
/// helpers take that instead of the page: the probe rule "slab_descriptor"
/// finds that in mm/slab.c and the hook is adapted to it.
///
/// Before 3.7 SLAB had no page->slab_cache either: the cache and the struct
/// slab of a page come from page_get_cache() and page_get_slab(), and the
/// object size from obj_size() (a debug field or the buffer size).  The
/// probe rule "page_helpers" finds page_get_cache() in mm/slab.c.
///
/// The function goes after ksize(), which every SLAB has.
///
// Confidence: High
// Options: --no-includes --smpl-spacing
// Targets: mm/slab.c

virtual patch
virtual report

@hook@
position p;
@@
__check_heap_object@p(...) { ... }

@slab_descriptor@
identifier cache, sd, idx;
type T;
@@
T index_to_obj(struct kmem_cache *cache, struct slab *sd, unsigned int idx)
{ ... }

@page_helpers@
identifier pg;
type T;
@@
T page_get_cache(struct page *pg)
{ ... }

@depends on patch && !hook@
declarer name EXPORT_SYMBOL;
identifier ksize = ksize;
@@
EXPORT_SYMBOL(ksize);
+
+#ifdef CONFIG_HARDENED_USERCOPY
+/*
+ * A copy may cover part of one object, never its debug padding or a
+ * neighbour.  Returns NULL if [ptr, ptr + n) fits, else the cache name.
+ */
+const char *
+__check_heap_object(const void *ptr, unsigned long n, struct page *page)
+{
+	struct kmem_cache *cachep = page->slab_cache;
+	unsigned int objnr;
+	unsigned long offset;
+
+	objnr = obj_to_index(cachep, page, (void *)ptr);
+	if (objnr >= cachep->num)
+		return cachep->name;
+
+	/* Offset into the object proper, past any debug words in front. */
+	offset = ptr - index_to_obj(cachep, page, objnr) - obj_offset(cachep);
+
+	if (offset > cachep->object_size || n > cachep->object_size - offset)
+		return cachep->name;
+	return NULL;
+}
+#endif /* CONFIG_HARDENED_USERCOPY */

@depends on patch && !hook && slab_descriptor@
identifier cachep, objnr;
symbol page;
expression P;
@@
__check_heap_object(...)
{
<...
(
- obj_to_index(cachep, page, P)
+ obj_to_index(cachep, page->slab_page, P)
|
- index_to_obj(cachep, page, objnr)
+ index_to_obj(cachep, page->slab_page, objnr)
)
...>
}

@depends on patch && !hook && page_helpers@
identifier cachep;
symbol page;
@@
__check_heap_object(...)
{
<...
(
- page->slab_cache
+ page_get_cache(page)
|
- page->slab_page
+ page_get_slab(page)
|
- cachep->object_size
+ obj_size(cachep)
)
...>
}

@script:python depends on report && hook@
p << hook.p;
@@
print("audit: wired %s:%s __check_heap_object (SLAB)" % (p[0].file, p[0].line))

@script:python depends on report && !hook@
@@
print("audit: UNWIRED mm/slab.c __check_heap_object (SLAB)")
