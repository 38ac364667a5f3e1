#pragma once
// Host-activity files (docs/user/input-formats.md, "Host activity"): one record per row of what ran on a host
// beside the traced requests — a CSV with a header (host, what, start_us or start_ns, end_us or end_ns or
// duration_us or duration_ns, optional request and span), or JSON lines with the same keys. A row whose request
// names a request (its id as imported: the trace id) is that request's own low-level work.
#include <string>
#include <vector>

#include "tracelight/base/Status.h"
#include "tracelight/bottleneck/HostActivity.h"

namespace tracelight {

// Reads a whole file (CSV, or JSON lines when its first non-blank character is '{'); an error names the file
// and the line ("FILE:LINE: what is wrong") and nothing of the file is returned.
Result<std::vector<HostActivityInput>> readHostActivityFile(const std::string& path);

} // namespace tracelight
