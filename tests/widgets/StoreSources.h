#pragma once
// The views read a database through a source of connections, which the app's session makes; a test makes one
// for its own file.
#include <string>

#include "common/StoreSource.h"

namespace tracelight::test {

inline widgets::StoreSource readerOf(const std::string& path) {
    return [path] { return TraceStore::open(path, TraceStore::Mode::ReadOnly); };
}

} // namespace tracelight::test
