// The pickle subset of torch.save (protocol 2, and the protocol 4 framing opcodes some
// writers add). Opcode values from CPython's Lib/pickletools.py.
#include "pickle_reader.h"

#include <cstring>
#include <unordered_set>

#include "opscope/import/format_error.h"

namespace opscope::import::detail {

PyRef makeValue(PyValue::Kind kind) {
    auto v = std::make_shared<PyValue>();
    v->kind = kind;
    return v;
}

namespace {

constexpr std::size_t kMaxDepth = 1u << 16;  // stack and memo entries: far beyond torch.save's needs

class Unpickler {
public:
    Unpickler(PickleInput& in, const std::string& what, const PickleHooks& hooks)
        : in_(in), b_(in.bytes), pos_(in.pos), what_(what), hooks_(hooks) {}
    // A pickle that failed half-way may have made a cycle already: its arena is this one.
    ~Unpickler() { PickleArena().adopt(std::move(filled_)); }
    // The lists and dicts filled, for the caller's arena (after run()).
    std::vector<PyRef> takeFilled() { return std::move(filled_); }

    PyRef run() {
        while (true) {
            const unsigned char op = byte();
            if (op == '.') {  // STOP
                if (stack_.size() != 1 || !marks_.empty()) fail("the pickle stops with a malformed stack");
                return stack_.back();
            }
            if (!framing(op) && !literal(op) && !container(op) && !object(op))
                fail("pickle opcode 0x" + hex(op) + " at byte " + std::to_string(pos_ - 1) +
                     ", which torch.save does not write for tensors");
        }
    }

private:
    // PROTO, FRAME, MARK, the memo and POP: what shapes the stream, not the values.
    bool framing(unsigned char op) {
        switch (op) {
            case 0x80: byte(); return true;                          // PROTO
            case 0x95: take(8); return true;                         // FRAME (protocol 4)
            case '(': marks_.push_back(stack_.size()); return true;  // MARK
            case 'q': memoPut(byte()); return true;                  // BINPUT
            case 'r': memoPut(uint(4)); return true;                 // LONG_BINPUT
            case 0x94: memoPut(memo_.size()); return true;           // MEMOIZE
            case 'h': memoGet(byte()); return true;                  // BINGET
            case 'j': memoGet(uint(4)); return true;                 // LONG_BINGET
            case '0': pop(); return true;                            // POP
            default: return false;
        }
    }

    // None, booleans, integers, floats, strings and bytes.
    bool literal(unsigned char op) {
        switch (op) {
            case 'N': push(makeValue(PyValue::Kind::None)); return true;
            case 0x88:
            case 0x89: {  // NEWTRUE, NEWFALSE
                auto v = makeValue(PyValue::Kind::Bool);
                v->b = op == 0x88;
                push(v);
                return true;
            }
            case 'K': pushInt(byte()); return true;                             // BININT1
            case 'M': pushInt(static_cast<int64_t>(uint(2))); return true;      // BININT2
            case 'J': pushInt(static_cast<int32_t>(uint(4))); return true;      // BININT
            case 0x8a: pushInt(long1()); return true;                           // LONG1
            case 'G': pushFloat(); return true;                                 // BINFLOAT
            case 'X': pushString(PyValue::Kind::String, uint(4)); return true;  // BINUNICODE
            case 0x8c: pushString(PyValue::Kind::String, byte()); return true;  // SHORT_BINUNICODE
            case 'T': pushString(PyValue::Kind::String, uint(4)); return true;  // BINSTRING
            case 'U': pushString(PyValue::Kind::String, byte()); return true;   // SHORT_BINSTRING
            case 'B': pushString(PyValue::Kind::Bytes, uint(4)); return true;   // BINBYTES
            case 'C': pushString(PyValue::Kind::Bytes, byte()); return true;    // SHORT_BINBYTES
            default: return false;
        }
    }

