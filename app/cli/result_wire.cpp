#include "result_wire.h"

#include <cstdint>
#include <cstring>

#include "cli_common.h"
#include "opscope/metric_fields.h"

namespace opscope::cli {
namespace {

class Encoder {
public:
    explicit Encoder(std::string& out) : out_(out) {}
    void raw(const void* p, std::size_t n) { out_.append(static_cast<const char*>(p), n); }
    void u64(uint64_t v) { raw(&v, sizeof v); }
    void i64(int64_t v) { raw(&v, sizeof v); }
    void f64(double v) { raw(&v, sizeof v); }
    void flag(bool v) { out_.push_back(v ? 1 : 0); }
    void str(const std::string& s) {
        u64(s.size());
        raw(s.data(), s.size());
    }
    void ints(const std::vector<int64_t>& v) {
        u64(v.size());
        for (int64_t x : v) i64(x);
    }
    void strs(const std::vector<std::string>& v) {
        u64(v.size());
        for (const std::string& s : v) str(s);
    }

private:
    std::string& out_;
};

// Reads a frame's payload; every read checks the bytes left, so a short or corrupt frame is an
// error, never a read past the end.
class Decoder {
public:
    Decoder(const char* p, std::size_t n) : p_(p), end_(p + n) {}
    void raw(void* dst, std::size_t n) {
        if (static_cast<std::size_t>(end_ - p_) < n) throw CliError("a worker sent a truncated case result");
        std::memcpy(dst, p_, n);
        p_ += n;
    }
    uint64_t u64() { return get<uint64_t>(); }
    int64_t i64() { return get<int64_t>(); }
    double f64() { return get<double>(); }
    bool flag() { return get<char>() != 0; }
    // A length of `unit`-byte items: never more than the bytes left could hold.
    std::size_t count(std::size_t unit = 1) {
        const uint64_t n = u64();
        if (n > static_cast<uint64_t>(end_ - p_) / unit) throw CliError("a worker sent a malformed case result");
        return static_cast<std::size_t>(n);
    }
    std::string str() {
        std::string s(count(), '\0');
        raw(s.data(), s.size());
        return s;
    }
    std::vector<int64_t> ints() {
        std::vector<int64_t> v(count(sizeof(int64_t)));
        for (int64_t& x : v) x = i64();
        return v;
    }
    std::vector<std::string> strs() {
        const std::size_t n = count();
        std::vector<std::string> v;
        for (std::size_t i = 0; i < n; ++i) v.push_back(str());
        return v;
    }
    bool atEnd() const { return p_ == end_; }

private:
    template <class T>
    T get() {
        T v;
        raw(&v, sizeof v);
        return v;
    }
    const char* p_;
    const char* end_;
};

void encodeMetrics(Encoder& e, const metrics::ComparisonMetrics& m) {
    e.i64(static_cast<int64_t>(m.outputDtype));
    e.ints(m.shape);
    for (const metrics::MetricField& f : metrics::metricFields()) {
        const std::optional<double> v = f.value(m);
        e.flag(v.has_value());
        e.f64(v.value_or(0));
    }
    for (const metrics::ElementField& f : metrics::elementFields()) {
        const metrics::ElementRef& r = f.element(m);
        e.i64(r.index);
        e.ints(r.coords);
        for (double v : {r.actual, r.reference, r.absError, r.relError}) e.f64(v);
    }
}

metrics::ComparisonMetrics decodeMetrics(Decoder& d) {
    metrics::ComparisonMetrics m;
    m.outputDtype = static_cast<DType>(d.i64());
    m.shape = d.ints();
    for (const metrics::MetricField& f : metrics::metricFields()) {
        const bool applies = d.flag();
        const double v = d.f64();
        if (applies) f.set(m, v);
    }
    for (const metrics::ElementField& f : metrics::elementFields()) {
        metrics::ElementRef& r = f.elementToSet(m);
        r.index = d.i64();
        r.coords = d.ints();
        for (double* v : {&r.actual, &r.reference, &r.absError, &r.relError}) *v = d.f64();
    }
    return m;
}

void encodeComparison(Encoder& e, const ops::Comparison& c) {
    for (const std::string* s :
         {&c.output, &c.actual, &c.reference, &c.note, &c.judgement.standard, &c.judgement.reason})
        e.str(*s);
    e.flag(c.compared);
    e.flag(c.judged);
    e.i64(static_cast<int64_t>(c.judgement.verdict));
    encodeMetrics(e, c.metrics);
}

ops::Comparison decodeComparison(Decoder& d) {
    ops::Comparison c;
    for (std::string* s : {&c.output, &c.actual, &c.reference, &c.note, &c.judgement.standard, &c.judgement.reason})
        *s = d.str();
    c.compared = d.flag();
    c.judged = d.flag();
    const int64_t verdict = d.i64();
    if (verdict < 0 || verdict > static_cast<int64_t>(metrics::Verdict::Fail))
        throw CliError("a worker sent a malformed case result");
    c.judgement.verdict = static_cast<metrics::Verdict>(verdict);
    c.metrics = decodeMetrics(d);
    return c;
}

void encodeResult(Encoder& e, std::size_t order, const ops::CaseResult& r) {
    e.u64(order);
    for (const std::string* s : {&r.file, &r.path, &r.op, &r.origin, &r.description, &r.standard, &r.error}) e.str(*s);
    e.i64(static_cast<int64_t>(r.caseDtype));
    e.i64(static_cast<int64_t>(r.runDtype));
    e.u64(r.outputs.size());
    for (const ops::OutputSummary& o : r.outputs) {
        e.str(o.name);
        e.i64(static_cast<int64_t>(o.dtype));
        e.ints(o.shape);
    }
    e.u64(r.comparisons.size());
    for (const ops::Comparison& c : r.comparisons) encodeComparison(e, c);
    e.strs(r.notes);
    e.u64(r.deviceArithmetic ? 1 : 0);
    if (r.deviceArithmetic) {
        e.str(r.deviceArithmetic->label);
        e.str(r.deviceArithmetic->advice);
    }
    e.f64(r.runMs);
    e.f64(r.goldenMs);
}

OrderedResult decodeResult(Decoder& d) {
    OrderedResult w;
    w.order = static_cast<std::size_t>(d.u64());
    ops::CaseResult& r = w.result;
    for (std::string* s : {&r.file, &r.path, &r.op, &r.origin, &r.description, &r.standard, &r.error}) *s = d.str();
    r.caseDtype = static_cast<DType>(d.i64());
    r.runDtype = static_cast<DType>(d.i64());
    for (std::size_t i = 0, n = d.count(); i < n; ++i) {
        ops::OutputSummary o;
        o.name = d.str();
        o.dtype = static_cast<DType>(d.i64());
        o.shape = d.ints();
        r.outputs.push_back(std::move(o));
    }
    const std::size_t comparisons = d.count();
    r.comparisons.reserve(comparisons);
    for (std::size_t i = 0; i < comparisons; ++i) r.comparisons.push_back(decodeComparison(d));
    r.notes = d.strs();
    if (d.u64() != 0) {
        ops::OtherArithmetic other;
        other.label = d.str();
        other.advice = d.str();
        r.deviceArithmetic = std::move(other);
    }
    r.runMs = d.f64();
    r.goldenMs = d.f64();
    if (!d.atEnd()) throw CliError("a worker sent a case result with extra bytes");
    return w;
}

}  // namespace

void appendResultFrame(std::string& out, std::size_t order, const ops::CaseResult& r) {
    const std::size_t lengthAt = out.size();
    out.append(sizeof(uint64_t), '\0');
    Encoder e(out);
    encodeResult(e, order, r);
    const uint64_t length = out.size() - lengthAt - sizeof(uint64_t);
    std::memcpy(&out[lengthAt], &length, sizeof length);
}

std::size_t takeResultFrames(const std::string& bytes, std::vector<OrderedResult>& out) {
    std::size_t at = 0;
    while (bytes.size() - at >= sizeof(uint64_t)) {
        uint64_t length;
        std::memcpy(&length, bytes.data() + at, sizeof length);
        if (bytes.size() - at - sizeof length < length) break;  // the rest is still on its way
        Decoder d(bytes.data() + at + sizeof length, static_cast<std::size_t>(length));
        out.push_back(decodeResult(d));
        at += sizeof length + static_cast<std::size_t>(length);
    }
    return at;
}

}  // namespace opscope::cli
