// The rules of file_safety.h: which files may point outside themselves, plugin loading, and
// the bounds on what a file may declare.
#include "opscope/h5/file_safety.h"

#include <hdf5.h>

#include <filesystem>
#include <limits>
#include <mutex>
#include <set>
#include <vector>

#include "opscope/h5/h5_file.h"
#include "opscope/text_list.h"

namespace opscope::h5 {
namespace {

struct Allowance {
    std::mutex mutex;
    bool everywhere = false;
    std::set<std::string> files;  // as given and canonical
};

Allowance& allowance() {
    static Allowance a;
    return a;
}

std::string canonical(const std::string& path) {
    std::error_code ec;
    const std::filesystem::path p = std::filesystem::weakly_canonical(path, ec);
    return ec ? path : p.string();
}

}  // namespace

void allowExternalData(bool allowed) {
    std::lock_guard<std::mutex> lock(allowance().mutex);
    allowance().everywhere = allowed;
}

void allowExternalDataIn(const std::string& path) {
    std::lock_guard<std::mutex> lock(allowance().mutex);
    allowance().files.insert(canonical(path));
}

bool externalDataAllowed(const std::string& path) {
    std::lock_guard<std::mutex> lock(allowance().mutex);
    return allowance().everywhere || allowance().files.count(canonical(path)) > 0;
}

void refuseExternal(const std::string& object, const std::string& kind, const std::string& target) {
    throw ExternalDataError(object + " is " + kind + " -> " + target +
                            ", outside the file; a file may not read other files unless that is allowed "
                            "(opscope-cli --allow-external)");
}

void disablePluginLoading() {
    static std::once_flag once;
    std::call_once(once, [] {
        // Fails only on a library built without plugin support, where nothing is loaded anyway.
        probe([] { return H5PLset_loading_state(0); });
    });
}

void WalkBudget::visit(const std::string& path, int depth) {
    if (depth > kMaxTreeDepth)
        throw ContentError("'" + file_.path() + "' nests groups more than " + std::to_string(kMaxTreeDepth) +
                           " deep (at '" + path.substr(0, 200) + (path.size() > 200 ? "...'" : "'") +
                           "), deeper than OpScope walks");
    if (++nodes_ > kMaxTreeNodes)
        throw ContentError("'" + file_.path() + "' holds more than " + std::to_string(kMaxTreeNodes) +
                           " objects, more than OpScope walks");
}

std::string externalLinkTarget(Id location, const std::string& name, const std::string& what) {
    H5L_info_t link;
    call(what, [&] { return H5Lget_info(location, name.c_str(), &link, H5P_DEFAULT); });
    if (link.type != H5L_TYPE_EXTERNAL) return {};
    std::vector<char> value(link.u.val_size + 1, '\0');
    call(what, [&] { return H5Lget_val(location, name.c_str(), value.data(), link.u.val_size, H5P_DEFAULT); });
    unsigned flags = 0;
    const char* file = nullptr;
    const char* object = nullptr;
    call(what, [&] { return H5Lunpack_elink_val(value.data(), link.u.val_size, &flags, &file, &object); });
    return std::string(file ? file : "?") + ":" + (object ? object : "?");
}

std::string outsideReference(Id dataset, const std::string& what) {
    Handle list(call(what, [&] { return H5Dget_create_plist(dataset); }), Handle::Kind::PropertyList);
    if (call(what, [&] { return H5Pget_layout(list.id()); }) == H5D_VIRTUAL) {
        size_t count = 0;
        call(what, [&] { return H5Pget_virtual_count(list.id(), &count); });
        std::vector<std::string> sources;
        for (size_t i = 0; i < count && i < 8; ++i) {
            char file[1024] = {}, object[1024] = {};
            call(what, [&] { return H5Pget_virtual_filename(list.id(), i, file, sizeof file); });
            call(what, [&] { return H5Pget_virtual_dsetname(list.id(), i, object, sizeof object); });
            sources.push_back(std::string(file) + ":" + object);
        }
        if (count > sources.size()) sources.push_back("...");
        return "virtual dataset -> " + (sources.empty() ? std::string("(no sources)") : joinList(sources));
    }
    const int external = call(what, [&] { return H5Pget_external_count(list.id()); });
    if (external <= 0) return {};
    std::vector<std::string> files;
    for (int i = 0; i < external && i < 8; ++i) {
        char name[1024] = {};
        off_t offset = 0;
        hsize_t size = 0;
        call(what,
             [&] { return H5Pget_external(list.id(), static_cast<unsigned>(i), sizeof name, name, &offset, &size); });
        files.emplace_back(name);
    }
    if (external > 8) files.push_back("...");
    return "external storage -> " + joinList(files);
}

void refuseOutsideData(const std::string& where, const std::string& outside) {
    const std::size_t arrow = outside.find(" -> ");
    const bool isVirtual = outside.rfind("virtual", 0) == 0;
    refuseExternal(where, isVirtual ? "a virtual dataset" : "stored in an external file", outside.substr(arrow + 4));
}

uint64_t storedBytesBound(Id dataset, const std::string& what) {
    constexpr uint64_t kUnbounded = std::numeric_limits<uint64_t>::max();
    Handle list(call(what, [&] { return H5Dget_create_plist(dataset); }), Handle::Kind::PropertyList);
    const H5D_layout_t layout = call(what, [&] { return H5Pget_layout(list.id()); });
    if (layout == H5D_VIRTUAL || call(what, [&] { return H5Pget_external_count(list.id()); }) > 0) return kUnbounded;
    // 0 is both "nothing stored" and a failure: either way there is nothing to read.
    const uint64_t stored = probe([&] { return H5Dget_storage_size(dataset); });
    const int filters = call(what, [&] { return H5Pget_nfilters(list.id()); });
    bool deflateOnly = true;
    for (unsigned i = 0; i < static_cast<unsigned>(filters); ++i) {
        unsigned flags = 0, config = 0;
        size_t parameters = 0;
        const H5Z_filter_t id =
            call(what, [&] { return H5Pget_filter2(list.id(), i, &flags, &parameters, nullptr, 0, nullptr, &config); });
        if (id != H5Z_FILTER_DEFLATE && id != H5Z_FILTER_SHUFFLE && id != H5Z_FILTER_FLETCHER32) deflateOnly = false;
    }
    if (filters == 0) return stored;
    if (!deflateOnly) return kUnbounded;
    uint64_t bound = 0;
    return __builtin_mul_overflow(stored, kMaxDeflateRatio, &bound) ? kUnbounded : bound;
}

}  // namespace opscope::h5
