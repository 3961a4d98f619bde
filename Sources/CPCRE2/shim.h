// PCRE2 for Swift: the 8-bit library. Swift does not import the pcre2_* macros, so call the
// _8-suffixed functions and read the special values through these inline functions.
#ifndef CPCRE2_SHIM_H
#define CPCRE2_SHIM_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

static inline size_t cpcre2_zero_terminated(void) { return PCRE2_ZERO_TERMINATED; }
static inline size_t cpcre2_unset(void) { return PCRE2_UNSET; }
/// Whether a pcre2_match result says a resource limit stopped the match (match, depth, heap or JIT stack).
static inline int cpcre2_is_limit_error(int rc) {
    return rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT || rc == PCRE2_ERROR_HEAPLIMIT || rc == PCRE2_ERROR_JIT_STACKLIMIT;
}

#endif
