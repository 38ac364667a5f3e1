#include "tracelight/base/LoadableModule.h"

#include <dlfcn.h>

#include <filesystem>
#include <mutex>
#include <system_error>
#include <vector>

namespace tracelight {

namespace {

std::filesystem::path directoryOfThisLibrary() {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&moduleSymbol), &info) == 0 || !info.dli_fname) return {};
    return std::filesystem::path(info.dli_fname).parent_path();
}

} // namespace

Result<void*> moduleSymbol(const std::string& name, const char* symbol) {
    static std::mutex loading;  // dlopen is thread-safe; this keeps the search and its message together
    const std::lock_guard lock(loading);
    const std::string file = "lib" + name + ".so";
    std::error_code ec;
    std::vector<std::filesystem::path> candidates;
    if (auto program = std::filesystem::read_symlink("/proc/self/exe", ec); !ec) candidates.push_back(program.parent_path() / file);
    if (auto core = directoryOfThisLibrary(); !core.empty()) candidates.push_back(core / file);
    candidates.emplace_back(file);  // the loader's search path
    std::string why;
    for (const auto& candidate : candidates) {
        if (candidate.has_parent_path() && !std::filesystem::exists(candidate, ec)) continue;
        // RTLD_NOW: a module missing a symbol fails here, with its name, not at its first call.
        void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            const char* error = dlerror();
            why = error ? error : "unknown error";
            continue;
        }
        dlerror();
        void* address = dlsym(handle, symbol);
        if (!address) return Status::error("the module " + candidate.string() + " has no entry " + symbol);
        return address;
    }
    return Status::error("cannot load the module " + file + " (it is built beside tracelight-cli and the core library): " +
                         (why.empty() ? "not found" : why));
}

} // namespace tracelight
