#pragma once
// render's arguments, as the command line parses them (RenderCommand.cpp) and the module that draws them
// takes them (RenderModule.cpp, libtracelight_render.so: Qt's libraries are loaded only for render).
#include <string>
#include <vector>

#include "tracelight/base/Status.h"

namespace tracelight {
class TraceStore;
}

namespace tracelight::cli {

struct RenderArgs {
    std::string view, db, out, request;
    int width = 1400, height = 800;
    bool local = false;
    bool services = false, operations = false;
    std::vector<std::string> expand;
};

// The module's entry, by the name "tracelight_render": the view drawn from the open database into args.out
// (its "wrote FILE" line on stderr), or why not in `out`.
using RenderEntry = void (*)(const RenderArgs& args, const TraceStore& store, Status& out);

} // namespace tracelight::cli