    // Tuples, lists and dicts, and what fills them.
    bool container(unsigned char op) {
        switch (op) {
            case ')': push(makeValue(PyValue::Kind::Tuple)); return true;  // EMPTY_TUPLE
            case ']': push(makeValue(PyValue::Kind::List)); return true;   // EMPTY_LIST
            case '}': push(makeValue(PyValue::Kind::Dict)); return true;   // EMPTY_DICT
            case 't': {                                                    // TUPLE
                auto v = makeValue(PyValue::Kind::Tuple);
                v->items = popMark();
                push(v);
                return true;
            }
            case 0x85:
            case 0x86:
            case 0x87: pushTuple(static_cast<std::size_t>(op - 0x84)); return true;  // TUPLE1, TUPLE2, TUPLE3
            case 'a': {                                                              // APPEND
                PyRef item = pop();
                filled(list("APPEND"))->items.push_back(item);
                return true;
            }
            case 'e': {  // APPENDS
                std::vector<PyRef> items = popMark();
                PyRef l = filled(list("APPENDS"));
                l->items.insert(l->items.end(), items.begin(), items.end());
                return true;
            }
            case 's': {  // SETITEM
                PyRef value = pop(), key = pop();
                setItems(top(), {key, value});
                return true;
            }
            case 'u': setItems(nullptr, popMark()); return true;  // SETITEMS
            default: return false;
        }
    }

    // Globals, the calls that rebuild objects (through the hooks) and persistent ids.
    bool object(unsigned char op) {
        switch (op) {
            case 'c': {  // GLOBAL "module\nname\n"
                const std::string module = line(), name = line();
                pushGlobal(module + "." + name);
                return true;
            }
            case 0x93: {  // STACK_GLOBAL
                PyRef name = pop(), module = pop();
                if (name->kind != PyValue::Kind::String || module->kind != PyValue::Kind::String)
                    fail("STACK_GLOBAL of non-strings");
                pushGlobal(module->s + "." + name->s);
                return true;
            }
            case 'R':
            case 0x81: {  // REDUCE, NEWOBJ
                PyRef args = pop(), callable = pop();
                if (callable->kind != PyValue::Kind::Global) fail("a call of something that is not a global");
                if (args->kind != PyValue::Kind::Tuple) fail("a call whose arguments are not a tuple");
                push(hooks_.call(callable->s, args));
                return true;
            }
            case 'b': pop(); return true;  // BUILD: the state of an OrderedDict or tensor; not needed
            case 'Q': {                    // BINPERSID
                PyRef pid = pop();
                push(hooks_.persistentLoad(pid));
                return true;
            }
            default: return false;
        }
    }

