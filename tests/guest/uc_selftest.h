/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Interface between the uc_selftest module and the guest init: one ioctl on
 * /dev/uc_selftest runs one case.  Shared by kernel and user space, so only
 * UAPI headers are used.
 */
#ifndef UC_SELFTEST_H
#define UC_SELFTEST_H

#include <linux/ioctl.h>
#include <linux/types.h>

/*
 * The cases, in run order: X(id, name, is_violation).  A violation must be
 * stopped by hardened usercopy; the others are legitimate copies.
 */
#define UC_SELFTEST_CASES(X)						\
	X(UC_SLAB_OVERFLOW_TO_USER, slab_overflow_to_user, 1)		\
	X(UC_SLAB_OVERFLOW_FROM_USER, slab_overflow_from_user, 1)	\
	X(UC_STACK_FRAME_TO_USER, stack_frame_to_user, 1)		\
	X(UC_STACK_FRAME_FROM_USER, stack_frame_from_user, 1)		\
	X(UC_STACK_PAST_END_TO_USER, stack_past_end_to_user, 1)		\
	X(UC_KERNEL_TEXT_TO_USER, kernel_text_to_user, 1)		\
	X(UC_NULL_TO_USER, null_to_user, 1)				\
	X(UC_ZERO_SIZE_PTR_TO_USER, zero_size_ptr_to_user, 1)		\
	X(UC_WRAP_TO_USER, wrap_to_user, 1)				\
	X(UC_SLAB_INBOUNDS_TO_USER, slab_inbounds_to_user, 0)		\
	X(UC_SLAB_INBOUNDS_FROM_USER, slab_inbounds_from_user, 0)	\
	X(UC_STACK_IN_FRAME_TO_USER, stack_in_frame_to_user, 0)		\
	X(UC_STACK_IN_FRAME_FROM_USER, stack_in_frame_from_user, 0)	\
	X(UC_VMALLOC_TO_USER, vmalloc_to_user, 0)			\
	X(UC_MODULE_DATA_TO_USER, module_data_to_user, 0)		\
	X(UC_RODATA_TO_USER, rodata_to_user, 0)				\
	X(UC_CONST_SIZE_TO_USER, const_size_to_user, 0)			\
	X(UC_SLAB_BEFORE_OBJECT_TO_USER, slab_before_object_to_user, 1)	\
	X(UC_TEXT_ALIAS_TO_USER, text_alias_to_user, 1)			\
	X(UC_STACK_HELPER_TO_USER, stack_helper_to_user, 0)		\
	X(UC_STACK_HELPER_FROM_USER, stack_helper_from_user, 0)		\
	X(UC_PAGE_SPAN_TO_USER, page_span_to_user, 0)			\
	X(UC_KMAP_TO_USER, kmap_to_user, 0)				\
	X(UC_PAGE_ALLOC_OVERRUN_TO_USER, page_alloc_overrun_to_user, 1)	\
	X(UC_PAGE_ALLOC_INBOUNDS_TO_USER, page_alloc_inbounds_to_user, 0) \
	UC_SELFTEST_PATH_CASES(X)

/*
 * One violation and one legitimate copy per copy routine: 1024-byte
 * object, copy from offset 16, running 16 bytes past its end or stopping
 * at it.  A routine the kernel lacks makes its cases report "n/a".
 */
#define UC_SELFTEST_PATH_CASES(X)					\
	X(UC_RAW_TO_USER_OVERFLOW, raw_overflow_to_user, 1)		\
	X(UC_RAW_TO_USER_INBOUNDS, raw_inbounds_to_user, 0)		\
	X(UC_RAW_FROM_USER_OVERFLOW, raw_overflow_from_user, 1)		\
	X(UC_RAW_FROM_USER_INBOUNDS, raw_inbounds_from_user, 0)		\
	X(UC_INATOMIC_TO_USER_OVERFLOW, inatomic_overflow_to_user, 1)	\
	X(UC_INATOMIC_TO_USER_INBOUNDS, inatomic_inbounds_to_user, 0)	\
	X(UC_INATOMIC_FROM_USER_OVERFLOW, inatomic_overflow_from_user, 1) \
	X(UC_INATOMIC_FROM_USER_INBOUNDS, inatomic_inbounds_from_user, 0) \
	X(UC_NOCACHE_FROM_USER_OVERFLOW, nocache_overflow_from_user, 1)	\
	X(UC_NOCACHE_FROM_USER_INBOUNDS, nocache_inbounds_from_user, 0)	\
	X(UC_INATOMIC_NOCACHE_FROM_USER_OVERFLOW,			\
	  inatomic_nocache_overflow_from_user, 1)			\
	X(UC_INATOMIC_NOCACHE_FROM_USER_INBOUNDS,			\
	  inatomic_nocache_inbounds_from_user, 0)			\
	X(UC_ITER_TO_USER_OVERFLOW, iter_overflow_to_user, 1)		\
	X(UC_ITER_TO_USER_INBOUNDS, iter_inbounds_to_user, 0)		\
	X(UC_ITER_FROM_USER_OVERFLOW, iter_overflow_from_user, 1)	\
	X(UC_ITER_FROM_USER_INBOUNDS, iter_inbounds_from_user, 0)

#define UC_SELFTEST_ENUM(id, name, violation)	id,
enum uc_selftest_case {
	UC_SELFTEST_CASES(UC_SELFTEST_ENUM)
	UC_NR_CASES
};
#undef UC_SELFTEST_ENUM

/*
 * One request.  buf/len describe a user buffer the case may read or write;
 * it must be large enough for the biggest case (a whole kernel stack plus a
 * little: UC_SELFTEST_BUF_SIZE).
 */
struct uc_selftest_req {
	__u32 test;
	__u32 flags;		/* reserved, must be 0 */
	__u64 buf;
	__u64 len;
};

#define UC_SELFTEST_BUF_SIZE	(64 * 1024)

#define UC_SELFTEST_IOC_RUN	_IOW('u', 0x4c, struct uc_selftest_req)

#endif /* UC_SELFTEST_H */
