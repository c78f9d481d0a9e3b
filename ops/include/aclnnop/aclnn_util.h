/* ACLNN_API: the export macro CANN's operator headers declare their entry points with. Programs
 * written for CANN use it in their own wrappers, so OpScope's operator headers provide it the same
 * way (through this header, which each of them includes). */
#ifndef OPSCOPE_ACLNNOP_ACLNN_UTIL_H_
#define OPSCOPE_ACLNNOP_ACLNN_UTIL_H_

#ifndef ACLNN_API
#define ACLNN_API __attribute__((visibility("default")))
#endif

#endif /* OPSCOPE_ACLNNOP_ACLNN_UTIL_H_ */
