#pragma once
// The trace store's schema: the whole of the current version, which a new database is made with, and the
// steps that bring a database an older Tracelight wrote up to it (docs/reference/store-schema.md).
#include <span>

namespace tracelight::schema {

inline constexpr int kVersion = 18;

// Every table, index, view and trigger of version kVersion, in one text.
const char* current();
// Version 1, as the first Tracelight made it: with every migration after it, what current() makes (a test
// holds them to that).
const char* version1();
// Step k takes a database from version k + 1 to k + 2; the last ends at kVersion.
std::span<const char* const> migrations();

} // namespace tracelight::schema
