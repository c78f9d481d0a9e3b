// opscope-cli compare A B where A and B are sets of named tensors: two files of several tensors
// (checkpoints, state dicts) or two HDF5 groups (checkpoints saved with h5py or Keras), in any
// mix. Every key of either set is one comparison.
#pragma once

#include <optional>
#include <string>

#include "args.h"
#include "opscope/metrics.h"
#include "opscope/ops/tensor_sets.h"

namespace opscope::cli {

// The set `spec` names: a tensor file (no :KEY) of more than one tensor, or FILE.h5:/group (every
// numeric dataset below it, keyed by its path under the group; the file vetted once). Nothing
// when `spec` names one tensor. Throws CliError for a file it cannot list.
std::optional<ops::TensorSet> tensorSetOf(const std::string& spec);

// Compares the two sets key by key (ops::compareTensorSets: two tensors in memory at a time, a
// checkpoint is never held whole) and prints the table or --json. A key one set lacks, or a pair
// that cannot be compared (dtype or element count), is not judged and fails the run, as does any
// failing tensor. Returns the exit code.
int compareTensorSets(const ParsedArgs& a, const ops::TensorSet& actual, const ops::TensorSet& reference,
                      const metrics::Standard& standard);

}  // namespace opscope::cli
