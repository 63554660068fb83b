/// SLUB's side of hardened usercopy: __check_heap_object() tells whether a
/// range lies inside one object of a SLUB cache, and names the cache if not.
///
/// Mirrors upstream ed18adc1cdd0 ("mm: SLUB hardened usercopy support",
/// Linux 4.8).  The object slot starts at page_address(page) plus a multiple
/// of s->size; only s->object_size bytes of it are the object (the rest is
/// red zone, tracking data or padding).  Trees whose SLUB has a left red zone
/// (s->red_left_pad, 4.6+) get that step too: the probe rule "left_redzone"
/// looks for it in mm/slub.c itself, not at the version number.
///
/// SLUB before 3.6 calls the object size s->objsize, and before 3.8 links a
/// page to its cache through page->slab: the probe rules "old_objsize" and
/// "old_slab_link" find those spellings in mm/slub.c and the hook uses them.
///
/// The function goes after ksize(), which every SLUB since 2.6.22 has.
///
// Confidence: High
// Options: --no-includes --smpl-spacing
// Targets: mm/slub.c

virtual patch
virtual report

@hook@
position p;
@@
__check_heap_object@p(...) { ... }

@left_redzone@
identifier s;
@@
s->red_left_pad

@old_objsize@
expression E;
@@
E->objsize

@old_slab_link@
expression E;
@@
E->slab

@depends on patch && !hook@
declarer name EXPORT_SYMBOL;
identifier ksize = ksize;
@@
EXPORT_SYMBOL(ksize);
+
+#ifdef CONFIG_HARDENED_USERCOPY
+/*
+ * A copy may cover part of one object, never its metadata or a neighbour.
+ * Returns NULL if [ptr, ptr + n) fits, else the cache name for the report.
+ */
+const char *
+__check_heap_object(const void *ptr, unsigned long n, struct page *page)
+{
+	struct kmem_cache *s = page->slab_cache;
+	unsigned long offset;
+
+	if (ptr < page_address(page))
+		return s->name;
+
+	/* Offset into the object's slot: slots are s->size bytes apart. */
+	offset = (ptr - page_address(page)) % s->size;
+
+	if (offset > s->object_size || n > s->object_size - offset)
+		return s->name;
+	return NULL;
+}
+#endif /* CONFIG_HARDENED_USERCOPY */

@depends on patch && !hook && left_redzone@
identifier s, offset;
expression E;
@@
__check_heap_object(...)
{
...
offset = E % s->size;
+
+	/* With debug red zones the object starts after the left red zone. */
+	if (kmem_cache_debug(s) && s->flags & SLAB_RED_ZONE) {
+		if (offset < s->red_left_pad)
+			return s->name;
+		offset -= s->red_left_pad;
+	}
...
}

@depends on patch && !hook && old_objsize@
identifier s;
@@
__check_heap_object(...)
{
<...
- s->object_size
+ s->objsize
...>
}

@depends on patch && !hook && old_slab_link@
expression P;
@@
__check_heap_object(...)
{
<...
- P->slab_cache
+ P->slab
...>
}

@script:python depends on report && hook@
p << hook.p;
@@
print("audit: wired %s:%s __check_heap_object (SLUB)" % (p[0].file, p[0].line))

@script:python depends on report && !hook@
@@
print("audit: UNWIRED mm/slub.c __check_heap_object (SLUB)")
