// The one progress report of the CLI's long commands (run, import, compare of two checkpoints):
// "[done/total] what" on stderr, rewritten in place on a terminal; elsewhere (a log, CI) printed
// only when asked (--progress), a line every `every` steps and at the end.
#pragma once

#include <cstddef>
#include <string>

#include "args.h"

namespace opscope::cli {

class ProgressLine {
public:
    // Shown on a terminal, or when the command has --progress.
    ProgressLine(const ParsedArgs& a, std::size_t every);
    ~ProgressLine() { clear(); }
    ProgressLine(const ProgressLine&) = delete;
    ProgressLine& operator=(const ProgressLine&) = delete;

    bool enabled() const { return enabled_; }
    void step(std::size_t done, std::size_t total, const std::string& what);
    // Wipes the line on a terminal, before the command prints its results or an error.
    void clear();

private:
    bool enabled_, tty_;
    std::size_t every_;
    bool shown_ = false;
};

}  // namespace opscope::cli
