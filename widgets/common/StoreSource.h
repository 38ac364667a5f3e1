#pragma once
// How a view's background work reads the open database: each call gives a connection of its own (an SQLite
// connection stays with the thread that uses it). The app's session makes it for the database it holds, so
// that no view opens a database by path; empty: no database.
#include <functional>
#include <memory>

#include "tracelight/base/Status.h"
#include "tracelight/store/TraceStore.h"

namespace tracelight::widgets {

using StoreSource = std::function<Result<std::unique_ptr<TraceStore>>()>;

} // namespace tracelight::widgets
