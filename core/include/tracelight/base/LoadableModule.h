#pragma once
// Parts that few commands need are built as modules of their own and loaded when one of those commands runs:
// the offscreen renderer (Qt's widget libraries) and the OTLP/gRPC receiver (gRPC's). Linked into every program,
// their libraries were loaded and bound at every start: about 25 ms of CPU, most of what opening a small trace
// file took before its reading began.
#include <string>

#include "tracelight/base/Status.h"

namespace tracelight {

// The address of `symbol` in the module lib<name>.so, loaded on first use and kept for the life of the process
// (objects it made may outlive any caller). Looked for beside the running program, then beside the core
// library, then on the dynamic loader's own path.
Result<void*> moduleSymbol(const std::string& name, const char* symbol);

} // namespace tracelight
