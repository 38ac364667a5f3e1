#include "tracelight/base/PagePopulate.h"

#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace tracelight {

bool populatePagesForWriting(void* data, std::size_t bytes) {
#if defined(__linux__)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14; older headers lack the name
#endif
    const long pageSize = sysconf(_SC_PAGESIZE);
    if (!data || pageSize <= 0) return false;
    const auto page = static_cast<std::uintptr_t>(pageSize);
    // Only whole pages inside the range: the partial ones at its ends fault as usual.
    const auto begin = (reinterpret_cast<std::uintptr_t>(data) + page - 1) / page * page;
    const auto end = (reinterpret_cast<std::uintptr_t>(data) + bytes) / page * page;
    if (end <= begin) return false;
    return madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE) == 0;
#else
    (void)data;
    (void)bytes;
    return false;
#endif
}

} // namespace tracelight
