// Closing identifiers and turning HDF5's error stack into one readable reason.
#include "opscope/h5/h5_handle.h"

#include <hdf5.h>

#include <cctype>
#include <string>
#include <vector>

namespace opscope::h5 {

static_assert(std::is_same_v<hid_t, Id>, "opscope::h5::Id must be hid_t");

namespace {

herr_t closeId(hid_t id, Handle::Kind kind) {
    switch (kind) {
        case Handle::Kind::File: return H5Fclose(id);
        case Handle::Kind::Group: return H5Gclose(id);
        case Handle::Kind::Dataset: return H5Dclose(id);
        case Handle::Kind::Dataspace: return H5Sclose(id);
        case Handle::Kind::Datatype: return H5Tclose(id);
        case Handle::Kind::Attribute: return H5Aclose(id);
        case Handle::Kind::PropertyList: return H5Pclose(id);
        case Handle::Kind::Object: return H5Oclose(id);
    }
    return -1;
}

struct StackEntry {
    hid_t minor;
    std::string desc;
};

herr_t collectEntry(unsigned, const H5E_error2_t* e, void* out) {
    try {
        static_cast<std::vector<StackEntry>*>(out)->push_back({e->min_num, e->desc ? e->desc : ""});
        return 0;
    } catch (...) {
        return -1;  // never let an exception cross HDF5's C frames
    }
}

// The OS's words when a system call failed: HDF5 quotes them as "error message = '...'".
std::string osMessage(const std::string& desc) {
    const std::string key = "error message = '";
    auto at = desc.find(key);
    if (at == std::string::npos) return {};
    auto begin = at + key.size();
    auto end = desc.find('\'', begin);
    std::string text = desc.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
    if (!text.empty()) text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
    return text;
}

// The reason for the failure on top of this thread's error stack, then clears the stack.
std::string reasonFromStack() {
    std::vector<StackEntry> entries;
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, collectEntry, &entries);
    H5Eclear2(H5E_DEFAULT);
    if (entries.empty()) return "HDF5 reported an error without a description";

    for (const auto& e : entries) {
        std::string os = osMessage(e.desc);
        if (!os.empty()) return os;
    }
    for (const auto& e : entries) {
        if (e.minor == H5E_NOTHDF5 || e.minor == H5E_TRUNCATED) return "not an HDF5 file (or it is truncated/corrupt)";
        if (e.minor == H5E_CANTLOCKFILE)
            return "another program holds a lock on the file (HDF5 file locking; close the writer, or set "
                   "HDF5_USE_FILE_LOCKING=FALSE)";
        if (e.desc == "no write intent on file") return "the file is open read-only";
        if (e.desc == "object header message is too large")
            return "over 64 KiB, more than an object created in the old (pre-1.8) file format can hold";
        if (e.desc.rfind("file is already open", 0) == 0) return e.desc + " in this process";
    }
    // The innermost description is the most specific; drop the diagnostic tail after ':'.
    std::string desc = entries.back().desc;
    desc = desc.substr(0, desc.find(':'));
    return desc.empty() ? "HDF5 reported an error without a description" : desc;
}

}  // namespace

Handle& Handle::operator=(Handle&& other) noexcept {
    if (this != &other) {
        reset();
        id_ = other.id_;
        kind_ = other.kind_;
        other.id_ = -1;
    }
    return *this;
}

void Handle::close(const std::string& what) {
    if (!valid()) return;
    call(what, [&] { return closeId(id_, kind_); });
    id_ = -1;  // on failure the destructor tries once more, quietly
}

void Handle::reset() noexcept {
    if (!valid()) return;
    detail::silenceErrorPrinting();
    closeId(id_, kind_);
    id_ = -1;
}

namespace detail {

void silenceErrorPrinting() noexcept {
    // Debian's libhdf5 is built thread-safe, which makes this switch per thread.
    thread_local bool silenced = false;
    if (!silenced) {
        H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
        silenced = true;
    }
}

void throwFromErrorStack(const std::string& what) { throw IoError(what + ": " + reasonFromStack()); }

}  // namespace detail
}  // namespace opscope::h5
