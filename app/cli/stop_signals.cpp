#include "stop_signals.h"

#include <csignal>

namespace opscope::cli {
namespace {

volatile std::sig_atomic_t gStopSignal = 0;
extern "C" void onStopSignal(int sig) { gStopSignal = sig; }

}  // namespace

StopSignals::StopSignals() {
    gStopSignal = 0;
    struct sigaction sa {};
    sa.sa_handler = onStopSignal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &oldInt_);
    sigaction(SIGTERM, &sa, &oldTerm_);
}

StopSignals::~StopSignals() {
    sigaction(SIGINT, &oldInt_, nullptr);
    sigaction(SIGTERM, &oldTerm_, nullptr);
}

int StopSignals::received() { return static_cast<int>(gStopSignal); }

void StopSignals::dieOfReceived() {
    const int sig = received();
    if (sig == 0) return;
    signal(sig, SIG_DFL);
    raise(sig);
}

}  // namespace opscope::cli
