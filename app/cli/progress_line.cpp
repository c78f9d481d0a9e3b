#include "progress_line.h"

#include <iostream>

#include "cli_common.h"

namespace opscope::cli {

ProgressLine::ProgressLine(const ParsedArgs& a, std::size_t every)
    : enabled_(a.has("--progress") || stderrIsTerminal()), tty_(stderrIsTerminal()), every_(every ? every : 1) {}

void ProgressLine::step(std::size_t done, std::size_t total, const std::string& what) {
    if (!enabled_) return;
    const std::string line = "[" + std::to_string(done) + "/" + std::to_string(total) + "] " + what;
    if (tty_) {
        std::cerr << "\r\033[K" << line << std::flush;
        shown_ = true;
    } else if (done == total || done % every_ == 0) {
        std::cerr << line << "\n";
    }
}

void ProgressLine::clear() {
    if (shown_) std::cerr << "\r\033[K" << std::flush;
    shown_ = false;
}

}  // namespace opscope::cli
