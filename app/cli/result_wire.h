// How a worker of 'run --jobs' hands a case result to its parent: a binary record of every field
// of ops::CaseResult (metrics through the metric and element field tables, like the JSON
// report), so the parent decodes 2,000 results in milliseconds instead of parsing 20 MB of JSON.
// Both ends are the same executable: no versioning. The JSON report stays the file format; a
// test checks that a result through this wire writes the same report JSON as the original.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "opscope/ops/case_runner.h"

namespace opscope::cli {

// Appends one frame: the payload's length (8 bytes) and the payload.
void appendResultFrame(std::string& out, std::size_t order, const ops::CaseResult& r);

// A case's result and its position among all the cases of the run (before --shard).
struct OrderedResult {
    std::size_t order = 0;
    ops::CaseResult result;
};

// Decodes every complete frame at the front of `bytes` into `out`; returns how many bytes they
// took (the caller keeps the rest for when more arrives). Throws CliError for a malformed frame.
std::size_t takeResultFrames(const std::string& bytes, std::vector<OrderedResult>& out);

}  // namespace opscope::cli