    int64_t long1() {
        const std::size_t n = byte();
        if (n > 8) fail("an integer wider than 64 bits");
        const std::string d = take(n);
        uint64_t u = 0;
        for (std::size_t k = 0; k < n; ++k) u |= static_cast<uint64_t>(static_cast<unsigned char>(d[k])) << (8 * k);
        if (n > 0 && n < 8 && (static_cast<unsigned char>(d[n - 1]) & 0x80)) u |= ~uint64_t{0} << (8 * n);
        return static_cast<int64_t>(u);
    }
    void pushFloat() {  // big-endian double
        const std::string d = take(8);
        uint64_t u = 0;
        for (int k = 0; k < 8; ++k) u = (u << 8) | static_cast<unsigned char>(d[static_cast<std::size_t>(k)]);
        auto v = makeValue(PyValue::Kind::Float);
        std::memcpy(&v->f, &u, 8);
        push(v);
    }
    void pushTuple(std::size_t n) {
        if (stack_.size() < n) fail("a tuple of more items than the stack holds");
        auto v = makeValue(PyValue::Kind::Tuple);
        v->items.assign(stack_.end() - static_cast<long>(n), stack_.end());
        stack_.resize(stack_.size() - n);
        push(v);
    }
    void pushGlobal(const std::string& name) {
        auto v = makeValue(PyValue::Kind::Global);
        v->s = name;
        push(v);
    }
    PyRef list(const char* opcode) {
        PyRef l = top();
        if (l->kind != PyValue::Kind::List) fail(std::string(opcode) + " to something that is not a list");
        return l;
    }
    [[noreturn]] void fail(const std::string& why) const {
        throw FormatError("'" + what_ + "' is not a tensor file torch.save wrote: " + why);
    }
    static std::string hex(unsigned v) {
        const char* d = "0123456789abcdef";
        return std::string{d[(v >> 4) & 15], d[v & 15]};
    }
    // Buffers `n` bytes from pos_, reading more of the file when the input can; false when the
    // file ends first.
    bool fill(std::size_t n) {
        while (n > b_.size() - pos_) {
            const std::size_t had = b_.size();
            if (!in_.more || !in_.more(b_, n - (had - pos_)) || b_.size() == had) return false;
        }
        return true;
    }
    void need(std::size_t n) {
        if (!fill(n)) fail("the pickle ends early (truncated?)");
    }
    unsigned char byte() {
        need(1);
        return static_cast<unsigned char>(b_[pos_++]);
    }
    std::string take(std::size_t n) {
        need(n);
        std::string s = b_.substr(pos_, n);
        pos_ += n;
        return s;
    }
    uint64_t uint(int n) {
        uint64_t v = 0;
        for (int k = 0; k < n; ++k) v |= static_cast<uint64_t>(byte()) << (8 * k);
        return v;
    }
    std::string line() {
        fill(kMaxLine + 1);  // the longest line there can be, or what is left of the file
        const std::size_t end = b_.find('\n', pos_);
        if (end == std::string::npos || end - pos_ > kMaxLine) fail("a malformed GLOBAL");
        std::string s = b_.substr(pos_, end - pos_);
        pos_ = end + 1;
        return s;
    }
    void push(PyRef v) {
        if (stack_.size() >= kMaxDepth) fail("the pickle stack grows beyond " + std::to_string(kMaxDepth));
        stack_.push_back(std::move(v));
    }
    void pushInt(int64_t i) {
        auto v = makeValue(PyValue::Kind::Int);
        v->i = i;
        push(v);
    }
    void pushString(PyValue::Kind kind, uint64_t n) {
        auto v = makeValue(kind);
        v->s = take(static_cast<std::size_t>(n));  // checked against what the file holds before a copy
        push(v);
    }
    PyRef pop() {
        if (stack_.empty() || (!marks_.empty() && stack_.size() <= marks_.back()))
            fail("the pickle pops an empty stack");
        PyRef v = stack_.back();
        stack_.pop_back();
        return v;
    }
    PyRef top() {
        if (stack_.empty()) fail("the pickle reads an empty stack");
        return stack_.back();
    }
    std::vector<PyRef> popMark() {
        if (marks_.empty()) fail("a MARK is missing");
        const std::size_t m = marks_.back();
        marks_.pop_back();
        std::vector<PyRef> items(stack_.begin() + static_cast<long>(m), stack_.end());
        stack_.resize(m);
        return items;
    }
    void setItems(PyRef dict, const std::vector<PyRef>& kv) {
        if (!dict) dict = top();
        if (dict->kind != PyValue::Kind::Dict) fail("SETITEM on something that is not a dict");
        if (kv.size() % 2) fail("SETITEMS with an odd number of items");
        filled(dict)->items.insert(dict->items.end(), kv.begin(), kv.end());
    }
    const PyRef& filled(const PyRef& container) {
        if (filledSeen_.insert(container.get()).second) filled_.push_back(container);
        return container;
    }
    void memoPut(uint64_t index) {
        if (index > kMaxDepth) fail("a memo index of " + std::to_string(index));
        if (memo_.size() <= index) memo_.resize(static_cast<std::size_t>(index) + 1);
        memo_[static_cast<std::size_t>(index)] = top();
    }
    void memoGet(uint64_t index) {
        if (index >= memo_.size() || !memo_[static_cast<std::size_t>(index)]) fail("a memo entry that was never set");
        push(memo_[static_cast<std::size_t>(index)]);
    }

    static constexpr std::size_t kMaxLine = 256;  // a GLOBAL's module or name

    PickleInput& in_;
    std::string& b_;
    std::size_t& pos_;
    const std::string& what_;
    const PickleHooks& hooks_;
    std::vector<PyRef> stack_;
    std::vector<std::size_t> marks_;
    std::vector<PyRef> memo_;
    std::vector<PyRef> filled_;  // every list and dict given items (the only way a cycle is made)
    std::unordered_set<const PyValue*> filledSeen_;
};

}  // namespace

PickleArena::~PickleArena() {
    for (const PyRef& v : filled_) v->items.clear();
}

void PickleArena::adopt(std::vector<PyRef> filled) {
    filled_.insert(filled_.end(), std::make_move_iterator(filled.begin()), std::make_move_iterator(filled.end()));
}

PyRef loadPickle(PickleInput& in, const std::string& what, const PickleHooks& hooks, PickleArena& arena) {
    Unpickler u(in, what, hooks);
    PyRef root = u.run();
    arena.adopt(u.takeFilled());
    return root;
}

PyRef loadPickle(std::string bytes, const std::string& what, const PickleHooks& hooks, PickleArena& arena) {
    PickleInput in;
    in.bytes = std::move(bytes);
    return loadPickle(in, what, hooks, arena);
}

}  // namespace opscope::import::detail
